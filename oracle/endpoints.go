package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/ethereum/go-ethereum/common"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/internal/openapidoc"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// endpoint is one attestation route, described once: its request and response types (from
// which the OpenAPI document and the validating schemas are generated), how it attests
// locally and how it reads an answer (its own or a peer's) back for aggregation.
type endpoint struct {
	path, summary, description string
	request, response          any
	errors                     []string // codes the route answers with besides the common ones
	// run decodes the validated body and returns the local attestation.
	run func(ctx context.Context, s *Server, body []byte, authed bool) (*collected, *oracleapi.Error)
	// decode reads an answer of this route (strictly: the route's schema, then its types) and
	// verifies every signature in it.
	decode func(raw []byte) (*collected, error)

	requestSchema, responseSchema *openapi3.Schema

	// svm is the route's variant for Solana chains (solana.go), perps its variant for perps
	// exchange chains (perps.go), chosen by the body's chainId before anything else is read
	// (Server.variant); nil where the route serves EVM chains only.
	svm, perps *endpoint
}

// collected is one answer of a route in a form the aggregation compares and merges: the domain,
// each message's data in canonical JSON with its digest, and each message's verified
// signatures. source names where it came from ("local" or the peer's URL) in logs.
type collected struct {
	source  string
	domain  oracleapi.Domain
	data    []json.RawMessage
	digests []common.Hash
	sigs    [][]oracleapi.Signature
}

// key identifies the payload for grouping: the domain and every message's data, in order (the
// spec's rule 1: combined only when payloads, domains and array order match).
func (c *collected) key() string {
	b, _ := json.Marshal(struct {
		Domain oracleapi.Domain  `json:"domain"`
		Data   []json.RawMessage `json:"data"`
	}{c.domain, c.data})
	return string(b)
}

// wire is the answer as served.
func (c *collected) wire() any {
	type message struct {
		Data       json.RawMessage       `json:"data"`
		Signatures []oracleapi.Signature `json:"signatures"`
	}
	out := struct {
		Messages []message        `json:"messages"`
		Domain   oracleapi.Domain `json:"domain"`
	}{Messages: make([]message, len(c.data)), Domain: c.domain}
	for i := range c.data {
		sigs := c.sigs[i]
		if sigs == nil {
			sigs = []oracleapi.Signature{}
		}
		out.Messages[i] = message{Data: c.data[i], Signatures: sigs}
	}
	return out
}

// newEndpoint describes a route whose requests are Req and whose messages are T; attest reads
// the facts and returns the messages to sign and their domain.
func newEndpoint[Req any, T oracleapi.Message](path, summary, description string, codes []string,
	attest func(ctx context.Context, s *Server, req Req, authed bool) ([]T, oracleapi.Domain, *oracleapi.Error)) *endpoint {
	e := &endpoint{path: path, summary: summary, description: description, errors: codes,
		request: new(Req), response: new(oracleapi.Attestation[T])}
	signed := metrics.OracleSignatures.WithLabelValues(path)
	e.run = func(ctx context.Context, s *Server, body []byte, authed bool) (*collected, *oracleapi.Error) {
		var req Req
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, oracleapi.Errorf(oracleapi.CodeInvalidRequest, "body does not match the request schema: %s", jsonProblem(err))
		}
		msgs, domain, oe := attest(ctx, s, req, authed)
		if oe != nil {
			return nil, oe
		}
		if len(msgs) > oracleapi.MaxMessagesPerAnswer {
			// Every route's answer is capped here, before any signing, whatever its attest
			// function selected (deposits refuse earlier, with the fields that select one).
			return nil, tooManyEvents(len(msgs), "events", "ask about fewer")
		}
		// The local answer is built as it is served, not read back: its signatures are this
		// oracle's own, correct by construction (a raw key signs with go-ethereum; the KMS
		// signer finds the recovery id by recovering its public key), so the ecrecover, schema
		// check and decoding that decode spends on a peer's answer would only repeat the signing.
		c := &collected{domain: domain, data: make([]json.RawMessage, len(msgs)),
			digests: make([]common.Hash, len(msgs)), sigs: make([][]oracleapi.Signature, len(msgs))}
		for i, m := range msgs {
			digest, err := oracleapi.Digest(domain, m)
			if err != nil {
				s.logger.Error("building the typed data failed", "path", path, "err", err)
				return nil, oracleapi.Errorf(oracleapi.CodeInternal, "building the typed data failed")
			}
			sig, err := s.signer.SignDigest(ctx, digest)
			if err != nil {
				s.logger.Error("signing failed", "path", path, "err", err)
				return nil, oracleapi.Errorf(oracleapi.CodeInternal, "signing failed")
			}
			signed.Inc()
			data, err := json.Marshal(m)
			if err != nil {
				return nil, oracleapi.Errorf(oracleapi.CodeInternal, "encoding the attestation failed")
			}
			c.data[i], c.digests[i] = data, digest
			c.sigs[i] = []oracleapi.Signature{{Signer: s.signer.Address(), Signature: sig}}
		}
		return c, nil
	}
	e.decode = func(raw []byte) (*collected, error) {
		if err := validateJSON(e.responseSchema, raw); err != nil {
			return nil, err
		}
		var att oracleapi.Attestation[T]
		if err := json.Unmarshal(raw, &att); err != nil {
			return nil, fmt.Errorf("decode: %s", jsonProblem(err))
		}
		if len(att.Messages) > oracleapi.MaxMessagesPerAnswer {
			return nil, fmt.Errorf("%d messages, more than the %d an answer may carry", len(att.Messages), oracleapi.MaxMessagesPerAnswer)
		}
		if err := oracleapi.VerifyAttestation(&att); err != nil {
			return nil, err
		}
		c := &collected{domain: att.Domain}
		for _, m := range att.Messages {
			data, err := json.Marshal(m.Data)
			if err != nil {
				return nil, err
			}
			digest, err := oracleapi.Digest(att.Domain, m.Data)
			if err != nil {
				return nil, err
			}
			c.data, c.digests, c.sigs = append(c.data, data), append(c.digests, digest), append(c.sigs, m.Signatures)
		}
		return c, nil
	}
	return e
}

// tooManyEvents refuses an attestation whose facts would take n messages, more than
// oracleapi.MaxMessagesPerAnswer: what names them, and what the caller can do instead.
func tooManyEvents(n int, what, instead string) *oracleapi.Error {
	return oracleapi.Errorf(oracleapi.CodeTooManyEvents, "the transaction holds %d %s, more than the %d one answer carries; %s",
		n, what, oracleapi.MaxMessagesPerAnswer, instead)
}

// validateJSON checks raw against schema (openapidoc.ValidateJSON).
func validateJSON(schema *openapi3.Schema, raw []byte) error {
	return openapidoc.ValidateJSON(schema, raw)
}

// handle serves one attestation route: the body is validated against the route's schema (400
// INVALID_REQUEST with the first problem), `force` is refused without a valid key (401), the
// local attestation is made, and with requestPeerSignatures from a caller with a valid key the
// peers are asked too (aggregate). A keyless caller's requestPeerSignatures is answered with the
// local attestation alone: the peers are asked with this instance's dedicated key, which passes
// their rate limits, so fanning out for anyone would turn a keyless client's limited requests
// into (1 + peers) times the chain reads and signatures, unlimited at the peers.
func (s *Server) handle(e *endpoint) gin.HandlerFunc {
	return func(c *gin.Context) {
		body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxBodyBytes))
		if err != nil {
			writeError(c, oracleapi.Errorf(oracleapi.CodeInvalidRequest, "body could not be read: %s", jsonProblem(err)))
			return
		}
		e := s.variant(e, body)
		if err := validateJSON(e.requestSchema, body); err != nil {
			writeError(c, oracleapi.Errorf(oracleapi.CodeInvalidRequest, "invalid request body (see /documentation): %v", err))
			return
		}
		var flags struct {
			Force                 bool `json:"force"`
			RequestPeerSignatures bool `json:"requestPeerSignatures"`
		}
		_ = json.Unmarshal(body, &flags) // validated above
		_, authed := c.Get(ctxKeyLabel)
		if flags.Force && !authed {
			writeError(c, oracleapi.Errorf(oracleapi.CodeUnauthorized, "force requires a valid %s header", oracleapi.HeaderAPIKey))
			return
		}
		ctx := c.Request.Context()
		local := func(ctx context.Context) (*collected, *oracleapi.Error) { return e.run(ctx, s, body, authed) }
		var att *collected
		var oe *oracleapi.Error
		fanOut := flags.RequestPeerSignatures && len(s.cfg.Peers) > 0
		if fanOut && !authed {
			s.logger.Debug("peer signatures are gathered for callers with an API key only; answering with the local attestation",
				"path", e.path, "client", c.RemoteIP())
			fanOut = false
		}
		if fanOut {
			att, oe = s.aggregate(ctx, e, body, c.GetHeader(oracleapi.HeaderAPIKey), local)
		} else {
			att, oe = local(ctx)
		}
		if oe != nil {
			writeError(c, oe)
			return
		}
		c.JSON(http.StatusOK, att.wire())
	}
}

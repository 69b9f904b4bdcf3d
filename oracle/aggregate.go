package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// maxPeerAnswerBytes bounds what is read from a peer; attestations are small.
const maxPeerAnswerBytes = 1 << 20

// aggregate is requestPeerSignatures: the local attestation and one request to every peer
// start at once, and their answers are combined by the spec's rules:
//
//  1. answers are grouped only when domain, messages and message order are identical (key);
//     an answer that fails the route's schema or whose signatures do not verify is skipped;
//  2. within a group a signer counts once, only if allowlisted (when ORACLE_SIGNERS is set),
//     and only if it signed every message;
//  3. with ORACLE_SIGNERS, the first group to reach the threshold is returned at once, whoever
//     its members are (the local answer has no privilege);
//  4. when none reaches it, the strongest group is returned all the same, with the matched and
//     required counts logged: callers verify the count themselves;
//  5. the allowlist is never sent to peers (only the caller's request, with
//     requestPeerSignatures false so that peers do not fan out in turn);
//  6. without ORACLE_SIGNERS, every answer is awaited (peers bounded by
//     PEER_REQUEST_TIMEOUT_MS), the local failure is the answer, and only peers whose payload
//     matches the local one are merged into it;
//  7. with ORACLE_SIGNERS, a local failure is logged and fails the request only when no group
//     with an allowlisted signature exists;
//  8. a peer that times out, errors, answers something invalid or another payload is skipped
//     with a warning.
func (s *Server) aggregate(ctx context.Context, e *endpoint, body []byte, callerKey string,
	local func(context.Context) (*collected, *oracleapi.Error)) (*collected, *oracleapi.Error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	log := s.logger.With(slog.String("path", e.path))
	peerBody := e.peerRequest(body)

	type answer struct {
		att      *collected
		localErr *oracleapi.Error
		peerErr  error
		source   string
	}
	answers := make(chan answer, len(s.cfg.Peers)+1)
	go func() {
		att, err := local(ctx)
		answers <- answer{att: att, localErr: err, source: "local"}
	}()
	for _, p := range s.cfg.Peers {
		go func() {
			att, err := s.askPeer(ctx, e, p, peerBody, callerKey)
			answers <- answer{att: att, peerErr: err, source: p.BaseURL}
		}()
	}

	allowlist := s.cfg.OracleSigners
	threshold := s.cfg.OracleSignersThreshold
	var groups []*group
	var localAtt *collected
	var localErr *oracleapi.Error
	for range len(s.cfg.Peers) + 1 {
		a := <-answers
		switch {
		case a.source == "local" && a.localErr != nil:
			localErr = a.localErr
			if len(allowlist) == 0 {
				return nil, localErr // rule 6: nothing can stand in for the local attestation
			}
			// A refusal about the facts (not confirmed yet, not found) is what every oracle
			// answers while a deposit collects its confirmations: DEBUG. A failure is WARN.
			level := slog.LevelWarn
			if a.localErr.Status < 500 {
				level = slog.LevelDebug
			}
			log.Log(ctx, level, "local attestation failed; peers may still reach the threshold", slog.String("code", a.localErr.Code),
				slog.String("message", a.localErr.Message))
			continue
		case a.peerErr != nil:
			level := slog.LevelWarn
			var refused *peerRefusal
			outcome := "error"
			if errors.As(a.peerErr, &refused) && refused.status < 500 {
				level = slog.LevelDebug // the peer refuses the facts as the local oracle would
				outcome = "refused"
			} else if errors.Is(a.peerErr, context.DeadlineExceeded) {
				outcome = "timeout"
			}
			metrics.OraclePeers.WithLabelValues(outcome).Inc()
			log.Log(ctx, level, "peer skipped", slog.String("peer", a.source), slog.Any("err", a.peerErr))
			continue
		case a.source == "local":
			localAtt = a.att
		default:
			metrics.OraclePeers.WithLabelValues("ok").Inc()
		}
		g := join(&groups, a.att)
		if len(allowlist) == 0 {
			continue
		}
		if signers := g.signers(allowlist); len(signers) >= threshold {
			log.Info("peer signatures aggregated", slog.Int("matched", len(signers)), slog.Int("required", threshold),
				slog.Int("answers", len(g.members)))
			return g.merge(signers), nil
		}
	}

	if len(allowlist) == 0 {
		// Rule 6: the local payload is the answer; peers that match it add their signatures.
		for _, g := range groups {
			if g.key == localAtt.key() {
				for _, other := range groups {
					if other != g {
						for _, m := range other.members {
							log.Warn("peer skipped: its payload differs from the local one", slog.String("peer", m.source))
						}
					}
				}
				signers := g.signers(nil)
				log.Info("peer signatures aggregated", slog.Int("signers", len(signers)), slog.Int("answers", len(g.members)))
				return g.merge(signers), nil
			}
		}
		return nil, oracleapi.Errorf(oracleapi.CodeInternal, "the local attestation is missing") // unreachable
	}

	// Rules 4 and 7: no group reached the threshold; the strongest with an allowlisted signature
	// is the answer.
	var best *group
	var bestSigners []common.Address
	for _, g := range groups {
		signers := g.signers(allowlist)
		if best == nil || len(signers) > len(bestSigners) || (len(signers) == len(bestSigners) && g.has(localAtt) && !best.has(localAtt)) {
			best, bestSigners = g, signers
		}
	}
	if best == nil || len(bestSigners) == 0 {
		if localErr != nil {
			return nil, localErr
		}
		return nil, oracleapi.Errorf(oracleapi.CodeInternal, "no allowlisted signature was gathered")
	}
	for _, g := range groups {
		if g != best {
			for _, m := range g.members {
				log.Warn("peer skipped: its payload differs from the returned one", slog.String("peer", m.source))
			}
		}
	}
	log.Warn("signer threshold not reached; returning the strongest partial group", slog.Int("matched", len(bestSigners)),
		slog.Int("required", threshold), slog.Int("groups", len(groups)))
	return best.merge(bestSigners), nil
}

// group is the answers with one payload (collected.key).
type group struct {
	key     string
	members []*collected
}

// join adds att to the group of its payload, making one if needed, and returns that group.
func join(groups *[]*group, att *collected) *group {
	k := att.key()
	for _, g := range *groups {
		if g.key == k {
			g.members = append(g.members, att)
			return g
		}
	}
	g := &group{key: k, members: []*collected{att}}
	*groups = append(*groups, g)
	return g
}

func (g *group) has(att *collected) bool { return att != nil && slices.Contains(g.members, att) }

// signers are the group's signers that count (rule 2): in allowlist when it is set, and present
// in every message's signatures; in the order they were first seen.
func (g *group) signers(allowlist []common.Address) []common.Address {
	var out []common.Address
	n := len(g.members[0].data)
	for _, m := range g.members {
		for _, sig := range m.sigs[0] {
			s := sig.Signer
			if slices.Contains(out, s) || (len(allowlist) > 0 && !slices.Contains(allowlist, s)) {
				continue
			}
			everywhere := true
			for i := 1; i < n && everywhere; i++ {
				everywhere = g.signed(i, s)
			}
			if everywhere {
				out = append(out, s)
			}
		}
	}
	return out
}

// signed reports whether s signed message i in any member of the group.
func (g *group) signed(i int, s common.Address) bool {
	for _, m := range g.members {
		if slices.ContainsFunc(m.sigs[i], func(x oracleapi.Signature) bool { return x.Signer == s }) {
			return true
		}
	}
	return false
}

// merge is the group's payload with one signature per counted signer on every message.
func (g *group) merge(signers []common.Address) *collected {
	first := g.members[0]
	out := &collected{source: "aggregate", domain: first.domain, data: first.data, digests: first.digests,
		sigs: make([][]oracleapi.Signature, len(first.data))}
	for i := range first.data {
		for _, s := range signers {
		find:
			for _, m := range g.members {
				for _, sig := range m.sigs[i] {
					if sig.Signer == s {
						out.sigs[i] = append(out.sigs[i], sig)
						break find
					}
				}
			}
		}
	}
	return out
}

// peerRefusal is a peer's error answer: a 4xx with one of our codes refuses the facts (not
// confirmed yet, say), anything else is the peer's failure.
type peerRefusal struct {
	status int
	code   string
}

func (p *peerRefusal) Error() string { return fmt.Sprintf("answered %d %s", p.status, p.code) }

// peerRequest is the body sent to peers: the caller's fields of the route's schema, with
// requestPeerSignatures false so that a peer answers with its own signature and never fans out
// in turn. Nothing of this instance's configuration (its allowlist, its threshold) is added.
func (e *endpoint) peerRequest(body []byte) []byte {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(body, &fields) // validated by the caller
	out := map[string]json.RawMessage{}
	for k, v := range fields {
		if _, known := e.requestSchema.Properties[k]; known {
			out[k] = v
		}
	}
	out["requestPeerSignatures"] = json.RawMessage("false")
	b, _ := json.Marshal(out)
	return b
}

// askPeer posts the request to one peer within PEER_REQUEST_TIMEOUT_MS and reads its answer
// as the route's answer (schema, types, signatures). Any failure is the peer's (rule 8).
func (s *Server) askPeer(ctx context.Context, e *endpoint, p Peer, body []byte, callerKey string) (*collected, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.PeerRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.BaseURL+e.path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	key := p.apiKey
	if p.PassThrough {
		key = callerKey
	}
	if key != "" {
		req.Header.Set(oracleapi.HeaderAPIKey, key)
	}
	start := time.Now()
	resp, err := s.peers.Do(req)
	if err != nil {
		if ctx.Err() != nil && time.Since(start) >= s.cfg.PeerRequestTimeout {
			return nil, fmt.Errorf("no answer within %s", s.cfg.PeerRequestTimeout)
		}
		return nil, fmt.Errorf("request failed: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxPeerAnswerBytes))
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var e oracleapi.Error
		_ = json.Unmarshal(raw, &e)
		return nil, &peerRefusal{status: resp.StatusCode, code: e.Code}
	}
	att, err := e.decode(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid answer: %w", err)
	}
	att.source = p.BaseURL
	return att, nil
}

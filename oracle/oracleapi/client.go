package oracleapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// maxResponseBytes bounds what the Client reads from an oracle; attestations are small.
const maxResponseBytes = 1 << 20

// Client is the engine's view of one oracle instance. It returns *Error for every failure so a
// caller classifies failures by their code instead of parsing messages, and it checks every
// signature it returns, so a corrupted or mismatched response never reaches settlement.
type Client struct {
	baseURL string
	apiKey  string
	hc      *http.Client
}

// NewClient targets the oracle at baseURL (e.g. "http://127.0.0.1:3000"). apiKey, when set, is
// sent as x-api-key so the engine is not rate limited. hc nil means a client with a 30 s
// timeout; callers should also bound ctx.
func NewClient(baseURL, apiKey string, hc *http.Client) *Client {
	if hc == nil {
		// Go's default transport keeps two idle connections per host; an engine asks
		// for many attestations at once.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		hc = &http.Client{Timeout: 30 * time.Second, Transport: tr}
	}
	return &Client{baseURL: strings.TrimRight(baseURL, "/"), apiKey: apiKey, hc: hc}
}

// AttestDeposit asks the oracle to attest the Deposit events of txHash on chainID, with its
// peers' signatures (requestPeerSignatures: an oracle without PEERS answers with its own). The
// returned attestation holds only messages about that transaction whose signatures recover to
// their claimed signers under the domain returned; whether that domain is the expected one and
// whether the signers are trusted, and enough of them, is the caller's decision (the spec:
// the oracle's success does not mean quorum).
func (c *Client) AttestDeposit(ctx context.Context, chainID uint64, txHash common.Hash) (*DepositAttestation, error) {
	att, err := Attest[DepositData](ctx, c, PathDepositAttestation,
		DepositAttestationRequest{ChainID: chainID, TransactionID: txHash, RequestPeerSignatures: true})
	if err != nil {
		return nil, err
	}
	for i, m := range att.Messages {
		if m.Data.ChainID != chainID || m.Data.TransactionID != txHash {
			return nil, invalidResponse("message %d is about chain %d transaction %s", i, m.Data.ChainID, m.Data.TransactionID.Hex())
		}
	}
	return att, nil
}

// AttestDepositFor asks, as AttestDeposit does, for the Deposit events of txHash on chainID
// that pay for orderID only: the oracle reads and signs those (normally one) instead of every
// deposit of the transaction. The order id names the deposit better than its log index, which
// is its position in the block and changes when a reorg includes the transaction in another.
// An oracle that does not know the field answers with every deposit of the transaction; the
// returned attestation holds only orderID's.
func (c *Client) AttestDepositFor(ctx context.Context, chainID uint64, txHash, orderID common.Hash) (*DepositAttestation, error) {
	return c.attestDepositFor(ctx, DepositAttestationRequest{ChainID: chainID, TransactionID: txHash, OrderID: &orderID,
		RequestPeerSignatures: true})
}

// AttestSweepDepositFor is AttestDepositFor for the deposit a deposit address's sweep made,
// naming payment, the plain transfer the sweep moved (sweptPaymentTransactionId): the oracle
// then counts the deposit's confirmations from the payment's block once the sweep is mined
// (docs/oracle.md, "A sweep's deposit"). An oracle that does not know the field answers at the
// sweep's own depth.
func (c *Client) AttestSweepDepositFor(ctx context.Context, chainID uint64, txHash, orderID, payment common.Hash) (*DepositAttestation, error) {
	return c.attestDepositFor(ctx, DepositAttestationRequest{ChainID: chainID, TransactionID: txHash, OrderID: &orderID,
		SweptPaymentTransactionID: &payment, RequestPeerSignatures: true})
}

func (c *Client) attestDepositFor(ctx context.Context, req DepositAttestationRequest) (*DepositAttestation, error) {
	chainID, txHash, orderID := req.ChainID, req.TransactionID, *req.OrderID
	att, err := Attest[DepositData](ctx, c, PathDepositAttestation, req)
	if err != nil {
		return nil, err
	}
	var mine []DepositMessage
	for i, m := range att.Messages {
		if m.Data.ChainID != chainID || m.Data.TransactionID != txHash {
			return nil, invalidResponse("message %d is about chain %d transaction %s", i, m.Data.ChainID, m.Data.TransactionID.Hex())
		}
		if m.Data.OrderID == orderID {
			mine = append(mine, m)
		}
	}
	if len(mine) == 0 {
		return nil, &Error{Status: http.StatusNotFound, Code: CodeNoDepositEvents,
			Message: fmt.Sprintf("the oracle attested no deposit of transaction %s for order %s", txHash.Hex(), orderID.Hex())}
	}
	att.Messages = mine
	return att, nil
}

// AttestDepositOf is AttestDepositFor with the transaction and the order named as the engine
// writes them (0x-hex strings), for callers that speak the engine's terms.
func (c *Client) AttestDepositOf(ctx context.Context, chainID uint64, txHash, orderID string) (*DepositAttestation, error) {
	return c.AttestDepositFor(ctx, chainID, common.HexToHash(txHash), common.HexToHash(orderID))
}

// SameHash reports whether h and s name one 32-byte value, s read as common.HexToHash reads it
// (with or without 0x, left-padded): how the engine's strings compare with an attestation's
// fields.
func SameHash(h common.Hash, s string) bool { return h == common.HexToHash(s) }

// SameAddress reports whether a and s name one address, s read as common.HexToAddress reads it.
func SameAddress(a common.Address, s string) bool { return a == common.HexToAddress(s) }

// Attest posts req to the attestation endpoint at path and returns its answer once every
// signature in it recovers to its claimed signer under the returned domain. An answer without
// messages, under an unknown domain or with a signature that does not recover is
// INVALID_RESPONSE.
func Attest[T Message](ctx context.Context, c *Client, path string, req any) (*Attestation[T], error) {
	var att Attestation[T]
	if err := c.post(ctx, path, req, &att); err != nil {
		return nil, err
	}
	if err := VerifyAttestation(&att); err != nil {
		return nil, invalidResponse("%s: %v", path, err)
	}
	return &att, nil
}

// VerifyAttestation checks that att has messages and that each of its signatures recovers to
// its claimed signer under att's domain.
func VerifyAttestation[T Message](att *Attestation[T]) error {
	if len(att.Messages) == 0 {
		return errors.New("attestation has no messages")
	}
	for i, m := range att.Messages {
		if len(m.Signatures) == 0 {
			return fmt.Errorf("message %d has no signature", i)
		}
		digest, err := Digest(att.Domain, m.Data)
		if err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		for _, sig := range m.Signatures {
			got, err := RecoverDigestSigner(digest, sig.Signature)
			if err != nil {
				return fmt.Errorf("message %d: signature of %s: %w", i, sig.Signer.Hex(), err)
			}
			if got != sig.Signer {
				return fmt.Errorf("message %d: signature claims %s but recovers to %s", i, sig.Signer.Hex(), got.Hex())
			}
		}
	}
	return nil
}

// Quorum counts the signers of every message of att that are in allowlist, once each: a
// signer counts only if it signed every message (the spec's aggregation rule 2). Signatures are
// assumed verified (Attest, VerifyAttestation). Callers compare the count with their threshold
// before they rely on the attestation.
func Quorum[T Message](att *Attestation[T], allowlist []common.Address) []common.Address {
	allowed := map[common.Address]bool{}
	for _, a := range allowlist {
		allowed[a] = true
	}
	var out []common.Address
	if len(att.Messages) == 0 {
		return nil
	}
	for _, sig := range att.Messages[0].Signatures {
		s := sig.Signer
		if !allowed[s] || slices.Contains(out, s) {
			continue
		}
		everywhere := true
		for _, m := range att.Messages[1:] {
			if !slices.ContainsFunc(m.Signatures, func(x Signature) bool { return x.Signer == s }) {
				everywhere = false
				break
			}
		}
		if everywhere {
			out = append(out, s)
		}
	}
	return out
}

func invalidResponse(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidResponse, Message: fmt.Sprintf(format, args...)}
}

func (c *Client) post(ctx context.Context, path string, body, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return &Error{Code: CodeClientMisconfigured, Message: fmt.Sprintf("encode %s request: %v", path, err)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+path, bytes.NewReader(payload))
	if err != nil {
		return &Error{Code: CodeClientMisconfigured, Message: fmt.Sprintf("build %s request (is the oracle URL well formed?): %v", path, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		req.Header.Set(HeaderAPIKey, c.apiKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return &Error{Code: CodeNetworkError, Message: err.Error()}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return &Error{Code: CodeNetworkError, Message: fmt.Sprintf("read response: %v", err)}
	}
	if len(raw) > maxResponseBytes {
		// Cut short it would not decode, and it would be INVALID_RESPONSE, which is retried: the
		// same oversized answer, read again on every block. It is final instead.
		return &Error{Code: CodeResponseTooLarge, Message: fmt.Sprintf("%s answered %d with more than %d bytes", path, resp.StatusCode, maxResponseBytes)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &Error{Status: resp.StatusCode}
		if json.Unmarshal(raw, e) != nil || e.Message == "" {
			// Not our body (a proxy's page, say): keep a bounded excerpt for the operator.
			e.Code, e.Message = "", strings.TrimSpace(truncate(string(raw), 200))
			if e.Message == "" {
				e.Message = http.StatusText(resp.StatusCode)
			}
		}
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs >= 0 {
			e.RetryAfter = time.Duration(secs) * time.Second
		}
		return e
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return invalidResponse("decode %s response: %v", path, err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

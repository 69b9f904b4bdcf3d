package oracleapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{baseURL: strings.TrimRight(baseURL, "/"), apiKey: apiKey, hc: hc}
}

// AttestDeposit asks the oracle to attest the Deposit events of txHash on chainID. The returned
// attestation holds only messages about that transaction whose signatures recover to their
// claimed signers; whether those signers are trusted is the caller's decision.
func (c *Client) AttestDeposit(ctx context.Context, chainID uint64, txHash common.Hash) (*DepositAttestation, error) {
	var att DepositAttestation
	req := DepositAttestationRequest{ChainID: chainID, TransactionID: txHash}
	if err := c.post(ctx, PathDepositAttestation, req, &att); err != nil {
		return nil, err
	}
	if len(att.Messages) == 0 {
		return nil, invalidResponse("attestation has no messages")
	}
	if att.Domain != OracleDomain {
		return nil, invalidResponse("attestation domain %+v is not %+v", att.Domain, OracleDomain)
	}
	for i, m := range att.Messages {
		if m.Data.ChainID != chainID || m.Data.TransactionID != txHash {
			return nil, invalidResponse("message %d is about chain %d transaction %s", i, m.Data.ChainID, m.Data.TransactionID.Hex())
		}
		if len(m.Signatures) == 0 {
			return nil, invalidResponse("message %d has no signature", i)
		}
		for _, sig := range m.Signatures {
			got, err := RecoverDepositSigner(m.Data, sig.Signature)
			if err != nil {
				return nil, invalidResponse("message %d: signature of %s: %v", i, sig.Signer.Hex(), err)
			}
			if got != sig.Signer {
				return nil, invalidResponse("message %d: signature claims %s but recovers to %s", i, sig.Signer.Hex(), got.Hex())
			}
		}
	}
	return &att, nil
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
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return &Error{Code: CodeNetworkError, Message: fmt.Sprintf("read response: %v", err)}
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

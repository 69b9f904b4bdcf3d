// Package e2e drives the engine the way a client does: it asks the HTTP API for a quote, sends
// each step's transaction from a wallet key over the chain's JSON-RPC, and polls the status
// endpoint. The integration tests and the load generator share it.
package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/intentd/intentd/quote"
)

// Client talks to one API.
type Client struct {
	BaseURL string
	APIKey  string
	// Bearer, when set, is sent as "Authorization: Bearer <Bearer>" (the admin endpoints).
	Bearer string
	HTTP   *http.Client
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// Do sends a request and decodes a JSON answer into out; it returns the status code.
func (c *Client) Do(ctx context.Context, method, path string, body any, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		if raw, ok := body.([]byte); ok {
			rd = bytes.NewReader(raw)
		} else {
			b, err := json.Marshal(body)
			if err != nil {
				return 0, err
			}
			rd = bytes.NewReader(b)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("content-type", "application/json")
	if c.APIKey != "" {
		req.Header.Set("x-api-key", c.APIKey)
	}
	if c.Bearer != "" {
		req.Header.Set("authorization", "Bearer "+c.Bearer)
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decode %s %s (%d): %w: %s", method, path, resp.StatusCode, err, b)
		}
	}
	return resp.StatusCode, nil
}

// Quote posts a quote request and fails on anything but 200, with the error body.
func (c *Client) Quote(ctx context.Context, body any) (*quote.Response, error) {
	var raw json.RawMessage
	code, err := c.Do(ctx, http.MethodPost, "/quote/v2", body, &raw)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("quote: HTTP %d %s", code, raw)
	}
	var out quote.Response
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Status is the answer of GET /intents/status/v3.
type Status struct {
	Status             string   `json:"status"`
	InTxHashes         []string `json:"inTxHashes"`
	TxHashes           []string `json:"txHashes"`
	UpdatedAt          int64    `json:"updatedAt"`
	OriginChainID      uint64   `json:"originChainId"`
	DestinationChainID uint64   `json:"destinationChainId"`
	FailReason         string   `json:"failReason"`
	RefundFailReason   string   `json:"refundFailReason"`
}

// Status reads a request's status.
func (c *Client) Status(ctx context.Context, requestID string) (*Status, int, error) {
	var s Status
	code, err := c.Do(ctx, http.MethodGet, quote.StatusEndpoint(requestID), nil, &s)
	return &s, code, err
}

// WaitStatus polls until the status is one of want (or terminal), returning every distinct
// status seen in order.
func (c *Client) WaitStatus(ctx context.Context, requestID string, want ...string) (*Status, []string, error) {
	var seen []string
	for {
		s, code, err := c.Status(ctx, requestID)
		if err == nil && code == http.StatusOK {
			if len(seen) == 0 || seen[len(seen)-1] != s.Status {
				seen = append(seen, s.Status)
			}
			for _, w := range want {
				if s.Status == w {
					return s, seen, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, seen, fmt.Errorf("request %s: waiting for %v, saw %v: %w", requestID, want, seen, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Wallet sends step transactions from one key.
type Wallet struct {
	Key  *ecdsa.PrivateKey
	RPCs map[uint64]string // chain id -> JSON-RPC URL
}

// Address is the wallet's address.
func (w *Wallet) Address() common.Address { return crypto.PubkeyToAddress(w.Key.PublicKey) }

// SendTx signs and sends one step transaction and waits for its receipt. A step without To
// creates a contract (Deploy).
func (w *Wallet) SendTx(ctx context.Context, d quote.TxData) (*types.Receipt, error) {
	url, ok := w.RPCs[d.ChainID]
	if !ok {
		return nil, fmt.Errorf("no RPC for chain %d", d.ChainID)
	}
	ec, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, err
	}
	defer ec.Close()
	var to *common.Address
	if d.To != "" {
		a := common.HexToAddress(d.To)
		to = &a
	}
	data, err := hexutil.Decode(d.Data)
	if err != nil {
		return nil, err
	}
	value, ok := new(big.Int).SetString(d.Value, 10)
	if !ok {
		return nil, fmt.Errorf("step value %q", d.Value)
	}
	from := w.Address()
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, err
	}
	gas, err := ec.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Data: data, Value: value})
	if err != nil {
		return nil, fmt.Errorf("estimate step: %w", err)
	}
	tip, err := ec.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, err
	}
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	chainID := new(big.Int).SetUint64(d.ChainID)
	tx, err := types.SignNewTx(w.Key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce,
		GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: gas * 12 / 10,
		To: to, Value: value, Data: data})
	if err != nil {
		return nil, err
	}
	if err := ec.SendTransaction(ctx, tx); err != nil {
		return nil, err
	}
	for {
		r, err := ec.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return r, fmt.Errorf("step tx %s reverted", tx.Hash())
			}
			return r, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Deploy creates a contract on a chain from its compiled bindings' metadata and its packed
// constructor arguments, and returns its address.
func (w *Wallet) Deploy(ctx context.Context, chainID uint64, meta *bind.MetaData, args []byte) (common.Address, error) {
	code := append(common.FromHex(meta.Bin), args...)
	r, err := w.SendTx(ctx, quote.TxData{ChainID: chainID, Data: hexutil.Encode(code), Value: "0"})
	if err != nil {
		return common.Address{}, fmt.Errorf("deploy %s: %w", meta.ID, err)
	}
	return r.ContractAddress, nil
}

// ExecuteSteps sends every transaction step of a quote in order and returns the receipt of
// the last one (the deposit).
func (w *Wallet) ExecuteSteps(ctx context.Context, q *quote.Response) (*types.Receipt, error) {
	var last *types.Receipt
	for _, s := range q.Steps {
		if s.Kind != "transaction" {
			return nil, fmt.Errorf("step %s of kind %s is not supported here", s.ID, s.Kind)
		}
		for _, it := range s.Items {
			r, err := w.SendTx(ctx, it.Data)
			if err != nil {
				return nil, fmt.Errorf("step %s: %w", s.ID, err)
			}
			last = r
		}
	}
	return last, nil
}

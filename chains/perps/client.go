package perps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/httpclient"
	"github.com/intentd/intentd/internal/redact"
)

// requestTimeout bounds one call of the exchange's API.
const requestTimeout = 15 * time.Second

// Client is the family's client of one perps chain: the exchange's HTTP API at the chain
// file's httpRpcUrl (POST /info for balances, transfers and the token list; POST /exchange for
// signed actions).
//
// The exchange has no blocks a client can read: it applies each action at once and for good.
// The client's "block" is a second of the clock (Head is the Unix time in seconds), so that the
// engine's waits, which count blocks, count seconds here; nothing on the exchange is ever
// reorganised (BlockHash is not served).
type Client struct {
	chain    *chains.Chain
	http     *http.Client
	base     string
	now      func() time.Time
	seenHead atomic.Uint64
	mappings NonceMappings // the deposits' orders (funding.go); nil finds none
	nonces   withdrawalNonces
}

var _ interface {
	chains.Client
	chains.HeadReader
	chains.HeadWatcher
	chains.BalanceReader
	chains.GasPricer
	chains.Steps
} = (*Client)(nil)

// VM is the perps family for chains.NewClients; its clients find the order a deposit pays
// through mappings (nil: none, every deposit an orphan).
func VM(mappings NonceMappings) chains.VM {
	return chains.VM{Type: chains.VMTypePerps, Open: func(ch *chains.Chain) (chains.Client, error) {
		c, err := Dial(ch)
		if err != nil {
			return nil, err
		}
		c.mappings = mappings
		return c, nil
	}}
}

// Dial opens a client of ch's exchange.
func Dial(ch *chains.Chain) (*Client, error) {
	if ch.HTTPRPCURL == "" {
		return nil, &chains.Error{Kind: chains.ErrUnavailable, ChainID: ch.ID, Op: "dial", Err: errors.New("the chain has no httpRpcUrl (the exchange's API)")}
	}
	return &Client{chain: ch, http: httpclient.New(requestTimeout), base: strings.TrimRight(ch.HTTPRPCURL, "/"), now: time.Now}, nil
}

// Chain is the registry entry.
func (c *Client) Chain() *chains.Chain { return c.chain }

// headLag is how many seconds behind the clock the head is: a second is a "block" only once
// it is over, so that a scan never passes a second the exchange may still apply transfers in
// (and the two clocks may differ by a little).
const headLag = 2

// Head is the last second that is over, headLag behind the Unix time: the exchange's "block"
// (see Client).
func (c *Client) Head(context.Context) (uint64, error) {
	h := uint64(c.now().Unix()) - headLag
	c.seenHead.Store(h)
	return h, nil
}

// BlockHash is the second's number written as a hash: the exchange reorganises nothing, so a
// second's "hash" never changes (and second 0's names the chain, always the same).
func (c *Client) BlockHash(_ context.Context, number uint64) (string, error) {
	return blockHash(number), nil
}

// SeenHead is the last head read.
func (c *Client) SeenHead() uint64 { return c.seenHead.Load() }

// WaitHead waits for the next second after after.
func (c *Client) WaitHead(ctx context.Context, after uint64) (uint64, error) {
	for {
		h, _ := c.Head(ctx)
		if h > after {
			return h, nil
		}
		next := time.Unix(int64(after)+1, 0)
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(time.Until(next)):
		}
	}
}

// GasPrice is zero: the exchange charges no gas.
func (c *Client) GasPrice(context.Context) (*big.Int, error) { return new(big.Int), nil }

// Balance is BalanceNow: the exchange answers at once.
func (c *Client) Balance(ctx context.Context, currency, account string) (*big.Int, error) {
	return c.BalanceNow(ctx, currency, account)
}

// BalanceNow returns account's balance of currency in its smallest unit: the perps USDC
// (PerpsUSDCAddress) from the perps balance's withdrawable amount, a spot token from the spot
// balances by its token id, a HIP-3 DEX's token from that DEX's balances (the query's "dex").
func (c *Client) BalanceNow(ctx context.Context, currency, account string) (*big.Int, error) {
	cur, ok := c.chain.FindCurrency(currency)
	if !ok {
		return nil, &chains.Error{Kind: chains.ErrNotFound, ChainID: c.chain.ID, Op: "balance", Err: fmt.Errorf("currency %s is not listed", currency)}
	}
	if strings.EqualFold(cur.Address, PerpsUSDCAddress) {
		var st struct {
			Withdrawable string `json:"withdrawable"`
		}
		if err := c.info(ctx, map[string]any{"type": "clearinghouseState", "user": account}, &st); err != nil {
			return nil, err
		}
		return units(c.chain.ID, st.Withdrawable, cur.Decimals)
	}
	id, dex, err := SplitCurrency(cur.Address)
	if err != nil {
		return nil, &chains.Error{Kind: chains.ErrNotFound, ChainID: c.chain.ID, Op: "balance", Err: err}
	}
	var st struct {
		Balances []struct {
			TokenID string `json:"tokenId"`
			Total   string `json:"total"`
		} `json:"balances"`
	}
	q := map[string]any{"type": "spotClearinghouseState", "user": account}
	if dex != "" {
		q["dex"] = dex
	}
	if err := c.info(ctx, q, &st); err != nil {
		return nil, err
	}
	for _, b := range st.Balances {
		if strings.EqualFold(b.TokenID, id) {
			return units(c.chain.ID, b.Total, cur.Decimals)
		}
	}
	return new(big.Int), nil
}

// units reads the exchange's decimal string as an integer of decimals places (ParseAmount:
// strictly, more places than that refused rather than rounded).
func units(chainID uint64, s string, decimals uint8) (*big.Int, error) {
	v, err := ParseAmount(s, decimals)
	if err != nil {
		return nil, &chains.Error{Kind: chains.ErrUnavailable, ChainID: chainID, Op: "read an amount", Err: err}
	}
	return v, nil
}

// info posts one query to /info and decodes the answer into out.
func (c *Client) info(ctx context.Context, q map[string]any, out any) error {
	return c.post(ctx, "/info", q, out)
}

// post sends body to the exchange's path and decodes its JSON answer. Transport failures and
// answers other than 200 are chains.ErrUnavailable, the URL redacted.
func (c *Client) post(ctx context.Context, path string, body, out any) error {
	op := "POST " + path
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(raw))
	if err != nil {
		return &chains.Error{Kind: chains.ErrUnavailable, ChainID: c.chain.ID, Op: op, Err: redact.Error(err)}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return &chains.Error{Kind: chains.ErrUnavailable, ChainID: c.chain.ID, Op: op, Err: redact.Error(err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return &chains.Error{Kind: chains.ErrUnavailable, ChainID: c.chain.ID, Op: op, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		return &chains.Error{Kind: chains.ErrUnavailable, ChainID: c.chain.ID, Op: op, Err: fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, b)}
	}
	if err := json.Unmarshal(b, out); err != nil {
		return &chains.Error{Kind: chains.ErrUnavailable, ChainID: c.chain.ID, Op: op, Err: fmt.Errorf("the answer is not JSON: %w", err)}
	}
	return nil
}

// Ping asks the exchange for its token list: nil when its API answers.
func (c *Client) Ping(ctx context.Context) error {
	var meta map[string]any
	return c.info(ctx, map[string]any{"type": "spotMeta"}, &meta)
}

package perps

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// LedgerEntry is one line of an account's ledger on the exchange (POST /info
// {"type":"ledgerUpdates"}): a transfer the account sent or received. Type is the delta's type
// ("send" for a sendAsset); the other fields are a send's, as the exchange writes them: User
// the sender, addresses 0x hex, Amount and Fee decimal strings (Amount in the token's decimals,
// Fee in perps USDC), Token "NAME:0x<token id>", Nonce the action's nonce.
type LedgerEntry struct {
	Time           time.Time
	Hash           string
	Type           string
	User           string
	Destination    string
	SourceDex      string
	DestinationDex string
	Token          string
	Amount         string
	Fee            string
	Nonce          uint64
}

// ledgerLine is a ledger line on the wire.
type ledgerLine struct {
	Time  int64  `json:"time"`
	Hash  string `json:"hash"`
	Delta struct {
		Type           string          `json:"type"`
		User           string          `json:"user"`
		Destination    string          `json:"destination"`
		SourceDex      string          `json:"sourceDex"`
		DestinationDex string          `json:"destinationDex"`
		Token          string          `json:"token"`
		Amount         string          `json:"amount"`
		Fee            string          `json:"fee"`
		Nonce          json.RawMessage `json:"nonce"`
	} `json:"delta"`
}

// Ledger reads account's ledger from start on (every transfer it sent or received at or after
// start, in the exchange's order). A line whose nonce is not an integer keeps Nonce 0.
func (c *Client) Ledger(ctx context.Context, account string, start time.Time) ([]LedgerEntry, error) {
	var lines []ledgerLine
	q := map[string]any{"type": "ledgerUpdates", "user": strings.ToLower(account), "startTime": max(start.UnixMilli(), 0)}
	if err := c.info(ctx, q, &lines); err != nil {
		return nil, err
	}
	out := make([]LedgerEntry, 0, len(lines))
	for _, l := range lines {
		e := LedgerEntry{Time: time.UnixMilli(l.Time), Hash: l.Hash, Type: l.Delta.Type, User: l.Delta.User,
			Destination: l.Delta.Destination, SourceDex: l.Delta.SourceDex, DestinationDex: l.Delta.DestinationDex,
			Token: l.Delta.Token, Amount: l.Delta.Amount, Fee: l.Delta.Fee}
		_ = json.Unmarshal(l.Delta.Nonce, &e.Nonce)
		out = append(out, e)
	}
	return out, nil
}

// SpotToken is one token of the exchange's spot listing (POST /info {"type":"spotMeta"}).
type SpotToken struct {
	Name        string `json:"name"`
	Index       int    `json:"index"`
	TokenID     string `json:"tokenId"`
	WeiDecimals uint8  `json:"weiDecimals"`
}

// SpotTokens reads the exchange's spot listing.
func (c *Client) SpotTokens(ctx context.Context) ([]SpotToken, error) {
	var meta struct {
		Tokens []SpotToken `json:"tokens"`
	}
	if err := c.info(ctx, map[string]any{"type": "spotMeta"}, &meta); err != nil {
		return nil, err
	}
	return meta.Tokens, nil
}

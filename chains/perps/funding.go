package perps

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// NonceMappings finds the order a transfer to the depository pays: the nonce its sender bound
// to an order through POST /authorize (store.Store.PerpsNonceMapping). A transfer names no order
// of its own; without a binding it is an orphan.
type NonceMappings interface {
	// OrderOfNonce returns the order id depositor bound nonce to; intent.ErrNotFound when none.
	OrderOfNonce(ctx context.Context, depositor string, nonce uint64) (string, error)
}

// scanBack is how far back the first scan of the exchange reaches: its "blocks" are seconds
// since 1970, so the scanner starts an hour before the head it first reads (ScanStart) rather
// than at block 0. A deposit older than that when the engine first runs is found by its hint
// (POST /transactions/index, DepositsInTx).
const scanBack = 3600

var _ interface {
	chains.Funding
	chains.TxFactsReader
	chains.ScanStarter
} = (*Client)(nil)

// ScanStart is where a first scan of the exchange begins: an hour before head.
func (c *Client) ScanStart(head uint64) uint64 {
	if head < scanBack {
		return 0
	}
	return head - scanBack
}

// Deposits are the transfers to the depository account in the seconds from..to: each a
// deposit of its sender, naming the order its nonce was bound to (NonceMappings), or no order
// (an orphan) when it was bound to none.
func (c *Client) Deposits(ctx context.Context, from, to uint64) ([]intent.Deposit, error) {
	if c.chain.Depository == "" {
		return nil, nil
	}
	entries, err := c.Ledger(ctx, c.chain.Depository, time.Unix(int64(from), 0))
	if err != nil {
		return nil, err
	}
	var out []intent.Deposit
	for _, e := range entries {
		if sec := uint64(e.Time.Unix()); sec < from || sec > to {
			continue
		}
		d, ok, err := c.depositOf(ctx, e)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// DepositsInTx is the deposit transfer tx made, if it paid the depository.
func (c *Client) DepositsInTx(ctx context.Context, tx string) ([]intent.Deposit, error) {
	e, err := c.transfer(ctx, tx)
	if err != nil {
		return nil, err
	}
	d, ok, err := c.depositOf(ctx, *e)
	if err != nil || !ok {
		return nil, err
	}
	return []intent.Deposit{d}, nil
}

// transfer finds the depository's transfer tx; chains.ErrNotFound when it has none.
func (c *Client) transfer(ctx context.Context, tx string) (*LedgerEntry, error) {
	if c.chain.Depository == "" {
		return nil, &chains.Error{Kind: chains.ErrNotFound, ChainID: c.chain.ID, Op: "transfer", Err: errors.New("the chain has no depository")}
	}
	entries, err := c.Ledger(ctx, c.chain.Depository, time.Unix(0, 0))
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if strings.EqualFold(entries[i].Hash, tx) {
			return &entries[i], nil
		}
	}
	return nil, &chains.Error{Kind: chains.ErrNotFound, ChainID: c.chain.ID, Op: "transfer", Err: fmt.Errorf("no transfer %s to the depository", tx)}
}

// depositOf reads a ledger entry as a deposit: a send to the depository of a listed currency.
func (c *Client) depositOf(ctx context.Context, e LedgerEntry) (intent.Deposit, bool, error) {
	dep := c.chain.Depository
	if e.Type != "send" || !strings.EqualFold(e.Destination, dep) || strings.EqualFold(e.User, dep) {
		return intent.Deposit{}, false, nil
	}
	cur, ok := c.currencyOf(e.Token, e.DestinationDex)
	if !ok {
		return intent.Deposit{}, false, nil
	}
	amount, err := ParseAmount(e.Amount, cur.Decimals)
	if err != nil {
		return intent.Deposit{}, false, nil // not an amount the engine can read: left alone
	}
	depositor, _ := Notation().CanonicalAddress(e.User)
	sec := uint64(e.Time.Unix())
	d := intent.Deposit{ChainID: c.chain.ID, TxHash: strings.ToLower(e.Hash), BlockNumber: sec, BlockHash: blockHash(sec),
		Depositor: depositor, Currency: cur.Address, Amount: amount.String(), Family: string(chains.VMTypePerps)}
	if c.mappings != nil {
		order, err := c.mappings.OrderOfNonce(ctx, depositor, e.Nonce)
		switch {
		case err == nil:
			d.OrderID = order
		case !errors.Is(err, intent.ErrNotFound):
			return intent.Deposit{}, false, err
		}
	}
	if d.OrderID == "" {
		// A transfer no nonce mapping names: an orphan, under an order id no quote has.
		d.OrderID = "0x" + strings.Repeat("0", 64)
	}
	return d, true, nil
}

// currencyOf is the listed currency a transfer moved into dex: the perps USDC into the perps
// balance (""), a spot token by its token id into "spot", a token into a HIP-3 DEX as its token
// id followed by the DEX's name in hex (DexCurrency).
func (c *Client) currencyOf(token, dex string) (chains.Currency, bool) {
	name, id, ok := strings.Cut(token, ":")
	if !ok {
		return chains.Currency{}, false
	}
	if dex == "" {
		if name == "USDC" {
			return c.chain.FindCurrency(PerpsUSDCAddress)
		}
		return chains.Currency{}, false
	}
	if tid, rest, err := SplitCurrency(id); err != nil || rest != "" || !strings.EqualFold(tid, id) {
		return chains.Currency{}, false // a token is named by its 16-byte id alone
	}
	want := DexCurrency(id, dex)
	for _, cur := range c.chain.ERC20 {
		if strings.EqualFold(cur.Address, want) {
			return cur, true
		}
	}
	return chains.Currency{}, false
}

// blockHash is the "hash" of second n: the exchange reorganises nothing, so a second's hash is
// its number, written as a hash, and never changes.
func blockHash(n uint64) string { return fmt.Sprintf("0x%064x", n) }

// TxBlock is the second the depository's transfer tx was applied in.
func (c *Client) TxBlock(ctx context.Context, tx string) (chains.Block, error) {
	e, err := c.transfer(ctx, tx)
	if err != nil {
		return chains.Block{}, err
	}
	n := uint64(e.Time.Unix())
	return chains.Block{Number: n, Hash: blockHash(n)}, nil
}

// TxKnown reports whether the depository has transfer tx.
func (c *Client) TxKnown(ctx context.Context, tx string) (bool, error) {
	_, err := c.transfer(ctx, tx)
	if errors.Is(err, chains.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// TxFacts are a depository transfer's second, time and fee (the exchange's fee to its sender).
func (c *Client) TxFacts(ctx context.Context, tx string, _ bool) (*chains.TxFacts, error) {
	e, err := c.transfer(ctx, tx)
	if err != nil {
		return nil, err
	}
	return &chains.TxFacts{Block: uint64(e.Time.Unix()), Fee: feeOf(*e), Timestamp: e.Time.Unix()}, nil
}

// feeOf is the exchange's fee on a transfer (the activation fee), in perps USDC's smallest unit;
// zero when none or unreadable.
func feeOf(e LedgerEntry) *big.Int {
	if e.Fee != "" {
		if f, err := ParseAmount(e.Fee, PerpsUSDCDecimals); err == nil {
			return f
		}
	}
	return new(big.Int)
}

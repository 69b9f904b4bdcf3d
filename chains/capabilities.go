package chains

import (
	"context"
	"math/big"

	"github.com/intentd/intentd/intent"
)

// The capabilities a chain client may have, in the engine's own terms (no family's types). Each
// is small so that a caller depends on what it uses and a new chain family implements what it
// can; callers that need several embed them in an interface of their own and ask Capability for
// it. Every error is classified (see errors.go): ErrUnavailable, ErrNotFound, *RevertError,
// ErrInsufficientFunds, ErrNonce.

// HeadReader reads how far a chain is.
type HeadReader interface {
	// Head returns the latest block number.
	Head(ctx context.Context) (uint64, error)
	// BlockHash returns the canonical hash of the block at number, as the chain writes it (0x-hex
	// on EVM chains); ErrNotFound when the chain has none there.
	BlockHash(ctx context.Context, number uint64) (string, error)
}

// HeadWatcher wakes waits on a chain's new blocks: one poll of the head per chain and process,
// whatever the number of waits.
type HeadWatcher interface {
	// SeenHead returns the head last read, 0 before the first read: the after of a WaitHead
	// that should return on the next block.
	SeenHead() uint64
	// WaitHead blocks until the head is above after and returns it, or returns ctx's error.
	WaitHead(ctx context.Context, after uint64) (uint64, error)
}

// DeferredHeads is a HeadWatcher that lets the fills of a new block go first. A block's arrival
// wakes three kinds of work at once: the deposits it confirms (attestation, then the fill that
// the engine's latency is measured by), the deposits it includes (routed to their workflows),
// and the transactions it includes (each request's success). Started together they share the
// machine, and on a busy chain the fills waited for the rest (at 50 intents a second on two
// cores, the engine's share of a fill went from about 230 to 420 ms at p99, BENCHMARKS.md).
// WaitHeadDeferred returns a short window after the head was seen, so that work no fill waits
// for starts once the block's fills are on their way.
type DeferredHeads interface {
	HeadWatcher
	// WaitHeadDeferred is WaitHead returning once the new head's fills' window has passed; when
	// the head is above after already (a caller that a block overtook while it worked), once
	// what is left of the head's window has passed: at once when the head came before the
	// window's length ago.
	WaitHeadDeferred(ctx context.Context, after uint64) (uint64, error)
}

// ScanStarter is a chain whose blocks are not numbered from its genesis (the perps exchange,
// whose "block" is a second of the clock): the scanner of a chain it has never scanned starts
// at ScanStart(head) rather than at block 0.
type ScanStarter interface {
	ScanStart(head uint64) uint64
}

// DepositReader reads the project's depository on a chain, in the engine's one shape of a
// deposit.
type DepositReader interface {
	// Deposits returns the deposits in blocks [from, to].
	Deposits(ctx context.Context, from, to uint64) ([]intent.Deposit, error)
	// DepositsInTx returns the deposits of one transaction, named as the chain writes its ids
	// (0x-hex on EVM chains); ErrNotFound while it is not mined.
	DepositsInTx(ctx context.Context, tx string) ([]intent.Deposit, error)
}

// BalanceReader reads account balances, addresses as the chain's notation writes them; the
// native currency is the chain's native currency's address (the zero address on EVM chains).
type BalanceReader interface {
	// Balance is cached for a few seconds: for display, never to decide anything.
	Balance(ctx context.Context, currency, account string) (*big.Int, error)
	// BalanceNow reads the chain, for decisions such as whether the solver can pay a fill.
	BalanceNow(ctx context.Context, currency, account string) (*big.Int, error)
}

// GasPricer gives the gas price quotes are priced with, served from a refresh-ahead cache.
type GasPricer interface {
	GasPrice(ctx context.Context) (*big.Int, error)
}

// The capabilities of a family's own transactions (for EVM chains: evm.TxSender, evm.TxReader,
// contract calls) are the family's, in its own types; a caller that needs them is the family's
// code. The ones above, Steps (steps.go) and PriceFeedReader (feeds.go) are in the engine's
// terms, so any family can have them.

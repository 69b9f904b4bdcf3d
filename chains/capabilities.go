package chains

import (
	"context"
	"math/big"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/intentd/intentd/intent"
)

// The capabilities a chain client may have. Each is small so that a caller depends on what it
// uses and a new chain family implements what it can; callers that need several embed them in
// an interface of their own and ask Capability for it. Every error is classified (see
// errors.go): ErrUnavailable, ErrNotFound, *RevertError, ErrInsufficientFunds, ErrNonce.

// HeadReader reads how far a chain is.
type HeadReader interface {
	// Head returns the latest block number.
	Head(ctx context.Context) (uint64, error)
	// BlockHash returns the canonical hash of the block at number; ErrNotFound when the chain
	// has none there.
	BlockHash(ctx context.Context, number uint64) (common.Hash, error)
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

// DepositReader reads the project's depository on a chain, in the engine's one shape of a
// deposit.
type DepositReader interface {
	// Deposits returns the deposits in blocks [from, to].
	Deposits(ctx context.Context, from, to uint64) ([]intent.Deposit, error)
	// DepositsInTx returns the deposits of one transaction, named as the chain writes its ids
	// (0x-hex on EVM chains); ErrNotFound while it is not mined.
	DepositsInTx(ctx context.Context, tx string) ([]intent.Deposit, error)
}

// The capabilities below speak in EVM terms (go-ethereum's types); a chain family with other
// transactions brings capabilities of its own.

// BalanceReader reads account balances; the zero address is the native currency.
type BalanceReader interface {
	// Balance is cached for a few seconds: for display, never to decide anything.
	Balance(ctx context.Context, currency, account common.Address) (*big.Int, error)
	// BalanceNow reads the chain, for decisions such as whether the solver can pay a fill.
	BalanceNow(ctx context.Context, currency, account common.Address) (*big.Int, error)
}

// AllowanceReader reads ERC-20 allowances, uncached.
type AllowanceReader interface {
	Allowance(ctx context.Context, token, owner, spender common.Address) (*big.Int, error)
}

// GasPricer gives the gas price quotes are priced with, served from a refresh-ahead cache.
type GasPricer interface {
	GasPrice(ctx context.Context) (*big.Int, error)
}

// FillSimulator checks that the solver could pay a recipient in a currency on the chain.
type FillSimulator interface {
	// SimulateFill returns a *RevertError when the fill would revert (a blocked recipient, a
	// recipient contract refusing the asset), ErrUnavailable when the chain could not be asked.
	// Outcomes are reused for a few seconds.
	SimulateFill(ctx context.Context, solver, currency, recipient common.Address) error
}

// ContractCaller runs a read-only call against the latest block.
type ContractCaller interface {
	CallContract(ctx context.Context, msg ethereum.CallMsg) ([]byte, error)
}

// TxReader reads transactions and the blocks they are in.
type TxReader interface {
	// Receipt returns a transaction's receipt; ErrNotFound while it is not mined.
	Receipt(ctx context.Context, tx common.Hash) (*types.Receipt, error)
	// TransactionKnown reports whether the node knows the transaction, pending or mined.
	TransactionKnown(ctx context.Context, tx common.Hash) (bool, error)
	// HeaderByHash returns a block's header; ErrNotFound when the node has no such block.
	HeaderByHash(ctx context.Context, hash common.Hash) (*types.Header, error)
}

// TxSender is what signing and sending a transaction takes: the inputs of the signature
// (nonce, gas, fees) and the broadcast.
type TxSender interface {
	// NonceAt returns the account's nonce at the latest block.
	NonceAt(ctx context.Context, account common.Address) (uint64, error)
	// EstimateGas returns the gas msg would use; a *RevertError when it would revert,
	// ErrInsufficientFunds when the sender cannot pay its value.
	EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error)
	// SuggestFees returns the node's tip and its latest base fee.
	SuggestFees(ctx context.Context) (Fees, error)
	// SendTransaction broadcasts a signed transaction. Besides ErrUnavailable it fails with
	// ErrAlreadyKnown, ErrNonceTooLow, ErrReplacementUnderpriced or ErrInsufficientFunds.
	SendTransaction(ctx context.Context, tx *types.Transaction) error
}

// PendingNonceReader reads the nonce an account's next transaction would take at the node: its
// nonce at the latest block plus the transactions of the account the node's pool holds ready to
// be mined, one after the other. Below the nonces a sender has handed out, it points at a gap.
type PendingNonceReader interface {
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
}

// TxBatchSender broadcasts several signed transactions in one request (a JSON-RPC batch), which
// the node takes in the order given: the transactions of one sender, sorted by nonce, reach its
// pool each next in line rather than ahead of a gap. The error at i is txs[i]'s, as
// SendTransaction's; a failure of the request is every transaction's.
type TxBatchSender interface {
	SendTransactions(ctx context.Context, txs []*types.Transaction) []error
}

// Fees is an EIP-1559 fee suggestion: the priority fee the node suggests and the base fee of
// its latest block.
type Fees struct {
	Tip     *big.Int
	BaseFee *big.Int
}

// FeeCap is the fee cap a transaction paying tip is signed with: twice the base fee plus the
// tip, so that it stays includable while the base fee rises for a few full blocks.
func (f Fees) FeeCap(tip *big.Int) *big.Int {
	return new(big.Int).Add(new(big.Int).Mul(f.BaseFee, big.NewInt(2)), tip)
}

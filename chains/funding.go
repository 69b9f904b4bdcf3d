package chains

import (
	"context"
	"math/big"
)

// Funding is a chain family's side of where a request's money comes from, in the domain's
// terms: the deposits that fund requests (intent.Deposit), and what the chain shows of a funding
// transaction while the engine waits for it to be final. A deposit names its request: the
// depository strategy of the EVM family by the order id its event carries (Deposit.OrderID, which
// the door looks up to the request), a strategy that knows the request itself (a per-request
// deposit address, a funding the engine relays) by the request's id
// (intent.DepositRefundRequestID names a deposit no order takes). The scanner reads the
// deposits of block ranges and a client's hint those of one transaction; the attestation's wait
// reads the chain through it to tell a deposit a reorg removed from one waiting for its
// confirmations. chains/evm implements it over the depository's Deposit events; a family asks
// Capability[Funding] (or Families.Funding) for it.
type Funding interface {
	DepositReader
	HeadReader
	// TxBlock returns the block a transaction is included in; ErrNotFound while it is in none.
	TxBlock(ctx context.Context, tx string) (Block, error)
	// TxKnown reports whether the node knows the transaction at all, waiting in its pool or
	// included.
	TxKnown(ctx context.Context, tx string) (bool, error)
}

// Block names a block: its number, and its hash as the chain writes it.
type Block struct {
	Number uint64
	Hash   string
}

// TxFactsReader reads what an included transaction cost and when it was included: what the
// read model records of a request's transactions beside their ids.
type TxFactsReader interface {
	// TxFacts returns the block a transaction is in and the fee it paid, and, withTime, the
	// block's timestamp; ErrNotFound while it is in none. When the block's time cannot be read,
	// it returns the facts read before it with the error.
	TxFacts(ctx context.Context, tx string, withTime bool) (*TxFacts, error)
}

// TxFacts are an included transaction's facts.
type TxFacts struct {
	Block uint64
	// Fee is what the transaction paid, in the smallest unit of the chain's native currency;
	// nil when the chain did not say.
	Fee *big.Int
	// Timestamp is the block's time (Unix seconds); 0 when not read.
	Timestamp int64
}

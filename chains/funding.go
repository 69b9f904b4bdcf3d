package chains

import (
	"context"
	"fmt"
	"math/big"

	"github.com/intentd/intentd/intent"
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

// The deposit-address strategy (intent.FundingDepositAddress, docs/deposit-addresses.md): a
// user pays a plain transfer to a per-quote address, which the family watches for
// (DepositAddressReader) and sweeps into the chain's depository under the address's order id
// (Sweeper); the sweep's Deposit event is the request's deposit from then on.

// DepositAddressReader finds the payments arriving at a set of deposit addresses, block range by
// block range, without reading each address: the scanner asks it for the ranges whose
// depository deposits it routes, under the same cursor.
type DepositAddressReader interface {
	// DepositAddressTransfers returns the payments in blocks [from, to] to any address of
	// watched, of the chain's listed currencies, in the chain's order (block, transaction,
	// log): each names its address's id (AddressID), the sender, the currency and the amount; a
	// native payment has LogIndex intent.NativeTransferLogIndex. What the family cannot see (for
	// EVM chains: native value moved to an address by a contract's call) is not returned.
	DepositAddressTransfers(ctx context.Context, from, to uint64, watched WatchedAddresses) ([]intent.DepositAddressTransfer, error)
}

// WatchedAddresses are the deposit addresses a watch follows. The scanner's set grows as
// addresses are issued while a family reads through it, so it is an interface, safe for
// concurrent use, rather than a map.
type WatchedAddresses interface {
	// Watched returns the depositAddressId of address, written as the store keeps addresses
	// (the family's notation, in lower case); ok is false when it is not watched.
	Watched(address string) (id string, ok bool)
	// Len is how many addresses are watched.
	Len() int
}

// AddressSet is a fixed set of watched addresses: address (as the store keeps it) to id.
type AddressSet map[string]string

// Watched returns the id of a watched address.
func (s AddressSet) Watched(address string) (string, bool) {
	id, ok := s[address]
	return id, ok
}

// Len is the number of addresses in s.
func (s AddressSet) Len() int { return len(s) }

// Sweeper moves what arrived at a request's deposit address into the chain's depository, as
// a deposit of the address's order in its depositor's name. It is a capability of a family's
// payout, whose solver signs the sweep like a fill: once per request (kind intent.TxKindSweep),
// kept before it is broadcast, so a retry or a restarted worker sends the kept sweep again and
// never signs a second one; Payout.Watch waits for its inclusion. Families.Sweeper finds it.
type Sweeper interface {
	// Sweep signs the request's sweep of s once, keeps it and broadcasts it; a retry finds it
	// kept and broadcasts it again. An address that is not the one of s's order and depositor
	// is refused (ErrPayoutRefused): an address's funds are swept into no other order.
	Sweep(ctx context.Context, s Sweep) (*PayoutSent, error)
	// SweptDeposit returns the depository's deposit that the request's sweep tx made of s (its
	// address, currency and amount), once tx is included. Only the solver sweeps, one payment
	// per request, so no other transaction makes it. ErrNotFound when tx moved nothing (it
	// reverted, or a cancellation was mined in its place).
	SweptDeposit(ctx context.Context, s Sweep, tx string) (*intent.Deposit, error)
}

// Sweep names one sweep of a deposit address.
type Sweep struct {
	RequestID string
	ChainID   uint64
	// Address is the deposit address; OrderID and Depositor its salt, under which the sweep
	// deposits.
	Address   string
	OrderID   string
	Depositor string
	// Currency is what is swept (the chain's native currency's address for native), Amount how
	// much, in base units: the payment's own amount, never the address's balance, so a payment
	// not swept yet stays at the address for its own request's sweep.
	Currency string
	Amount   string
}

// Sweeper returns the sweeper of the family a request's funding names for one of its chains
// (its payout's, as Payout): ErrUnsupported when the family's payout does not sweep.
func (f *Families) Sweeper(family VMType, chainID uint64) (Sweeper, error) {
	p, err := f.Payout(family, chainID)
	if err != nil {
		return nil, err
	}
	s, ok := p.(Sweeper)
	if !ok {
		return nil, fmt.Errorf("%w: chain %d's family sweeps no deposit addresses", ErrUnsupported, chainID)
	}
	return s, nil
}

// The relayed strategy (intent.FundingRelayed, docs/gasless.md): the engine sends the user's
// own signed call, the relayer paying its gas; the call deposits into the depository with the
// order id, and that deposit funds the request as any other.

// Relayer sends a gasless request's call. It is a capability of a family's payout, signed with
// the relayer's key (never the solver's) like a fill: once per request (kind
// intent.TxKindRelay), kept before it is broadcast, so a retry or a restarted worker sends the
// kept transaction again and never signs a second one; Payout.Watch waits for its inclusion and
// Payout.Replace replaces it (same nonce, higher fees, then a cancellation). Families.Relayer
// finds it.
type Relayer interface {
	// Relay signs the request's call once, keeps it and broadcasts it; a retry finds it kept and
	// broadcasts it again. A call that would revert is refused before anything is kept
	// (*RevertError); Check's error stops it before the signing.
	Relay(ctx context.Context, r Relay) (*PayoutSent, error)
	// RelayerAddress is the account that signs and pays for relayed calls on a chain.
	RelayerAddress(chainID uint64) (string, error)
}

// Relay is one gasless request's call.
type Relay struct {
	RequestID string
	Call      intent.RelayCall
	// Ceiling, when set, is the most gas the transaction may use, and what it is signed with; an
	// estimate above it is an *OverCeilingError. Unset: the estimate with the family's margin.
	Ceiling uint64
	// Check, when set, runs once before the first signing with the most the transaction may
	// cost in the chain's native currency's smallest unit (gas × fee cap): the sponsor's
	// reservation.
	Check func(ctx context.Context, maxFee *big.Int) error
}

// Relayer returns the relayer of a chain's family (ErrUnsupported when its payout relays
// nothing in this process).
func (f *Families) Relayer(chainID uint64) (Relayer, error) {
	p, err := f.Payout("", chainID)
	if err != nil {
		return nil, err
	}
	r, ok := p.(Relayer)
	if !ok {
		return nil, fmt.Errorf("%w: chain %d relays no calls", ErrUnsupported, chainID)
	}
	return r, nil
}

package intent

import (
	"encoding/json"
	"errors"
	"time"
)

// FundingDepositAddress: the user pays a plain transfer to a per-quote counterfactual address
// (DepositAddress), which the engine sees, sweeps into the origin chain's depository under the
// order id, and runs (docs/deposit-addresses.md).
const FundingDepositAddress FundingStrategy = "depositAddress"

// DepositAddressType is strict (bound to its quote: one deposit of the quoted currency and
// amount) or open (reusable on the same route: every deposit is quoted afresh).
type DepositAddressType string

const (
	DepositAddressStrict DepositAddressType = "strict"
	DepositAddressOpen   DepositAddressType = "open"
)

// DepositAddress is one issued deposit address, as stored with its quote.
type DepositAddress struct {
	// ID is the depositAddressId of the quote's response.
	ID string
	// Address is the counterfactual address, DepositAddressFactory.computeDepositAddress(
	// OrderID, Depositor): the same on every chain of the family.
	Address string
	// ChainID is the chain it was issued for (the quote's origin).
	ChainID uint64
	Type    DepositAddressType
	// OrderID and Depositor are the address's salt: every sweep of the address deposits into
	// the depository under OrderID, in Depositor's name, whatever request it funds.
	OrderID   string
	Depositor string
	// RequestID is the quote-time request.
	RequestID string
	// Currency is the quoted origin currency.
	Currency string
	// RefundTo is where a deposit that cannot be filled is refunded; empty: no automatic refund
	// (open without refundTo). The zero address refunds the sender of the deposit.
	RefundTo string
	// RecoveryAddress is the integrator's address for a withdrawal when the engine can neither
	// fill nor refund; it is never paid a refund.
	RecoveryAddress string
	// Route is what a requote for a later deposit needs: the validated quote request.
	Route     json.RawMessage
	CreatedAt time.Time
	// DisabledAt is set once the address is disabled: transfers to it are no longer watched.
	DisabledAt *time.Time
}

// DepositAddressTransfer is one payment seen arriving at a deposit address: an ERC-20 Transfer
// log, or a native transfer (LogIndex -1).
type DepositAddressTransfer struct {
	ChainID     uint64
	TxHash      string
	LogIndex    int
	AddressID   string
	BlockNumber uint64
	Sender      string
	Currency    string
	Amount      string
	// RequestID is the request the transfer funds, once routed; SweepTx the sweep that moved
	// it into the depository, once sent.
	RequestID string
	SweepTx   string
	SeenAt    time.Time
}

// ExecutionDepositAddress is what a request funded by a deposit address knows of it.
type ExecutionDepositAddress struct {
	ID      string             `json:"id"`
	Address string             `json:"address"`
	Type    DepositAddressType `json:"type"`
	// OrderID and Depositor are the address's salt, under which its sweeps deposit.
	OrderID   string `json:"orderId"`
	Depositor string `json:"depositor"`
}

// NativeTransferLogIndex is the LogIndex of a native payment in DepositAddressTransfer: it is
// no log.
const NativeTransferLogIndex = -1

// ArrivalDeposit is the payment t, seen arriving at the address a, as the deposit the request
// it funds (requestID) receives: named by RequestID, under the address's order, with the sender
// as its depositor, found by family. It is not in the depository yet: the request's workflow
// sweeps it there first, and the sweep's Deposit event is the deposit the oracle attests. A
// native payment is no log and takes LogIndex 0: a transaction whose value lands at a deposit
// address makes no log at all (the address's code emits none, and a call to it with data
// reverts), so 0 names no other payment of that transaction.
func (t DepositAddressTransfer) ArrivalDeposit(a DepositAddress, requestID, family string) Deposit {
	var logIndex uint
	if t.LogIndex > 0 {
		logIndex = uint(t.LogIndex)
	}
	return Deposit{ChainID: t.ChainID, TxHash: t.TxHash, LogIndex: logIndex, BlockNumber: t.BlockNumber, OrderID: a.OrderID,
		Depositor: t.Sender, Currency: t.Currency, Amount: t.Amount, RequestID: requestID, Family: family}
}

// ErrReindexTooRecent is returned when the address was reindexed on the chain within the
// cooldown (429).
var ErrReindexTooRecent = errors.New("the deposit address was reindexed too recently")

// ErrReindexInvalid is a reindex the request cannot be read as (400): an unknown or disabled
// target chain, one of another family or without deposit addresses, a currency not listed there.
var ErrReindexInvalid = errors.New("invalid reindex")

// DepositAddressReindex is a reindex's request (POST /transactions/deposit-address/reindex,
// deposits.Reindexer): the address, the chain it was issued for (0: whichever it was
// issued for), the chain to read (0: ChainID) and one currency to read (empty: every listed one).
type DepositAddressReindex struct {
	ChainID       uint64
	Address       string
	TargetChainID uint64
	Currency      string
}

// ReindexedCurrency is a currency whose balance a reindex found not accounted for and routed.
type ReindexedCurrency struct {
	Currency string
	Symbol   string
	// Balance is the address's balance read, in base units.
	Balance string
}

// DepositAddressReindexed is what a reindex did: the currencies it routed a payment of, those it
// read and those whose balance could not be read or whose payment could not be routed.
type DepositAddressReindexed struct {
	Triggered []ReindexedCurrency
	Checked   []string
	Failed    []string
}

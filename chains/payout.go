package chains

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/intentd/intentd/intent"
)

// Payout is a chain family's side of what the engine pays: a fill of an order to its recipient
// out of the solver's own balance, or a refund of a deposit out of the chain's depository, in
// the domain's terms. Each payment of a request and kind (intent.TxKind) is made at most once:
// the family signs it once, keeps it (with what its signing needs: for EVM chains a nonce
// allocated in Postgres, evm.NonceStore) before it is broadcast, and a retry sends what was
// kept again. How a payment is sent, waited for and replaced while it is not included is the
// family's own policy (EVM: group-committed signings, broadcast rounds in nonce order,
// same-nonce fee bumps, then a cancellation). The activities reach a chain's payout through
// Families.Payout and build no transaction of their own.
//
// Errors are classified for the activity to map to the request's failure: *RevertError (the
// payment would revert), ErrInsufficientFunds (the solver cannot pay), *intent.InventoryShortfall
// (a fill the solver's balances do not cover once its payments not yet included are counted),
// *OverCeilingError (a refund that needs more than its ceiling), ErrPayoutRefused (a payment the
// family refuses for good, for an operator to decide), ErrStoredCorrupt, intent.ErrVoided (a
// replacement of a payment signed for a chain since reset), and ErrUnavailable for anything
// that may work when asked again. An error the payment's Check returns is returned as it is.
type Payout interface {
	// Pay signs the request's payment of p.Kind once, keeps it and broadcasts it; a retry finds
	// the payment kept and broadcasts it again, so a request is never paid twice by the engine.
	// A refusal made before anything is kept (a revert, a shortfall, Check's error) is returned
	// only when nothing is kept: otherwise the kept payment is broadcast instead.
	Pay(ctx context.Context, p Payment) (*PayoutSent, error)
	// Stored returns the request's kept payment of kind, intent.ErrNotFound when there is none.
	Stored(ctx context.Context, requestID string, kind intent.TxKind) (*PayoutSent, error)
	// Watch returns a watch on the inclusion of the request's payment of w.Kind, whose Check a
	// wait calls once per new block of the chain.
	Watch(w WatchPayment) InclusionWatch
	// Replace replaces the payment's attempt r.After, which is not being included, by the
	// family's replacement policy, signed once and kept before it is broadcast like the first.
	Replace(ctx context.Context, r Replacement) (*Replaced, error)
}

// Payment is one payment of a request on one chain.
type Payment struct {
	RequestID string
	// Kind is fill, refund or manual_refund: one payment per request and kind. A fill pays out
	// of the solver's own balance (checked against its inventory); a refund pays a deposit back
	// out of the chain's depository.
	Kind    intent.TxKind
	ChainID uint64
	// Currency (as the chain's notation writes it), Recipient and Amount (in the currency's
	// smallest unit) are what is paid.
	Currency  string
	Recipient string
	Amount    *big.Int
	// OrderID is the order a fill pays (0x and 64 hex digits).
	OrderID string
	// Deposit, for a refund, names the deposit it pays back: its once-only payout id is the
	// deposit's withdrawal id (oracleapi.WithdrawalIDOf); nil pays under the request's own
	// (intent.RefundID), as refunds did first. A request pays under one id whatever later runs
	// ask (the family keeps the first one signed).
	Deposit *DepositRef
	// Ceiling, when set, is the most the payment may use of the chain's execution units (EVM:
	// gas), and what it is signed with whatever the estimate; unset, the family's estimate with
	// its margin.
	Ceiling uint64
	// Check, when set, runs once before the first signing with the most the payment may cost in
	// the chain's native currency's smallest unit (EVM: gas × fee cap); its error stops the
	// payment before anything is signed.
	Check func(ctx context.Context, maxFee *big.Int) error
}

// DepositRef names one deposit on a chain: its transaction, as the chain writes it, and its
// log index.
type DepositRef struct {
	Tx       string
	LogIndex uint64
}

// PayoutSent is a payment as kept and broadcast.
type PayoutSent struct {
	// TxHash is the latest attempt's transaction id, as the chain writes it.
	TxHash string
}

// WatchPayment names the payment a wait watches.
type WatchPayment struct {
	RequestID string
	Kind      intent.TxKind
	ChainID   uint64
	// TxHash is the attempt the caller has just broadcast.
	TxHash string
}

// InclusionWatch is the state of one wait for a payment's inclusion.
type InclusionWatch interface {
	// Check looks once whether an attempt of the payment is included and returns it, nil when
	// none is yet; while none is, the family sends its latest attempt again from time to time
	// (a node may have dropped it). Every error is one the wait retries.
	Check(ctx context.Context) (*Included, error)
}

// Included is a payment's attempt that the chain included. It is the result of the inclusion
// wait (activities.TxIncluded) and part of recorded histories: its field names stay.
type Included struct {
	Block     uint64
	Timestamp int64
	Success   bool
	Fee       string
	// Hash is the attempt that was included: the first signing or one of its replacements.
	Hash string
	// Cancel is set when the included attempt is a cancellation, which paid nothing.
	Cancel bool
	// Attempts are the ids of every attempt broadcast (the first signing and its replacements,
	// in order), the included one too; nil when not known.
	Attempts []string
	// Call is what the included attempt called, set when it reverted (data.failedCallData).
	Call *intent.CallData
	// Voided is set when nothing was included and nothing can be: every
	// attempt was signed for a chain that has since been reset, the engine sends none of them
	// again and the node knows none of them. Attempts lists them; the other fields are empty.
	Voided bool `json:",omitempty"`
}

// Replacement names the attempt of a payment to replace and the policy's numbers.
type Replacement struct {
	RequestID string
	Kind      intent.TxKind
	ChainID   uint64
	// After is the attempt being replaced (0 the first signing); the replacement is After+1. A
	// retry finds the replacement kept and broadcasts it again.
	After int
	// MaxBumps is how many replacements may still pay (FILL_MAX_BUMPS); what the family does
	// past them is its own (EVM: a cancellation, which uses the nonce and pays nothing).
	MaxBumps int
}

// Replaced is a replacement as kept and broadcast.
type Replaced struct {
	TxHash  string
	Attempt int
	// Final is set when this replacement is the last one: the payment is not replaced again,
	// and the wait goes on until one of its attempts is included (EVM: the cancellation).
	Final bool
}

// ErrPayoutRefused is wrapped by a payment the family refuses for good before anything is
// signed, for an operator to decide (a refund already paid under the request's other payout
// id, a kept refund that does not decode).
var ErrPayoutRefused = errors.New("payment refused")

// ErrStoredCorrupt means a kept payment does not decode: it cannot be sent again.
var ErrStoredCorrupt = errors.New("stored transaction does not decode")

// OverCeilingError refuses a payment whose estimate exceeds its Ceiling; nothing is signed.
type OverCeilingError struct {
	Estimate, Ceiling uint64
}

func (e *OverCeilingError) Error() string {
	return fmt.Sprintf("the payment needs %d, more than its ceiling of %d", e.Estimate, e.Ceiling)
}

// Families holds the payout of every chain family the worker pays with, by VM type, beside the
// chains' clients: what the activities ask for a chain's family by the chain's id, so that the
// family is data and the activities name none.
type Families struct {
	clients *Clients
	payouts map[VMType]Payout
}

// NewFamilies serves the chains of cs with the given payouts (none in a process that pays
// nothing).
func NewFamilies(cs *Clients, payouts map[VMType]Payout) *Families {
	return &Families{clients: cs, payouts: payouts}
}

// Clients returns the chains' clients.
func (f *Families) Clients() *Clients { return f.clients }

// Registry returns the chains' registry.
func (f *Families) Registry() *Registry { return f.clients.Registry() }

// Payout returns the payout of the family a payment names (the request's data: its execution's
// PayoutFamily, its deposit's Family) for one of that family's chains: ErrUnknownChain for a
// chain not in the registry, ErrUnsupported when the chain is of another family or its family
// pays nothing in this process. An empty family is the chain's own (payments recorded before
// they named one).
func (f *Families) Payout(family VMType, chainID uint64) (Payout, error) {
	ch, err := f.clients.Registry().Get(chainID)
	if err != nil {
		return nil, err
	}
	if family != "" && family != ch.VMType {
		return nil, fmt.Errorf("%w: the payment names family %q, but chain %d is of VM type %q", ErrUnsupported, family, chainID, ch.VMType)
	}
	p, ok := f.payouts[ch.VMType]
	if !ok || p == nil {
		return nil, fmt.Errorf("%w: chain %d is of VM type %q, which pays nothing here", ErrUnsupported, chainID, ch.VMType)
	}
	return p, nil
}

// Payouts returns the payout of every family that pays in this process, in VM type order.
func (f *Families) Payouts() []Payout {
	types := make([]VMType, 0, len(f.payouts))
	for t, p := range f.payouts {
		if p != nil {
			types = append(types, t)
		}
	}
	slices.Sort(types)
	out := make([]Payout, len(types))
	for i, t := range types {
		out[i] = f.payouts[t]
	}
	return out
}

// Funding returns the chain's funding reader (Capability[Funding]).
func (f *Families) Funding(chainID uint64) (Funding, error) {
	return Capability[Funding](f.clients, chainID)
}

// Logger is what a family logs through while it works for an activity: the activity's logger,
// passed in the context (WithLogger), so that the lines keep the activity's fields.
type Logger interface {
	Debug(msg string, keyvals ...any)
	Info(msg string, keyvals ...any)
	Warn(msg string, keyvals ...any)
	Error(msg string, keyvals ...any)
}

type loggerKey struct{}

// WithLogger returns ctx carrying l for the family's lines.
func WithLogger(ctx context.Context, l Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// LoggerFrom returns the logger ctx carries, one that drops everything when none.
func LoggerFrom(ctx context.Context) Logger {
	if l, ok := ctx.Value(loggerKey{}).(Logger); ok {
		return l
	}
	return nopLogger{}
}

type nopLogger struct{}

func (nopLogger) Debug(string, ...any) {}
func (nopLogger) Info(string, ...any)  {}
func (nopLogger) Warn(string, ...any)  {}
func (nopLogger) Error(string, ...any) {}

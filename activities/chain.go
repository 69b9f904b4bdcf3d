package activities

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/groupcommit"
	"github.com/intentd/intentd/internal/sharedread"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/screening"
)

// ChainActivities act on chains with the solver's key.
type ChainActivities struct {
	Chains    *chains.Clients
	Store     SolverTxs
	SolverKey *ecdsa.PrivateKey
	// Prices values ERC-20 refunds against their gas; optional.
	Prices prices.Source
	// MaxFill is the solver's capacity: the most it pays in one fill, by currency symbol, in
	// whole units (SOLVER_MAX_FILL); a currency not listed has no limit.
	MaxFill map[string]decimal.Decimal
	// Screening is the blocklist a fill's recipient and depositor and a refund's recipient are
	// checked against before they are signed (screening.go); nil screens nothing.
	Screening *screening.List
	// RefundGas is the gas ceiling refunds are signed with, per currency (REFUND_GAS_LIMITS).
	RefundGas RefundGas

	// reads are the reads the signings share (solverreads.go).
	reads sharedread.Group
	// broadcasts sends the first broadcasts of each chain and sender in rounds, in nonce order
	// (broadcasts.go).
	broadcasts groupcommit.Keyed[senderKey, *broadcastAsk]
}

// solverChain is what the solver's transactions need of a chain's client.
type solverChain interface {
	chains.Client
	evm.TxSender
	evm.TxReader
	chains.BalanceReader
	chains.HeadWatcher
}

// chain returns the client of a chain the solver sends transactions on.
func (a *ChainActivities) chain(chainID uint64) (solverChain, error) {
	return chains.Capability[solverChain](a.Chains, chainID)
}

// solverAddress is the address fills are paid from. (Not exported: every exported method of an
// activity struct is registered as an activity.)
func (a *ChainActivities) solverAddress() common.Address {
	return crypto.PubkeyToAddress(a.SolverKey.PublicKey)
}

// FillInput names the payment the solver makes for an order.
type FillInput struct {
	RequestID string
	ChainID   uint64
	OrderID   string
	Currency  string
	Recipient string
	Amount    string
	// Depositor paid the deposit the fill answers: screened with the recipient before the fill is
	// signed. Empty in inputs recorded before it was passed.
	Depositor string `json:",omitempty"`
}

// FillSubmitted is the fill transaction as signed, stored and broadcast.
type FillSubmitted struct {
	TxHash string
	Nonce  uint64
}

// SubmitFill signs the fill once (stored in Postgres with a nonce allocated there) and
// broadcasts it. A retry finds the stored transaction and broadcasts the same bytes again, so
// the solver can never pay an order twice; the output settler also refuses a second fill.
// Before the first signing it checks what would make the fill fail, each a non-retryable
// failure the workflow refunds: the fill is over the solver's capacity per fill
// (SOLVER_CAPACITY_EXCEEDED); the solver holds too little (SOLVER_BALANCE_TOO_LOW), counting as
// spent what its fills and refunds signed but not yet mined on the chain commit, so a burst
// larger than the inventory signs only the fills it can pay and refunds the rest without
// allocating them a nonce; the recipient or the depositor is on the screening blocklist
// (BLOCKED_WALLET, screenFill); the token refuses the recipient
// (DESTINATION_TOKEN_TRANSFER_REJECTED); or the fill would revert for another reason
// (EXECUTION_REVERTED).
func (a *ChainActivities) SubmitFill(ctx context.Context, in FillInput) (*FillSubmitted, error) {
	c, err := a.chain(in.ChainID)
	if err != nil {
		return nil, err
	}
	amount, ok := new(big.Int).SetString(in.Amount, 10)
	if !ok || amount.Sign() <= 0 {
		return nil, failure(intent.FailReasonUnknown, "invalid fill amount "+in.Amount, nil)
	}
	currency := common.HexToAddress(in.Currency)
	data, value := evm.FillCalldata(common.HexToHash(in.OrderID), currency, common.HexToAddress(in.Recipient), amount)
	stored, err := a.send(ctx, c, solverCall{requestID: in.RequestID, kind: intent.TxKindFill, to: common.HexToAddress(c.Chain().OutputSettler),
		data: data, value: value, payCurrency: currency, payAmount: amount,
		preflight: func(ctx context.Context, gas uint64, feeCap *big.Int) error {
			if err := a.screenFill(c.Chain(), in); err != nil {
				return err
			}
			return a.checkCapacity(c.Chain(), currency, amount)
		},
		onShortfall: func(s *intent.InventoryShortfall) error {
			return failure(intent.FailReasonSolverBalanceTooLow, "the solver cannot pay the fill and its gas: "+s.Error(), s)
		},
		onInsufficientFunds: func(err error) error {
			return failure(intent.FailReasonSolverBalanceTooLow, "the solver cannot pay the fill and its gas: "+err.Error(), err)
		},
		onRevert: func(r *chains.RevertError) error {
			if r.Blocked {
				return failure(intent.FailReasonDestinationTokenTransferRejected, "the token refuses the recipient: "+r.Reason, r)
			}
			if r.Name == "AlreadyFilled" {
				// Someone else paid the order on the destination: the recipient has its output, so
				// the deposit must not also be refunded.
				return failure(intent.FailReasonOrderAlreadyFilled, "the order is already filled on the destination: "+r.Reason, r)
			}
			if r.Name == "InsufficientBalance" {
				return failure(intent.FailReasonSolverBalanceTooLow, "the solver's balance is too low: "+r.Reason, r)
			}
			return failure(intent.FailReasonExecutionReverted, "the fill would revert: "+r.Reason, r)
		}})
	if err != nil {
		return nil, err
	}
	return &FillSubmitted{TxHash: stored.Hash, Nonce: stored.Nonce}, nil
}

// checkCapacity fails with SOLVER_CAPACITY_EXCEEDED when the fill pays more than the solver's
// configured capacity for the currency. It is checked when the fill is signed, so a lowered
// capacity also holds for orders quoted before the change.
func (a *ChainActivities) checkCapacity(ch *chains.Chain, currency common.Address, amount *big.Int) error {
	cur, ok := ch.FindCurrency(currency.Hex())
	if !ok {
		return nil
	}
	limit, ok := a.MaxFill[strings.ToUpper(cur.Symbol)]
	if !ok {
		return nil
	}
	if decimal.NewFromBigInt(amount, -int32(cur.Decimals)).GreaterThan(limit) {
		return failure(intent.FailReasonSolverCapacityExceeded, fmt.Sprintf("the fill of %s %s is over the solver's capacity of %s %s per fill",
			intent.FormatUnits(amount, cur.Decimals), cur.Symbol, limit, cur.Symbol), nil)
	}
	return nil
}

// AwaitTxInput names a broadcast transaction to wait for.
type AwaitTxInput struct {
	RequestID string
	Kind      intent.TxKind
	ChainID   uint64
	TxHash    string
	// Voidable, set by the runs that take the money-safety steps (changeLean 5), has the wait end
	// with Voided when every attempt was voided by the chain's reset and the node knows none of
	// them; without it such a wait goes on (sending nothing) until it runs out of time.
	Voidable bool `json:",omitempty"`
}

// TxIncluded is a mined transaction.
type TxIncluded struct {
	Block     uint64
	Timestamp int64
	Success   bool
	Fee       string
	// Hash is the attempt that was mined: the first signing or one of its replacements.
	Hash string
	// Cancel is set when the mined attempt is a cancellation, which paid nothing.
	Cancel bool
	// Attempts are the hashes of every attempt broadcast (the first signing and its
	// replacements, in order), the mined one included; nil when not known.
	Attempts []string
	// Call is what the mined attempt called, set when it reverted (data.failedCallData).
	Call *intent.CallData
	// Voided is set, for a Voidable wait, when nothing was mined and nothing can be: every attempt
	// was signed for a chain that has since been reset, the engine sends none of them again and
	// the node knows none of them. Attempts lists them; the other fields are empty.
	Voided bool `json:",omitempty"`
}

// rebroadcastEvery is how often AwaitTx sends the latest attempt again while none is mined (a
// node may have dropped it from its pool). The first resend comes rebroadcastEvery after the
// wait starts: every caller waits on an attempt it has just broadcast.
const rebroadcastEvery = 5 * time.Second

// AwaitTx returns once one attempt of the request's transaction of that kind is mined (all
// attempts share a nonce, so at most one can be). It is a wait inside one activity (see await):
// it looks for the attempts' receipts on every new block of the chain, heartbeating between, and
// while none is mined sends the latest attempt again every rebroadcastEvery (never a voided one).
// A chain or database it cannot reach is tried again inside the wait. A Voidable wait whose
// attempts were all voided by the chain's reset ends with Voided once the node knows none of them. The workflow's schedule-to-close
// timeout bounds the wait; when it passes the activity times out, as before.
func (a *ChainActivities) AwaitTx(ctx context.Context, in AwaitTxInput) (*TxIncluded, error) {
	c, err := a.chain(in.ChainID)
	if err != nil {
		return nil, err
	}
	var (
		attempts []intent.SolverTx
		sent     = time.Now() // the caller has just broadcast the latest attempt
		out      *TxIncluded
	)
	// deferred: a block's receipts are read once its fills' window has passed, so that a mined
	// fill's success does not hold up the fills that block's confirmations start.
	spec := waitSpec{what: "inclusion", chain: c, heartbeat: func() { heartbeat(ctx, nil) }, deferred: true,
		attrs: []any{"requestId", in.RequestID, "kind", in.Kind, "chainId", in.ChainID, "tx", in.TxHash}}
	started := time.Now()
	checks, err := await(ctx, spec, func(ctx context.Context) (bool, error) {
		resend := time.Since(sent) >= rebroadcastEvery
		if attempts == nil || resend {
			got, err := a.Store.SolverTxAttempts(ctx, in.RequestID, in.Kind)
			if err != nil {
				return false, unavailable(fmt.Errorf("stored attempts: %w", err))
			}
			if len(got) == 0 {
				got = []intent.SolverTx{{Hash: in.TxHash}}
			}
			attempts = got
		}
		inc, err := minedAttempt(ctx, c, attempts)
		if err != nil {
			return false, unavailable(err)
		}
		if inc != nil {
			out = inc
			return true, nil
		}
		if in.Voidable && allVoided(attempts) {
			// Looked at once per resend period, when the attempts are read again: rare, and never
			// on a chain that was not reset.
			known, err := anyKnown(ctx, c, attempts)
			if err != nil {
				return false, unavailable(err)
			}
			if !known {
				out = &TxIncluded{Voided: true}
				for _, a := range attempts {
					out.Attempts = append(out.Attempts, a.Hash)
				}
				return true, nil
			}
		}
		if resend {
			sent = time.Now()
			if latest := attempts[len(attempts)-1]; latest.Raw != nil && !latest.Voided {
				var tx types.Transaction
				if tx.UnmarshalBinary(latest.Raw) == nil {
					if err := sendTx(ctx, c, &tx); err != nil {
						logger(ctx).Debug("re-broadcast failed", with(spec.attrs, "attempt", latest.Attempt, "error", err)...)
					}
				}
			}
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	logger(ctx).Info("transaction mined", with(spec.attrs, "mined", out.Hash, "block", out.Block, "success", out.Success,
		"checks", checks, "waited", time.Since(started).Round(time.Millisecond))...)
	return out, nil
}

// allVoided reports whether every attempt was voided by its chain's reset (intent.SolverTx.Voided).
func allVoided(attempts []intent.SolverTx) bool {
	for _, a := range attempts {
		if !a.Voided {
			return false
		}
	}
	return len(attempts) > 0
}

// anyKnown reports whether the node knows one of the attempts, pending in its pool or mined: a
// voided transaction it still holds may yet be mined, so its request keeps waiting for it.
func anyKnown(ctx context.Context, c evm.TxReader, attempts []intent.SolverTx) (bool, error) {
	for _, a := range attempts {
		known, err := c.TransactionKnown(ctx, common.HexToHash(a.Hash))
		if err != nil || known {
			return known, err
		}
	}
	return false, nil
}

// minedAttempt returns the attempt that is mined, nil when none is.
func minedAttempt(ctx context.Context, c evm.TxReader, attempts []intent.SolverTx) (*TxIncluded, error) {
	for _, at := range attempts {
		r, err := c.Receipt(ctx, common.HexToHash(at.Hash))
		if errors.Is(err, chains.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out := &TxIncluded{Block: r.BlockNumber.Uint64(), Success: r.Status == types.ReceiptStatusSuccessful,
			Hash: at.Hash, Cancel: at.Cancel}
		for _, a := range attempts {
			out.Attempts = append(out.Attempts, a.Hash)
		}
		if !out.Success {
			out.Call = callOf(at)
		}
		if r.EffectiveGasPrice != nil {
			out.Fee = new(big.Int).Mul(r.EffectiveGasPrice, new(big.Int).SetUint64(r.GasUsed)).String()
		}
		if h, err := c.HeaderByHash(ctx, r.BlockHash); err == nil {
			out.Timestamp = int64(h.Time)
		}
		return out, nil
	}
	return nil, nil
}

// callOf decodes what a stored transaction calls; nil when its bytes are not kept.
func callOf(at intent.SolverTx) *intent.CallData {
	var tx types.Transaction
	if at.Raw == nil || tx.UnmarshalBinary(at.Raw) != nil {
		return nil
	}
	c := &intent.CallData{From: at.From, Data: hexutil.Encode(tx.Data()), Value: tx.Value().String()}
	if tx.To() != nil {
		c.To = tx.To().Hex()
	}
	if from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), &tx); err == nil {
		c.From = from.Hex()
	}
	return c
}

// StoredTxInput names a request's solver transaction of one kind.
type StoredTxInput struct {
	RequestID string
	Kind      intent.TxKind
}

// StoredTx says whether the transaction was ever signed and stored, and its latest attempt.
type StoredTx struct {
	Found bool
	Hash  string
	Nonce uint64
}

// StoredSolverTx looks up a request's stored transaction of one kind.
func (a *ChainActivities) StoredSolverTx(ctx context.Context, in StoredTxInput) (*StoredTx, error) {
	t, err := a.Store.SolverTx(ctx, in.RequestID, in.Kind)
	if errors.Is(err, intent.ErrNotFound) {
		return &StoredTx{}, nil
	}
	if err != nil {
		return nil, err
	}
	return &StoredTx{Found: true, Hash: t.Hash, Nonce: t.Nonce}, nil
}

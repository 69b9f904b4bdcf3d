package activities

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/shopspring/decimal"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// RefundInput names a refund: what was deposited, where, and who gets it back.
type RefundInput struct {
	RequestID string
	// Kind is "refund" for the workflow's own refund and "manual_refund" for one an operator
	// asked for; each is stored and sent at most once, and both pay under the request's one
	// payout id, so the depository refuses a second refund whichever kind comes second.
	Kind    intent.TxKind
	ChainID uint64
	// Family is the family that pays (the execution's PayoutFamily for a fill, the deposit's
	// Family for a refund); empty in inputs recorded before payments named it: the chain's own.
	Family    chains.VMType `json:",omitempty"`
	Currency  string
	Recipient string
	Amount    string
	// DepositTx and DepositLogIndex name the deposit the refund returns: the refund pays under
	// its withdrawal id, keccak256(abi.encode(chainId, depository, transactionId, logIndex))
	// (oracleapi.WithdrawalIDOf), the id the oracle's withdrawal authorizations name, so that an
	// engine refund and a withdrawal of the same deposit spend one once-only flag in the
	// depository and the oracle refuses to authorize a refunded deposit's withdrawal
	// (ALREADY_WITHDRAWN). A refund that names no deposit is refused before anything is signed.
	DepositTx       string
	DepositLogIndex uint
}

// RefundSubmitted is the refund transaction as signed, stored and broadcast.
type RefundSubmitted struct {
	TxHash string
}

// refundFailure is the non-retryable error for a refund the workflow cannot make itself; its
// type is the refundFailReason.
func refundFailure(reason intent.RefundFailReason, msg string, cause error, details ...any) error {
	return temporal.NewNonRetryableApplicationError(msg, string(reason), cause, details...)
}

// RefundUnpriced is the detail of an AMOUNT_TOO_LOW_TO_REFUND failure for a refund that could
// not be priced (no price for its currency, or the chain's native currency, now): not known to
// be worth less than its gas, so the workflow keeps the request for an operator.
const RefundUnpriced = "unpriced"

// RefundGas is the gas a refund is signed with: a fixed ceiling per currency, never what the
// chain estimates. A token's transfer may cost any gas it likes, and the solver pays it: a
// refund whose estimate exceeds its ceiling is not signed, and whether a refund is worth making
// is judged against its ceiling. A listed currency's own ceiling is its refundGas in the chain
// file (chains.Currency.RefundGas); these are the ceilings of the others (REFUND_GAS_LIMITS).
type RefundGas struct {
	// Native and ERC20 are the ceilings of the chains' native currencies and of their ERC-20
	// currencies; ERC20 is also the ceiling of an operator's refund of an unlisted token.
	Native, ERC20 uint64
}

// Refund gas ceilings by default (REFUND_GAS_LIMITS), for a chain with Ethereum mainnet's gas
// schedule: a native refund from the depository to an account that never held anything uses
// about 60,000 gas there, a refund of USDC or USDT under 100,000. A chain that prices storage
// otherwise sets refundGas on its currencies (the devnet's schedule charges several times as
// much for a new account or storage slot: configs/chains.dev.json).
const (
	DefaultRefundGasNative uint64 = 100_000
	DefaultRefundGasERC20  uint64 = 150_000
)

// Of is the refund gas ceiling of currency on the chain named in reg (an unlisted currency's,
// or an unknown chain's, the ERC-20 ceiling): deposits.Scanner.RefundGas.
func (g RefundGas) Of(reg *chains.Registry, chainID uint64, currency string) uint64 {
	if ch, err := reg.Get(chainID); err == nil {
		cur, ok := ch.FindCurrency(currency)
		return g.ceiling(cur, ok)
	}
	return g.ceiling(chains.Currency{}, false)
}

// ceiling is the refund gas of cur (listed or not).
func (g RefundGas) ceiling(cur chains.Currency, listed bool) uint64 {
	switch {
	case listed && cur.RefundGas > 0:
		return cur.RefundGas
	case listed && cur.IsNative():
		return cmp.Or(g.Native, DefaultRefundGasNative)
	}
	return cmp.Or(g.ERC20, DefaultRefundGasERC20)
}

// SubmitRefund has the chain's family pay a deposit back out of the depository under the
// request's once-only payout id, signed once, stored and broadcast like a fill, with its
// currency's gas ceiling (RefundGas). Before the first signing it refuses, without retry: an
// automatic refund worth no more than its gas at the ceiling, or that cannot be priced
// (AMOUNT_TOO_LOW_TO_REFUND; an operator's refund is the operator's decision and is not
// priced); a refund whose estimate exceeds the ceiling, or of a deposit already refunded under
// the request's other payout id (MANUAL_REFUND_REQUIRED); a recipient the token blocks
// (REFUND_RECIPIENT_IS_BLOCKED); any other refund the chain would revert, such as a recipient
// contract that refuses the native asset (MANUAL_REFUND_REQUIRED).
func (a *ChainActivities) SubmitRefund(ctx context.Context, in RefundInput) (*RefundSubmitted, error) {
	ctx, p, ch, err := a.payout(ctx, in.Family, in.ChainID)
	if err != nil {
		return nil, err
	}
	amount, ok := new(big.Int).SetString(in.Amount, 10)
	if !ok || amount.Sign() <= 0 {
		return nil, refundFailure(intent.RefundFailReasonManualRefundRequired, "invalid refund amount "+in.Amount, nil)
	}
	if in.DepositTx == "" {
		return nil, refundFailure(intent.RefundFailReasonManualRefundRequired, "a refund names the deposit it returns", nil)
	}
	if in.Recipient == "" || ch.Notation().IsZeroAddress(in.Recipient) {
		// Nobody to pay (a deposit address's payer unknown, a zero depositor): never burned.
		return nil, refundFailure(intent.RefundFailReasonManualRefundRequired, "a refund to the zero address is never sent", nil)
	}
	cur, listed := ch.FindCurrency(in.Currency)
	gas := a.RefundGas.ceiling(cur, listed)
	pay := chains.Payment{RequestID: in.RequestID, Kind: in.Kind, ChainID: in.ChainID, Currency: in.Currency, Recipient: in.Recipient,
		Amount: amount, Ceiling: gas, Deposit: &chains.DepositRef{Tx: in.DepositTx, LogIndex: uint64(in.DepositLogIndex)},
		Check: func(ctx context.Context, maxFee *big.Int) error {
			// A recipient on the screening blocklist, an operator's too: REFUND_RECIPIENT_IS_BLOCKED.
			if err := a.screenRefund(ch, in.Recipient); err != nil {
				return err
			}
			if in.Kind == intent.TxKindManualRefund {
				return nil // an operator refunds knowingly: the refund is not priced
			}
			return a.checkRefundWorthIt(ctx, ch, cur, listed, amount, maxFee)
		}}
	sent, err := p.Pay(ctx, pay)
	if err != nil {
		return nil, refundFailureOf(err)
	}
	return &RefundSubmitted{TxHash: sent.TxHash}, nil
}

// refundFailureOf maps a refund's refusal by its chain's family to the workflow's non-retryable
// refund failure; anything else is retried.
func refundFailureOf(err error) error {
	var (
		app   *temporal.ApplicationError
		r     *chains.RevertError
		over  *chains.OverCeilingError
		large *chains.TxTooLargeError
	)
	switch {
	case errors.As(err, &app):
		return err // the checks before signing decided
	case errors.As(err, &large):
		return failure(intent.FailReasonTransactionTooLarge, "the refund's transaction cannot be sent: "+large.Error(), large)
	case errors.As(err, &over):
		return refundFailure(intent.RefundFailReasonManualRefundRequired, fmt.Sprintf(
			"the refund needs %d gas, more than its ceiling of %d (REFUND_GAS_LIMITS)", over.Estimate, over.Ceiling), nil)
	case errors.As(err, &r):
		if r.Blocked {
			return refundFailure(intent.RefundFailReasonRefundRecipientIsBlocked, "the token refuses the refund recipient: "+r.Reason, r)
		}
		return refundFailure(intent.RefundFailReasonManualRefundRequired, "the refund would revert: "+r.Reason, r)
	case errors.Is(err, chains.ErrPayoutRefused):
		return refundFailure(intent.RefundFailReasonManualRefundRequired, err.Error(), nil)
	case errors.Is(err, chains.ErrStoredCorrupt):
		return failure(intent.FailReasonUnknown, "stored transaction does not decode", err)
	}
	return err
}

// checkRefundWorthIt fails with AMOUNT_TOO_LOW_TO_REFUND when the refund's cost (its gas
// ceiling at the fee cap it is signed with: the payment's most, chains.Payment.Check) costs at least what it would return. A native refund is its
// amount; a listed ERC-20 is valued through the price source, in the native currency. A refund
// that cannot be valued (an unlisted currency, no price now) is not made either: refunding
// something of unknown worth could cost the solver more than it returns, without limit when
// anyone can deposit. Its failure carries the RefundUnpriced detail.
func (a *ChainActivities) checkRefundWorthIt(ctx context.Context, ch *chains.Chain, cur chains.Currency, listed bool, amount *big.Int,
	cost *big.Int) error {
	value := amount
	if !listed || !cur.IsNative() {
		var why string
		var err1, err2 error
		var tokenUSD, nativeUSD decimal.Decimal
		switch {
		case !listed:
			why = "its currency is not listed for the chain"
		case a.Prices == nil:
			why = "no price source"
		default:
			tokenUSD, err1 = a.Prices.USDPrice(ctx, strings.ToUpper(cur.Symbol))
			nativeUSD, err2 = a.Prices.USDPrice(ctx, strings.ToUpper(ch.Currency.Symbol))
			if err1 != nil || err2 != nil || nativeUSD.Sign() <= 0 || tokenUSD.Sign() <= 0 {
				why = fmt.Sprintf("no price for %s or %s (%v)", cur.Symbol, ch.Currency.Symbol, errors.Join(err1, err2))
			}
		}
		if why != "" {
			activity.GetLogger(ctx).Warn("refund not made: it cannot be valued", "chainId", ch.ID, "currency", cur.Symbol, "why", why)
			return refundFailure(intent.RefundFailReasonAmountTooLowToRefund,
				"the refund cannot be valued against its gas: "+why, nil, RefundUnpriced)
		}
		// amount (token base units) in native base units, rounded down.
		v := decimal.NewFromBigInt(amount, -int32(cur.Decimals)).Mul(tokenUSD).Div(nativeUSD).
			Shift(int32(ch.Currency.Decimals)).Floor()
		value = v.BigInt()
	}
	if value.Cmp(cost) <= 0 {
		return refundFailure(intent.RefundFailReasonAmountTooLowToRefund,
			fmt.Sprintf("the refund returns %s and costs up to %s in gas (native base units)", value, cost), nil)
	}
	return nil
}

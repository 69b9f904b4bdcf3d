package activities

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/intent"
)

// RefundInput names a refund: what was deposited, where, and who gets it back.
type RefundInput struct {
	RequestID string
	// Kind is "refund" for the workflow's own refund and "manual_refund" for one an operator
	// asked for; each is stored and sent at most once, and both pay under the request's one
	// RefundID, so the depository refuses a second refund whichever kind comes second.
	Kind      intent.TxKind
	ChainID   uint64
	Currency  string
	Recipient string
	Amount    string
}

// RefundSubmitted is the refund transaction as signed, stored and broadcast.
type RefundSubmitted struct {
	TxHash string
}

// refundFailure is the non-retryable error for a refund the workflow cannot make itself; its
// type is the refundFailReason.
func refundFailure(reason intent.RefundFailReason, msg string, cause error) error {
	return temporal.NewNonRetryableApplicationError(msg, string(reason), cause)
}

// SubmitRefund pays a deposit back out of the depository (Depository.withdraw under the
// request's RefundID), signed once, stored and broadcast like a fill. Before the first
// signing it refuses, without retry: a refund worth no more than its own gas
// (AMOUNT_TOO_LOW_TO_REFUND); a recipient the token blocks (REFUND_RECIPIENT_IS_BLOCKED); any
// other refund the chain would revert, such as a recipient contract that refuses the native
// asset (MANUAL_REFUND_REQUIRED).
func (a *ChainActivities) SubmitRefund(ctx context.Context, in RefundInput) (*RefundSubmitted, error) {
	c, err := a.chain(in.ChainID)
	if err != nil {
		return nil, err
	}
	amount, ok := new(big.Int).SetString(in.Amount, 10)
	if !ok || amount.Sign() <= 0 {
		return nil, refundFailure(intent.RefundFailReasonManualRefundRequired, "invalid refund amount "+in.Amount, nil)
	}
	currency := common.HexToAddress(in.Currency)
	data := evm.DepositoryABI.PackWithdraw(intent.RefundID(in.RequestID), currency, common.HexToAddress(in.Recipient), amount)
	// The depository pays the refund: it commits the solver's gas only (payAmount nil), which
	// fills signed after it count as in flight until it is mined.
	stored, err := a.send(ctx, c, solverCall{requestID: in.RequestID, kind: in.Kind, to: common.HexToAddress(c.Chain().Depository),
		data: data, value: new(big.Int),
		preflight: func(ctx context.Context, gas uint64, feeCap *big.Int) error {
			// A recipient on the screening blocklist, an operator's too: REFUND_RECIPIENT_IS_BLOCKED.
			if err := a.screenRefund(c.Chain(), in.Recipient); err != nil {
				return err
			}
			return a.checkRefundWorthIt(ctx, c.Chain(), currency, amount, gas, feeCap)
		},
		onRevert: func(r *chains.RevertError) error {
			if r.Blocked {
				return refundFailure(intent.RefundFailReasonRefundRecipientIsBlocked, "the token refuses the refund recipient: "+r.Reason, r)
			}
			return refundFailure(intent.RefundFailReasonManualRefundRequired, "the refund would revert: "+r.Reason, r)
		}})
	if err != nil {
		return nil, err
	}
	return &RefundSubmitted{TxHash: stored.Hash}, nil
}

// checkRefundWorthIt fails with AMOUNT_TOO_LOW_TO_REFUND when the refund's gas costs at least
// what it would return. An ERC-20 refund is valued through the price source; when no price can
// be read the refund goes ahead (refunding at a loss is better than holding a user's funds).
func (a *ChainActivities) checkRefundWorthIt(ctx context.Context, ch *chains.Chain, currency common.Address, amount *big.Int,
	gas uint64, feeCap *big.Int) error {
	cost := new(big.Int).Mul(new(big.Int).SetUint64(gas), feeCap)
	value := amount
	if currency != (common.Address{}) {
		cur, ok := ch.FindCurrency(currency.Hex())
		if !ok || a.Prices == nil {
			return nil
		}
		tokenUSD, err1 := a.Prices.USDPrice(ctx, strings.ToUpper(cur.Symbol))
		nativeUSD, err2 := a.Prices.USDPrice(ctx, strings.ToUpper(ch.Currency.Symbol))
		if err1 != nil || err2 != nil || nativeUSD.Sign() <= 0 {
			activity.GetLogger(ctx).Warn("refund not valued: no price", "currency", cur.Symbol, "error", fmt.Sprint(err1, err2))
			return nil
		}
		// amount (token base units) in native base units, rounded down.
		v := decimal.NewFromBigInt(amount, -int32(cur.Decimals)).Mul(tokenUSD).Div(nativeUSD).
			Shift(int32(ch.Currency.Decimals)).Floor()
		value = v.BigInt()
	}
	if value.Cmp(cost) <= 0 {
		return refundFailure(intent.RefundFailReasonAmountTooLowToRefund,
			fmt.Sprintf("the refund returns %s and costs %s in gas (native base units)", value, cost), nil)
	}
	return nil
}

package activities

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/shopspring/decimal"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// RefundInput names a refund: what was deposited, where, and who gets it back.
type RefundInput struct {
	RequestID string
	// Kind is "refund" for the workflow's own refund and "manual_refund" for one an operator
	// asked for; each is stored and sent at most once, and both pay under the request's one
	// payout id, so the depository refuses a second refund whichever kind comes second.
	Kind      intent.TxKind
	ChainID   uint64
	Currency  string
	Recipient string
	Amount    string
	// Payout names the once-only id the refund pays under (PayoutDeposit, with the deposit's
	// transaction and log); "" is the request's RefundID, which runs before changeLean 5 pay
	// under. The run chooses it, so a request pays under one id whatever is deployed later.
	Payout          PayoutScheme `json:",omitempty"`
	DepositTx       string       `json:",omitempty"`
	DepositLogIndex uint         `json:",omitempty"`
}

// PayoutScheme names how a refund's once-only payout id is made.
type PayoutScheme string

// PayoutDeposit is the deposit's withdrawal id, keccak256(abi.encode(chainId, depository,
// transactionId, logIndex)) (oracleapi.WithdrawalIDOf): the id the oracle's withdrawal
// authorizations name, so that an engine refund and a withdrawal of the same deposit spend one
// once-only flag in the depository and the oracle refuses to authorize a refunded deposit's
// withdrawal (ALREADY_WITHDRAWN).
const PayoutDeposit PayoutScheme = "deposit"

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

// SubmitRefund pays a deposit back out of the depository (Depository.withdraw under the
// request's payout id), signed once, stored and broadcast like a fill, with its currency's gas
// ceiling (RefundGas). Before the first signing it refuses, without retry: an automatic refund
// worth no more than its gas at the ceiling, or that cannot be priced
// (AMOUNT_TOO_LOW_TO_REFUND; an operator's refund is the operator's decision and is not
// priced); a refund whose estimate exceeds the ceiling, or of a deposit already refunded under
// the request's other payout id (MANUAL_REFUND_REQUIRED); a recipient the token blocks
// (REFUND_RECIPIENT_IS_BLOCKED); any other refund the chain would revert, such as a recipient
// contract that refuses the native asset (MANUAL_REFUND_REQUIRED).
func (a *ChainActivities) SubmitRefund(ctx context.Context, in RefundInput) (*RefundSubmitted, error) {
	c, err := a.chain(in.ChainID)
	if err != nil {
		return nil, err
	}
	amount, ok := new(big.Int).SetString(in.Amount, 10)
	if !ok || amount.Sign() <= 0 {
		return nil, refundFailure(intent.RefundFailReasonManualRefundRequired, "invalid refund amount "+in.Amount, nil)
	}
	ch := c.Chain()
	currency := common.HexToAddress(in.Currency)
	cur, listed := ch.FindCurrency(currency.Hex())
	gas := a.RefundGas.ceiling(cur, listed)
	id, err := a.payoutID(ctx, ch, in)
	if err != nil {
		return nil, err
	}
	data := evm.DepositoryABI.PackWithdraw(id, currency, common.HexToAddress(in.Recipient), amount)
	// The depository pays the refund: it commits the solver's gas only (payAmount nil), which
	// fills signed after it count as in flight until it is mined.
	stored, err := a.send(ctx, c, solverCall{requestID: in.RequestID, kind: in.Kind, to: common.HexToAddress(ch.Depository),
		data: data, value: new(big.Int), gasLimit: gas,
		onOverLimit: func(estimate uint64) error {
			return refundFailure(intent.RefundFailReasonManualRefundRequired, fmt.Sprintf(
				"the refund needs %d gas, more than its ceiling of %d (REFUND_GAS_LIMITS)", estimate, gas), nil)
		},
		preflight: func(ctx context.Context, gas uint64, feeCap *big.Int) error {
			// A recipient on the screening blocklist, an operator's too: REFUND_RECIPIENT_IS_BLOCKED.
			if err := a.screenRefund(ch, in.Recipient); err != nil {
				return err
			}
			if in.Kind == intent.TxKindManualRefund {
				return nil // an operator refunds knowingly: the refund is not priced
			}
			return a.checkRefundWorthIt(ctx, ch, cur, listed, amount, gas, feeCap)
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

// payoutID is the once-only id the request's refund pays under. A request pays under one id:
// once a refund of either kind is stored, every other pays under the id it was signed with,
// whatever the run asks for (a manual refund after an automatic one signed before an upgrade).
// Otherwise the run's scheme names it (the request's RefundID, or the deposit's withdrawal id).
// When nothing is stored, the other id is read on chain before the first signing: a deposit
// already refunded under it (transactions lost from the store, say) is refused, never paid
// again.
func (a *ChainActivities) payoutID(ctx context.Context, ch *chains.Chain, in RefundInput) (common.Hash, error) {
	for _, kind := range []intent.TxKind{intent.TxKindRefund, intent.TxKindManualRefund} {
		prev, err := a.Store.SolverTx(ctx, in.RequestID, kind)
		if errors.Is(err, intent.ErrNotFound) {
			continue
		}
		if err != nil {
			return common.Hash{}, err // unknown whether one is stored: retried, never guessed
		}
		id, err := storedPayoutID(prev)
		if err != nil {
			return common.Hash{}, refundFailure(intent.RefundFailReasonManualRefundRequired, "the request's stored refund does not decode", err)
		}
		return id, nil
	}
	legacy := intent.RefundID(in.RequestID)
	id, other := legacy, common.Hash{}
	if in.Payout == PayoutDeposit {
		id = oracleapi.WithdrawalIDOf(ch.ID, common.HexToAddress(ch.Depository), common.HexToHash(in.DepositTx), uint64(in.DepositLogIndex))
		other = legacy
	}
	if other == (common.Hash{}) {
		return id, nil // a run before changeLean 5: as it always paid
	}
	caller, err := chains.Capability[evm.ContractCaller](a.Chains, ch.ID)
	if err != nil {
		return common.Hash{}, err
	}
	depository := common.HexToAddress(ch.Depository)
	out, err := retryRead(ctx, func(ctx context.Context) ([]byte, error) {
		return caller.CallContract(ctx, ethereum.CallMsg{To: &depository, Data: evm.DepositoryABI.PackWithdrawn(other)})
	})
	if err != nil {
		return common.Hash{}, err
	}
	spent, err := evm.DepositoryABI.UnpackWithdrawn(out)
	if err != nil {
		return common.Hash{}, fmt.Errorf("%w: the depository's withdrawn answer does not decode: %v", chains.ErrUnavailable, err)
	}
	if spent {
		return common.Hash{}, refundFailure(intent.RefundFailReasonManualRefundRequired, fmt.Sprintf(
			"the deposit was already refunded under the request's former payout id %s", other.Hex()), nil)
	}
	return id, nil
}

// storedPayoutID is the payout id a stored refund transaction pays under (the first argument of
// its Depository.withdraw call).
func storedPayoutID(stored *intent.SolverTx) (common.Hash, error) {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(stored.Raw); err != nil {
		return common.Hash{}, err
	}
	data := tx.Data()
	method := evm.DepositoryABI.GetABI().Methods["withdraw"]
	if len(data) < 4 || !bytes.Equal(data[:4], method.ID) {
		return common.Hash{}, errors.New("not a Depository.withdraw call")
	}
	args, err := method.Inputs.Unpack(data[4:])
	if err != nil {
		return common.Hash{}, err
	}
	id, ok := args[0].([32]byte)
	if !ok {
		return common.Hash{}, errors.New("withdraw's id is not bytes32")
	}
	return common.Hash(id), nil
}

// checkRefundWorthIt fails with AMOUNT_TOO_LOW_TO_REFUND when the refund's gas (its ceiling at
// the fee cap it is signed with) costs at least what it would return. A native refund is its
// amount; a listed ERC-20 is valued through the price source, in the native currency. A refund
// that cannot be valued (an unlisted currency, no price now) is not made either: refunding
// something of unknown worth could cost the solver more than it returns, without limit when
// anyone can deposit. Its failure carries the RefundUnpriced detail.
func (a *ChainActivities) checkRefundWorthIt(ctx context.Context, ch *chains.Chain, cur chains.Currency, listed bool, amount *big.Int,
	gas uint64, feeCap *big.Int) error {
	cost := maxGasCost(gas, feeCap)
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

package activities

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// Gasless execution (intent.FundingRelayed, workflows/relay.go, docs/gasless.md): the engine
// sends the user's own signed call, the relayer (a key that is not the solver's) paying its gas,
// and the integrator whose key executed it backs that gas with its sponsorship balance: the most
// the transaction can cost is reserved before the relayer signs it, and settled once it is mined.

// RelaySponsorships is the ledger of relayed gas (store.Store).
type RelaySponsorships interface {
	ReserveRelaySponsorship(ctx context.Context, requestID, integratorID string, maxUSD decimal.Decimal) (bool, error)
	SettleRelaySponsorship(ctx context.Context, requestID string, charge *decimal.Decimal, feeWei string) (intent.RelaySettlement, error)
}

// RelayInput names a gasless request's call and who backs its gas.
type RelayInput struct {
	RequestID    string
	Call         intent.RelayCall
	IntegratorID string
}

// RelaySent is the relayed transaction as signed, kept and broadcast.
type RelaySent struct {
	TxHash string
}

// SubmitRelay has the origin chain's family relay the request's call once (signed by the
// relayer, kept before it is broadcast) and broadcast it; a retry broadcasts the kept
// transaction again. Before the first signing the integrator's sponsorship balance must cover
// the most the transaction can cost (gas × fee cap, valued at the native currency's USD price):
// it is reserved, or the request fails with SPONSOR_BALANCE_TOO_LOW and nothing is signed. A
// call that would revert, or a chain that relays nothing, is TRANSACTION_SUBMISSION_FAILED
// without retry: nothing was broadcast. Anything else is retried.
func (a *ChainActivities) SubmitRelay(ctx context.Context, in RelayInput) (*RelaySent, error) {
	r, err := a.Families.Relayer(in.Call.ChainID)
	if errors.Is(err, chains.ErrUnsupported) {
		return nil, failure(intent.FailReasonTransactionSubmissionFailed, "the chain relays no calls: "+err.Error(), err)
	}
	if err != nil {
		return nil, err
	}
	ch, err := a.Families.Registry().Get(in.Call.ChainID)
	if err != nil {
		return nil, err
	}
	relay := chains.Relay{RequestID: in.RequestID, Call: in.Call, Check: func(ctx context.Context, maxFee *big.Int) error {
		if a.Relays == nil {
			return failure(intent.FailReasonSponsorBalanceTooLow, "no sponsorship ledger backs relayed gas here", nil)
		}
		usd, err := a.nativeUSD(ctx, ch, maxFee)
		if err != nil {
			return err
		}
		ok, err := a.Relays.ReserveRelaySponsorship(ctx, in.RequestID, in.IntegratorID, usd)
		if err != nil {
			return err
		}
		if !ok {
			return failure(intent.FailReasonSponsorBalanceTooLow, fmt.Sprintf(
				"the integrator's sponsorship balance does not cover the relayed transaction's most, USD %s", usd), nil)
		}
		return nil
	}}
	sent, err := r.Relay(chains.WithLogger(ctx, logger(ctx)), relay)
	var rev *chains.RevertError
	switch {
	case err == nil:
		logger(ctx).Info("call relayed", "requestId", in.RequestID, "chainId", in.Call.ChainID, "to", in.Call.To, "tx", sent.TxHash)
		return &RelaySent{TxHash: sent.TxHash}, nil
	case errors.As(err, &rev):
		return nil, failure(intent.FailReasonTransactionSubmissionFailed, "the relayed call would revert: "+rev.Reason, rev)
	case errors.Is(err, chains.ErrPayoutRefused), errors.Is(err, chains.ErrStoredCorrupt):
		return nil, failure(intent.FailReasonTransactionSubmissionFailed, "the relayed call is refused: "+err.Error(), err)
	}
	return nil, err
}

// nativeUSD values wei of ch's native currency in USD, rounded up to the micro-dollar.
func (a *ChainActivities) nativeUSD(ctx context.Context, ch *chains.Chain, wei *big.Int) (decimal.Decimal, error) {
	if a.Prices == nil {
		return decimal.Zero, failure(intent.FailReasonSponsorBalanceTooLow, "no price source values relayed gas", nil)
	}
	price, err := a.Prices.USDPrice(ctx, strings.ToUpper(ch.Currency.Symbol))
	if err != nil {
		return decimal.Zero, fmt.Errorf("%w: the price of %s: %w", intent.ErrUnavailable, ch.Currency.Symbol, err)
	}
	usd := decimal.NewFromBigInt(wei, -int32(ch.Currency.Decimals)).Mul(price)
	return usd.Shift(6).Ceil().Shift(-6), nil
}

// SettleRelayInput names a relayed transaction that was mined: its chain, its fee (wei) and
// whether the integrator pays it (Charge) or the reservation goes back whole.
type SettleRelayInput struct {
	RequestID string
	ChainID   uint64
	Fee       string
	Charge    bool
}

// RelaySettled is what settling the relay did: the USD charged (zero when released).
type RelaySettled struct {
	ChargedUSD string
}

// SettleRelay settles the request's relayed gas: charged what the mined transaction cost (its
// fee at the native currency's USD price now, rounded up to the micro-dollar, never more than
// was reserved) with the rest given back, or, without Charge, released whole. Idempotent.
func (a *ChainActivities) SettleRelay(ctx context.Context, in SettleRelayInput) (*RelaySettled, error) {
	if a.Relays == nil {
		return &RelaySettled{ChargedUSD: "0"}, nil
	}
	var charge *decimal.Decimal
	if in.Charge {
		fee, ok := new(big.Int).SetString(in.Fee, 10)
		if !ok {
			fee = new(big.Int)
		}
		ch, err := a.Families.Registry().Get(in.ChainID)
		if err != nil {
			return nil, err
		}
		usd, err := a.nativeUSD(ctx, ch, fee)
		if err != nil {
			return nil, err
		}
		charge = &usd
	}
	s, err := a.Relays.SettleRelaySponsorship(ctx, in.RequestID, charge, in.Fee)
	if err != nil {
		return nil, err
	}
	return &RelaySettled{ChargedUSD: s.ChargedUSD.String()}, nil
}

package activities

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/prices"
)

// Confirmations by value and the exposure cap (docs/operations.md). A deposit of small value
// is relied on at its tier's depth (AttestDeposit, Tiered inputs), before it is final; what the
// engine fills against such deposits is its exposure on their chain, should a reorg take them
// back. Each takes its share (its USD value) from the attestation until it is final; the shares
// of a chain's deposits in flight are bounded by the chain's cap, in Postgres, shared by every
// worker (store.ReserveExposure). A fill whose share does not fit waits, its request pending,
// until earlier deposits become final or its own does (AwaitExposure): it is never refunded for
// the wait. A share ends by itself when its deposit is final; a request that ends paying nothing
// ends its share at once (ReleaseExposure).

// ExposureLedger is the exposure ledger (store.Store).
type ExposureLedger interface {
	ReserveExposure(ctx context.Context, a intent.ExposureAsk) (intent.ExposureAnswer, error)
	ReleaseExposure(ctx context.Context, requestID string) error
}

// ExposureResult is a deposit's share of its chain's exposure as the attestation left it.
type ExposureResult struct {
	intent.ExposureHold
	// Reserved says the share is held; false, the chain's cap is full and the fill waits.
	Reserved bool
	// NextFinal is the block at which the chain's exposure next drops by itself (0: none held).
	NextFinal uint64 `json:",omitempty"`
}

// depositDepth values the deposit by the engine's prices and returns the confirmations its
// value's tier asks on its chain; a deposit that cannot be valued takes the chain's full
// confirmations.
func (a *OracleActivities) depositDepth(ctx context.Context, ch *chains.Chain, d intent.Deposit) prices.Depth {
	amount, _ := new(big.Int).SetString(d.Amount, 10)
	depth := prices.DepositDepth(ctx, a.Prices, ch, d.Currency, amount)
	if depth.Err != nil {
		logger(ctx).Debug("deposit not valued: its chain's full confirmations apply", "chainId", d.ChainID, "tx", d.TxHash, "error", depth.Err)
	}
	return depth
}

// exposureCap is the exposure cap of a chain (0, nothing before it is final, when its entry
// cannot be read).
func (a *OracleActivities) exposureCap(ch depositChain) decimal.Decimal {
	if ch == nil || ch.Chain() == nil {
		return decimal.Zero
	}
	return ch.Chain().ExposureCap(a.ExposureCap)
}

// reserveExposure takes, for a Tiered deposit attested in block that is not final at head, its
// share of its chain's exposure. It returns nil for a deposit that needs none (not Tiered, or
// final already), else the share as reserved or refused (the cap is full); an error when the
// ledger cannot be reached (the wait asks again).
func (a *OracleActivities) reserveExposure(ctx context.Context, w *depositWait, block, head uint64) (*ExposureResult, error) {
	in := w.in
	if !in.Tiered || a.Exposure == nil || w.chain == nil || !w.depth.Priced {
		return nil, nil
	}
	finalBlock := block + w.depth.Final - 1
	if head >= finalBlock {
		return nil, nil // final already: relied on at the chain's full depth
	}
	hold := intent.ExposureHold{RequestID: in.RequestID, ChainID: in.ChainID, USD: w.depth.USD, DepositBlock: block, FinalBlock: finalBlock}
	ans, err := a.Exposure.ReserveExposure(ctx, intent.ExposureAsk{ExposureHold: hold, Head: head, Cap: a.exposureCap(w.chain)})
	if err != nil {
		return nil, unavailable(fmt.Errorf("exposure not reserved: %w", err))
	}
	if !ans.Reserved {
		metrics.ExposureWaits.WithLabelValues(strconv.FormatUint(in.ChainID, 10)).Inc()
		logger(ctx).Info("deposit attested; its fill waits for the chain's exposure cap", "chainId", in.ChainID, "tx", in.TxHash,
			"usd", hold.USD.String(), "exposure", ans.Exposure.String(), "finalBlock", finalBlock)
	}
	return &ExposureResult{ExposureHold: hold, Reserved: ans.Reserved, NextFinal: ans.NextFinal}, nil
}

// ExposureInput names the share a fill waits for.
type ExposureInput struct {
	intent.ExposureHold
}

// ExposureWaited is how the wait ended: Reserved, the share was taken under the cap; or Final,
// the deposit became final first and needs none.
type ExposureWaited struct {
	Reserved, Final bool
}

// ExposureCheck is AwaitExposure's heartbeat detail: the head its last check saw, and the
// chain's exposure and the block it next drops at as the ledger last answered, so an operator
// (and a test) sees what the fill waits on.
type ExposureCheck struct {
	Head      uint64
	Exposure  string
	NextFinal uint64
}

// exposureRecheck is how often a fill waiting for its chain's cap asks the ledger when no hold
// has become final since it last asked: a share released by a request that ended paying nothing
// is taken within it. Between, the wait reads only its chain's head (the watcher's, shared).
const exposureRecheck = 15 * time.Second

// AwaitExposure returns once the deposit's share of its chain's exposure is held, or the
// deposit is final (then it needs none). It is one long wait like AttestDeposit (await): it
// checks on each new block of the deposit's chain, and asks the ledger only once the head
// reaches the block at which a held share next ends (the ledger's answer) or exposureRecheck
// has passed, never on every block for every waiting fill.
func (a *OracleActivities) AwaitExposure(ctx context.Context, in ExposureInput) (*ExposureWaited, error) {
	if a.Exposure == nil {
		return &ExposureWaited{Final: true}, nil
	}
	ch, err := a.depositChain(in.ChainID)
	if err != nil || ch == nil {
		return nil, fmt.Errorf("chain %d of the exposure: %v", in.ChainID, err)
	}
	var (
		out   ExposureWaited
		asked time.Time
		last  ExposureCheck
	)
	spec := waitSpec{what: "exposure", chain: ch, attrs: []any{"chainId", in.ChainID, "requestId", in.RequestID},
		heartbeat: func() { heartbeat(ctx, last) }}
	_, err = await(ctx, spec, func(ctx context.Context) (bool, error) {
		head := ch.SeenHead()
		if head == 0 {
			h, err := ch.Head(ctx)
			if err != nil {
				return false, unavailable(err)
			}
			head = h
		}
		if head >= in.FinalBlock {
			out.Final = true
			return true, nil
		}
		last.Head = head
		if head < last.NextFinal && time.Since(asked) < exposureRecheck {
			return false, nil
		}
		ans, err := a.Exposure.ReserveExposure(ctx, intent.ExposureAsk{ExposureHold: in.ExposureHold, Head: head, Cap: a.exposureCap(ch)})
		if err != nil {
			return false, unavailable(fmt.Errorf("exposure not reserved: %w", err))
		}
		if ans.Reserved {
			out.Reserved = true
			return true, nil
		}
		// Nothing can change before the next held share ends, or this deposit is final.
		asked, last.Exposure, last.NextFinal = time.Now(), ans.Exposure.String(), ans.NextFinal
		if last.NextFinal == 0 || last.NextFinal > in.FinalBlock {
			last.NextFinal = in.FinalBlock
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	logger(ctx).Info("fill's exposure held", "chainId", in.ChainID, "requestId", in.RequestID, "reserved", out.Reserved, "final", out.Final)
	return &out, nil
}

// ExposureRelease names the request whose share ends.
type ExposureRelease struct {
	RequestID string
}

// ReleaseExposure ends a request's share of its chain's exposure: the request ended without
// paying anything against its deposit. Idempotent.
func (a *OracleActivities) ReleaseExposure(ctx context.Context, in ExposureRelease) error {
	if a.Exposure == nil {
		return nil
	}
	return a.Exposure.ReleaseExposure(ctx, in.RequestID)
}

package worker

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/store"
)

// exposureEvery is how often the worker reads the chains' exposure for the metrics.
const exposureEvery = 10 * time.Second

// watchExposure exports, for every enabled chain with confirmation tiers, its exposure (the USD
// filled against its deposits not yet final: intentd_deposit_exposure_usd) and its cap
// (intentd_deposit_exposure_cap_usd) until ctx ends, and deletes the chain's shares that no
// longer count (store.PruneExposure), so the ledger holds only the deposits in flight. Every
// worker does it; the exposure is Postgres's, the same in each. A chain or a database that
// cannot be read keeps the last value and is logged at DEBUG (the fills' own waits report it).
func watchExposure(ctx context.Context, cs *chains.Clients, st *store.Store, def decimal.Decimal, logger *slog.Logger) {
	if st == nil || cs == nil {
		return
	}
	t := time.NewTicker(exposureEvery)
	defer t.Stop()
	for {
		for _, ch := range cs.Registry().Enabled() {
			if !ch.Tiered() {
				continue
			}
			id := strconv.FormatUint(ch.ID, 10)
			limit, _ := ch.ExposureCap(def).Float64()
			metrics.DepositExposureCap.WithLabelValues(id).Set(limit)
			if err := readExposure(ctx, cs, st, ch.ID, id); err != nil {
				logger.Debug("chain exposure not read for the metrics", "chain", ch.ID, "error", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func readExposure(ctx context.Context, cs *chains.Clients, st *store.Store, chainID uint64, label string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	reader, err := chains.Capability[chains.HeadReader](cs, chainID)
	if err != nil {
		return err
	}
	head, err := reader.Head(ctx)
	if err != nil {
		return err
	}
	if _, err := st.PruneExposure(ctx, chainID, head); err != nil {
		return err
	}
	v, err := st.ChainExposure(ctx, chainID, head)
	if err != nil {
		return err
	}
	usd, _ := v.Float64()
	metrics.DepositExposure.WithLabelValues(label).Set(usd)
	return nil
}

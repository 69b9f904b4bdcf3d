package worker

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/metrics"
)

// inventoryEvery is how often the worker reads the solver's balances for the metrics.
const inventoryEvery = 30 * time.Second

// watchInventory exports the solver's balance of every currency of every enabled chain
// (intentd_solver_balance, whole units) and the configured floor of its symbol
// (intentd_solver_balance_floor, SOLVER_INVENTORY_FLOOR) until ctx ends: the alert on a balance
// below its floor is what tells an operator to top the solver up before fills fail with
// SOLVER_BALANCE_TOO_LOW. A chain that cannot be read keeps its last value and is logged at
// DEBUG (the chain's own errors are the fill path's to report).
func watchInventory(ctx context.Context, cs *chains.Clients, solver common.Address, solvers map[chains.VMType]string,
	floors map[string]decimal.Decimal, logger *slog.Logger) {
	t := time.NewTicker(inventoryEvery)
	defer t.Stop()
	for {
		for _, ch := range cs.Registry().Enabled() {
			reader, err := chains.Capability[chains.BalanceReader](cs, ch.ID)
			if err != nil {
				continue
			}
			id := strconv.FormatUint(ch.ID, 10)
			// The solver's address on the chain's family: its own (Solana's public key) where
			// it has one, else the EVM address.
			account := solver.Hex()
			if a, ok := solvers[ch.VMType]; ok && a != "" {
				account = a
			}
			for _, cur := range ch.Currencies() {
				if f, ok := floors[cur.Symbol]; ok {
					v, _ := f.Float64()
					metrics.SolverBalanceFloor.WithLabelValues(id, cur.Symbol).Set(v)
				}
				rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				bal, err := reader.BalanceNow(rctx, cur.Address, account)
				cancel()
				if err != nil {
					logger.Debug("solver balance not read for the metrics", "chain", ch.ID, "currency", cur.Symbol, "error", err)
					continue
				}
				whole, _ := decimal.NewFromBigInt(bal, -int32(cur.Decimals)).Float64()
				metrics.SolverBalance.WithLabelValues(id, cur.Symbol).Set(whole)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

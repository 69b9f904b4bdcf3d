package store

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
)

// The exposure ledger (migrations/0016_deposit_exposure.sql): one row per request whose fill
// relies on a deposit not yet final, counted against its origin chain's cap until the chain's
// head reaches the row's final block.

// ExposureResetDepth is how far above a chain's head a hold's deposit block may be and still
// count: beyond it the hold belongs to a chain that was reset (a devnet started again), which
// the scanner judges by the same depth (deposits.reorgDepth).
const ExposureResetDepth = 64

// ReserveExposure takes a's share of its chain's exposure if the holds that count at a.Head
// leave room for it under a.Cap; one round trip, serialised per chain across every worker. A
// request that already holds a share holds it still (a retried activity answers what the first
// attempt decided).
func (s *Store) ReserveExposure(ctx context.Context, a intent.ExposureAsk) (intent.ExposureAnswer, error) {
	var out intent.ExposureAnswer
	if a.USD.IsNegative() || a.Cap.IsNegative() {
		return out, fmt.Errorf("exposure of %s: %s USD under a cap of %s", a.RequestID, a.USD, a.Cap)
	}
	var next *int64
	err := s.pool.QueryRow(ctx, `SELECT reserved, exposure::text, next_final FROM reserve_deposit_exposure($1, $2, $3, $4, $5, $6, $7, $8)`,
		a.RequestID, int64(a.ChainID), a.USD, int64(a.DepositBlock), int64(a.FinalBlock), int64(a.Head), a.Cap,
		int64(ExposureResetDepth)).Scan(&out.Reserved, &out.Exposure, &next)
	if next != nil {
		out.NextFinal = uint64(*next)
	}
	return out, unavailable(err)
}

// ReleaseExposure ends a request's hold at once: the request ended without paying anything
// against its deposit. Releasing a request without a hold does nothing.
func (s *Store) ReleaseExposure(ctx context.Context, requestID string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM deposit_exposure WHERE request_id = $1`, requestID)
	return unavailable(err)
}

// ChainExposure is a chain's exposure at head: the USD of the holds that count.
func (s *Store) ChainExposure(ctx context.Context, chainID, head uint64) (decimal.Decimal, error) {
	var v decimal.Decimal
	err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(usd), 0)::text FROM deposit_exposure
		WHERE chain_id = $1 AND final_block > $2 AND deposit_block <= $2 + $3`, int64(chainID), int64(head), int64(ExposureResetDepth)).Scan(&v)
	return v, unavailable(err)
}

// PruneExposure deletes a chain's holds that no longer count at head (their deposits are final,
// or of a chain that was reset) and returns how many.
func (s *Store) PruneExposure(ctx context.Context, chainID, head uint64) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM deposit_exposure
		WHERE chain_id = $1 AND (final_block <= $2 OR deposit_block > $2 + $3)`, int64(chainID), int64(head), int64(ExposureResetDepth))
	return tag.RowsAffected(), unavailable(err)
}

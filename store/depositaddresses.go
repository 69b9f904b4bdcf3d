package store

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
)

// Deposit addresses (migration 0018, docs/deposit-addresses.md): the addresses issued with
// quotes and the payments seen arriving at them.

const depositAddressColumns = `id, address, chain_id, type, order_id, depositor, request_id, currency,
	COALESCE(refund_to, ''), COALESCE(recovery_address, ''), route, created_at, disabled_at`

// InsertDepositAddress stores an issued address. Addresses are stored in lower case; an address
// issued twice (one order id and depositor) is a conflict, never a second row.
func (s *Store) InsertDepositAddress(ctx context.Context, a intent.DepositAddress) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO deposit_addresses (id, address, chain_id, type, order_id, depositor, request_id,
			currency, refund_to, recovery_address, route, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULLIF($9, ''), NULLIF($10, ''), $11, $12)`,
		a.ID, strings.ToLower(a.Address), int64(a.ChainID), string(a.Type), a.OrderID, strings.ToLower(a.Depositor), a.RequestID,
		strings.ToLower(a.Currency), a.RefundTo, a.RecoveryAddress, a.Route, a.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert deposit address: %w", err)
	}
	return nil
}

// DepositAddressByID returns an issued address by its depositAddressId, ErrNotFound when none.
func (s *Store) DepositAddressByID(ctx context.Context, id string) (*intent.DepositAddress, error) {
	return scanDepositAddress(s.pool.QueryRow(ctx, `SELECT `+depositAddressColumns+` FROM deposit_addresses WHERE id = $1`, id))
}

// DepositAddressByAddress returns an issued address by the address itself (any case).
func (s *Store) DepositAddressByAddress(ctx context.Context, address string) (*intent.DepositAddress, error) {
	return scanDepositAddress(s.pool.QueryRow(ctx, `SELECT `+depositAddressColumns+` FROM deposit_addresses WHERE address = $1`,
		strings.ToLower(address)))
}

// DepositAddressByRequest returns the address issued with a quote-time request, or the address
// a later request it funds was routed from.
func (s *Store) DepositAddressByRequest(ctx context.Context, requestID string) (*intent.DepositAddress, error) {
	return scanDepositAddress(s.pool.QueryRow(ctx, `SELECT `+depositAddressColumns+` FROM deposit_addresses
		WHERE id = COALESCE((SELECT id FROM deposit_addresses WHERE request_id = $1 LIMIT 1),
			(SELECT address_id FROM deposit_address_transfers WHERE request_id = $1 LIMIT 1))`, requestID))
}

// WatchedDepositAddresses returns every address not disabled, of every chain of one family
// (the addresses are the same on each of its chains), created at or after since: the watcher
// loads them all once and then only the new ones.
func (s *Store) WatchedDepositAddresses(ctx context.Context, since time.Time) ([]intent.DepositAddress, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+depositAddressColumns+` FROM deposit_addresses
		WHERE disabled_at IS NULL AND created_at >= $1 ORDER BY created_at`, since)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (intent.DepositAddress, error) {
		a, err := scanDepositAddress(row)
		if err != nil {
			return intent.DepositAddress{}, err
		}
		return *a, nil
	})
}

// DisableDepositAddress disables an address: transfers to it are no longer watched. It reports
// whether the address exists; disabling twice keeps the first time.
func (s *Store) DisableDepositAddress(ctx context.Context, id string, at time.Time) (*intent.DepositAddress, error) {
	return scanDepositAddress(s.pool.QueryRow(ctx, `UPDATE deposit_addresses SET disabled_at = COALESCE(disabled_at, $2)
		WHERE id = $1 RETURNING `+depositAddressColumns, id, at))
}

func scanDepositAddress(row pgx.Row) (*intent.DepositAddress, error) {
	var a intent.DepositAddress
	var chainID int64
	var typ string
	err := row.Scan(&a.ID, &a.Address, &chainID, &typ, &a.OrderID, &a.Depositor, &a.RequestID, &a.Currency, &a.RefundTo,
		&a.RecoveryAddress, &a.Route, &a.CreatedAt, &a.DisabledAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, intent.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	a.ChainID, a.Type = uint64(chainID), intent.DepositAddressType(typ)
	return &a, nil
}

// RecordDepositAddressTransfer stores a payment seen arriving at an address and reports
// whether it is new: a payment seen again (a rescan, a reindex) keeps its row and what became
// of it.
func (s *Store) RecordDepositAddressTransfer(ctx context.Context, t intent.DepositAddressTransfer) (created bool, err error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO deposit_address_transfers (chain_id, tx_hash, log_index, address_id, block_number,
			sender, currency, amount, seen_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
		int64(t.ChainID), strings.ToLower(t.TxHash), t.LogIndex, t.AddressID, int64(t.BlockNumber), strings.ToLower(t.Sender),
		strings.ToLower(t.Currency), t.Amount, t.SeenAt)
	if err != nil {
		return false, fmt.Errorf("record deposit address transfer: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// RouteDepositAddressTransfer names the request a payment funds, once: a payment already
// routed keeps its request, which is returned.
func (s *Store) RouteDepositAddressTransfer(ctx context.Context, chainID uint64, txHash string, logIndex int, requestID string) (string, error) {
	var got string
	err := s.pool.QueryRow(ctx, `UPDATE deposit_address_transfers SET request_id = COALESCE(request_id, $4)
		WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3 RETURNING request_id`,
		int64(chainID), strings.ToLower(txHash), logIndex, requestID).Scan(&got)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", intent.ErrNotFound
	}
	return got, err
}

// DepositAddressTransfers returns the payments seen at an address, oldest first: its deposit and
// sweep history.
func (s *Store) DepositAddressTransfers(ctx context.Context, addressID string) ([]intent.DepositAddressTransfer, error) {
	rows, err := s.pool.Query(ctx, `SELECT chain_id, tx_hash, log_index, address_id, block_number, sender, currency, amount,
			COALESCE(request_id, ''), COALESCE(sweep_tx, ''), seen_at
		FROM deposit_address_transfers WHERE address_id = $1 ORDER BY seen_at, chain_id, block_number, tx_hash, log_index`, addressID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (intent.DepositAddressTransfer, error) {
		var t intent.DepositAddressTransfer
		var chainID, block int64
		err := row.Scan(&chainID, &t.TxHash, &t.LogIndex, &t.AddressID, &block, &t.Sender, &t.Currency, &t.Amount,
			&t.RequestID, &t.SweepTx, &t.SeenAt)
		t.ChainID, t.BlockNumber = uint64(chainID), uint64(block)
		return t, err
	})
}

// UnsweptDepositAddressAmounts sums, by currency (lower case), the payments recorded at an
// address on a chain that no sweep has moved yet: what of the address's balance they account
// for (deposits.Reindexer: a balance above it is a payment the watch did not see).
func (s *Store) UnsweptDepositAddressAmounts(ctx context.Context, addressID string, chainID uint64) (map[string]*big.Int, error) {
	rows, err := s.pool.Query(ctx, `SELECT currency, sum(amount::numeric)::text FROM deposit_address_transfers
		WHERE address_id = $1 AND chain_id = $2 AND sweep_tx IS NULL GROUP BY currency`, addressID, int64(chainID))
	if err != nil {
		return nil, err
	}
	out := map[string]*big.Int{}
	var currency, sum string
	_, err = pgx.ForEachRow(rows, []any{&currency, &sum}, func() error {
		v, ok := new(big.Int).SetString(sum, 10)
		if !ok {
			return fmt.Errorf("unswept amount %q of %s is not an integer", sum, currency)
		}
		out[currency] = v
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("unswept deposit address amounts: %w", err)
	}
	return out, nil
}

// AdmitDepositAddressReindex admits a reindex of the address on the chain at now unless one was
// admitted within cooldown before it, and reports whether it did: one row per address and
// chain, shared by every API process, updated only when its last reindex is old enough.
func (s *Store) AdmitDepositAddressReindex(ctx context.Context, addressID string, chainID uint64, now time.Time,
	cooldown time.Duration) (bool, error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO deposit_address_reindexes (address_id, chain_id, at) VALUES ($1, $2, $3)
		ON CONFLICT (address_id, chain_id) DO UPDATE SET at = EXCLUDED.at
		WHERE deposit_address_reindexes.at <= EXCLUDED.at - make_interval(secs => $4::double precision)`,
		addressID, int64(chainID), now, cooldown.Seconds())
	if err != nil {
		return false, fmt.Errorf("admit deposit address reindex: %w", unavailable(err))
	}
	return tag.RowsAffected() == 1, nil
}

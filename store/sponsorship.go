package store

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
)

// The sponsorship ledger (migrations/0007_sponsorship.sql). A sponsored request holds a
// reservation from before its fill is signed: ReserveSponsorship takes the sponsored USD off the
// integrator's balance, SettleFill charges it when the fill lands, ReleaseSponsorship gives it
// back when the request is refunded or fails. Each is one transaction, keyed by the request id,
// and idempotent: a retried activity answers what the first attempt did and never moves a
// balance twice. The balance never goes below zero: a reservation takes it with one conditional
// UPDATE (Postgres re-checks the condition on the locked row, so concurrent reservations queue
// and the late ones see what the early ones left), and the column's CHECK backs that up. Every
// movement is a ledger row.

// SponsorAccount reads an integrator's sponsorship wallet, chain and balance (the integrators
// row, read fresh: a resolved key's copy may be seconds old); an unknown integrator is
// ErrNotFound, a database that could not be reached intent.ErrUnavailable.
func (s *Store) SponsorAccount(ctx context.Context, integratorID string) (intent.SponsorAccount, error) {
	a := intent.SponsorAccount{IntegratorID: integratorID}
	if !isUUID(integratorID) {
		return a, ErrNotFound
	}
	var chainID int64
	err := s.pool.QueryRow(ctx, `SELECT sponsor_wallet, sponsor_chain_id, sponsor_balance_usd::text FROM integrators WHERE id = $1`,
		integratorID).Scan(&a.Wallet, &chainID, &a.BalanceUSD)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, ErrNotFound
	}
	a.ChainID = uint64(chainID)
	return a, unavailable(err)
}

// ReserveSponsorship takes what a request sponsors off its integrator's balance before the fill
// is signed. It reports false, taking nothing, when the integrator has no sponsorship wallet or
// its balance does not cover sp.AmountUSD; the request is then refunded with
// SPONSOR_BALANCE_TOO_LOW. A retry answers what the first call decided.
func (s *Store) ReserveSponsorship(ctx context.Context, requestID string, sp intent.Sponsor) (reserved bool, err error) {
	if !sp.AmountUSD.IsPositive() {
		return false, fmt.Errorf("sponsorship of %s: amount USD %s is not positive", requestID, sp.AmountUSD)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO sponsorship_reservations (request_id, integrator_id, amount_usd, status)
			VALUES ($1, $2, $3, 'reserved') ON CONFLICT (request_id) DO NOTHING`, requestID, sp.IntegratorID, sp.AmountUSD)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var status string
			if err := tx.QueryRow(ctx, `SELECT status FROM sponsorship_reservations WHERE request_id = $1`, requestID).Scan(&status); err != nil {
				return err
			}
			reserved = status == "reserved" || status == "charged"
			return nil
		}
		var balance decimal.Decimal
		err = tx.QueryRow(ctx, `UPDATE integrators SET sponsor_balance_usd = sponsor_balance_usd - $2
			WHERE id = $1 AND sponsor_wallet <> '' AND sponsor_balance_usd >= $2 RETURNING sponsor_balance_usd::text`,
			sp.IntegratorID, sp.AmountUSD).Scan(&balance)
		if errors.Is(err, pgx.ErrNoRows) {
			_, err = tx.Exec(ctx, `UPDATE sponsorship_reservations SET status = 'declined', updated_at = now() WHERE request_id = $1`, requestID)
			return err
		}
		if err != nil {
			return err
		}
		reserved = true
		return insertLedger(ctx, tx, ledgerEntry{integratorID: sp.IntegratorID, requestID: requestID, kind: "reserve",
			amount: sp.AmountUSD, delta: sp.AmountUSD.Neg(), balance: balance})
	})
	return reserved, unavailable(err)
}

// ReleaseSponsorship gives a request's reservation back to its integrator's balance when the
// request is refunded or fails. A request that holds none (never reserved, declined, already
// released or charged) changes nothing: a charged reservation paid for a fill that landed.
func (s *Store) ReleaseSponsorship(ctx context.Context, requestID string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var integratorID string
		var amount, balance decimal.Decimal
		err := tx.QueryRow(ctx, `UPDATE sponsorship_reservations SET status = 'released', updated_at = now()
			WHERE request_id = $1 AND status = 'reserved' RETURNING integrator_id::text, amount_usd::text`, requestID).Scan(&integratorID, &amount)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `UPDATE integrators SET sponsor_balance_usd = sponsor_balance_usd + $2
			WHERE id = $1 RETURNING sponsor_balance_usd::text`, integratorID, amount).Scan(&balance); err != nil {
			return fmt.Errorf("release %s to %s: %w", requestID, integratorID, err)
		}
		return insertLedger(ctx, tx, ledgerEntry{integratorID: integratorID, requestID: requestID, kind: "release",
			amount: amount, delta: amount, balance: balance})
	})
	return unavailable(err)
}

// SettleFill settles a request whose fill has landed, in one transaction: it charges the
// sponsor's reservation (when st.Sponsor is set), writes feeSponsorship.actual with
// sponsorPayment and appFees.actual on the record (intent.Record.Settle), and records the app
// fees owed to their recipients. A retry of a settled sponsored request changes nothing.
func (s *Store) SettleFill(ctx context.Context, st intent.Settlement) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var raw []byte
		if err := tx.QueryRow(ctx, `SELECT record FROM requests WHERE id = $1 FOR NO KEY UPDATE`, st.RequestID).Scan(&raw); err != nil {
			return notFound(err)
		}
		var rec intent.Record
		if err := decodeRecord(raw, &rec); err != nil {
			return err
		}
		var payment *intent.SponsorPayment
		if st.Sponsor != nil {
			p, done, err := charge(ctx, tx, st.RequestID)
			if err != nil || done {
				return err
			}
			payment = p
		}
		for _, o := range rec.Settle(payment) {
			if _, err := tx.Exec(ctx, `INSERT INTO app_fees_owed (request_id, idx, recipient, chain_id, currency, amount)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (request_id, idx) DO NOTHING`,
				st.RequestID, o.Index, o.Recipient, int64(o.ChainID), o.Currency, o.Amount.String()); err != nil {
				return err
			}
		}
		body, err := encodeRecord(&rec)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE requests SET record = $2 WHERE id = $1`, st.RequestID, body)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return err
	}
	return unavailable(err)
}

// charge spends a request's reservation and returns the sponsor's payment; done reports that it
// was charged before (by the transaction that settled the request, so nothing is left to do).
func charge(ctx context.Context, tx pgx.Tx, requestID string) (p *intent.SponsorPayment, done bool, err error) {
	var integratorID string
	var amount decimal.Decimal
	err = tx.QueryRow(ctx, `UPDATE sponsorship_reservations SET status = 'charged', updated_at = now()
		WHERE request_id = $1 AND status = 'reserved' RETURNING integrator_id::text, amount_usd::text`, requestID).Scan(&integratorID, &amount)
	if errors.Is(err, pgx.ErrNoRows) {
		var status string
		if err := tx.QueryRow(ctx, `SELECT status FROM sponsorship_reservations WHERE request_id = $1`, requestID).Scan(&status); err != nil {
			return nil, false, fmt.Errorf("charge %s: no reservation: %w", requestID, err)
		}
		if status == "charged" {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("charge %s: the reservation is %s", requestID, status)
	}
	if err != nil {
		return nil, false, err
	}
	var wallet string
	var chainID int64
	var balance decimal.Decimal
	if err := tx.QueryRow(ctx, `SELECT sponsor_wallet, sponsor_chain_id, sponsor_balance_usd::text FROM integrators WHERE id = $1`,
		integratorID).Scan(&wallet, &chainID, &balance); err != nil {
		return nil, false, fmt.Errorf("charge %s to %s: %w", requestID, integratorID, err)
	}
	if err := insertLedger(ctx, tx, ledgerEntry{integratorID: integratorID, requestID: requestID, kind: "charge",
		amount: amount, balance: balance}); err != nil {
		return nil, false, err
	}
	return &intent.SponsorPayment{Amount: intent.USDMicros(amount).String(), Address: wallet, ChainID: uint64(chainID)}, false, nil
}

// AppFeesOwed lists the app fees a request's landed fill owes, in appFees order.
func (s *Store) AppFeesOwed(ctx context.Context, requestID string) ([]intent.AppFeeOwed, error) {
	rows, err := s.pool.Query(ctx, `SELECT idx, recipient, chain_id, currency, amount::text FROM app_fees_owed
		WHERE request_id = $1 ORDER BY idx`, requestID)
	if err != nil {
		return nil, unavailable(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (intent.AppFeeOwed, error) {
		var o intent.AppFeeOwed
		var chainID int64
		var amount string
		if err := r.Scan(&o.Index, &o.Recipient, &chainID, &o.Currency, &amount); err != nil {
			return o, err
		}
		o.ChainID = uint64(chainID)
		var ok bool
		if o.Amount, ok = new(big.Int).SetString(amount, 10); !ok {
			return o, fmt.Errorf("app fee amount %q", amount)
		}
		return o, nil
	})
	return out, unavailable(err)
}

// ledgerEntry is one row of sponsorship_ledger.
type ledgerEntry struct {
	integratorID, requestID, kind string
	amount, delta, balance        decimal.Decimal
	note                          string
}

// insertLedger writes a ledger row; top-ups and adjustments (moveSponsorBalance) write theirs in
// the transaction that moves the balance and audits it.
func insertLedger(ctx context.Context, tx pgx.Tx, e ledgerEntry) error {
	var requestID any
	if e.requestID != "" {
		requestID = e.requestID
	}
	_, err := tx.Exec(ctx, `INSERT INTO sponsorship_ledger (integrator_id, request_id, kind, amount_usd, delta_usd, balance_usd, note)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, e.integratorID, requestID, e.kind, e.amount, e.delta, e.balance, e.note)
	return err
}

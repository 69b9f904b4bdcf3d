package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
)

// The relayed gas of gasless requests (migrations/0024_relay_sponsorships.sql,
// docs/gasless.md): the integrator's sponsorship balance backs what the relayer pays. Each
// movement is one transaction keyed by the request id and idempotent, like the fill's
// sponsorship (sponsorship.go), with a ledger row of its own kind.

// ReserveRelaySponsorship takes maxUSD, the most the request's relayed transaction can cost,
// off the integrator's balance before the relayer signs it. It reports false, taking nothing,
// when the integrator has no sponsorship wallet or its balance does not cover maxUSD (no partial
// sponsorship: SPONSOR_BALANCE_TOO_LOW, nothing is sent). A retry answers what the first call
// decided.
func (s *Store) ReserveRelaySponsorship(ctx context.Context, requestID, integratorID string, maxUSD decimal.Decimal) (reserved bool, err error) {
	if !maxUSD.IsPositive() {
		return false, fmt.Errorf("relay sponsorship of %s: %s USD is not positive", requestID, maxUSD)
	}
	if !isUUID(integratorID) {
		return false, nil
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO relay_sponsorships (request_id, integrator_id, reserved_usd, status)
			VALUES ($1, $2, $3, 'reserved') ON CONFLICT (request_id) DO NOTHING`, requestID, integratorID, maxUSD)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var status string
			if err := tx.QueryRow(ctx, `SELECT status FROM relay_sponsorships WHERE request_id = $1`, requestID).Scan(&status); err != nil {
				return err
			}
			reserved = status != "declined"
			return nil
		}
		var balance decimal.Decimal
		err = tx.QueryRow(ctx, `UPDATE integrators SET sponsor_balance_usd = sponsor_balance_usd - $2
			WHERE id = $1 AND sponsor_wallet <> '' AND sponsor_balance_usd >= $2 RETURNING sponsor_balance_usd::text`,
			integratorID, maxUSD).Scan(&balance)
		if errors.Is(err, pgx.ErrNoRows) {
			_, err = tx.Exec(ctx, `UPDATE relay_sponsorships SET status = 'declined', updated_at = now() WHERE request_id = $1`, requestID)
			return err
		}
		if err != nil {
			return err
		}
		reserved = true
		return insertLedger(ctx, tx, ledgerEntry{integratorID: integratorID, requestID: requestID, kind: "relay_reserve",
			amount: maxUSD, delta: maxUSD.Neg(), balance: balance})
	})
	return reserved, unavailable(err)
}

// SettleRelaySponsorship settles the reservation of a request's relayed transaction once it is
// mined: charge, when set, is what the transaction cost in USD (its gas as mined at the native
// currency's price, never more than the reservation), and the rest of the reservation goes back
// to the balance in the same ledger row; nil gives all of it back. A retry answers what the
// first call did.
func (s *Store) SettleRelaySponsorship(ctx context.Context, requestID string, charge *decimal.Decimal, feeWei string) (intent.RelaySettlement, error) {
	var out intent.RelaySettlement
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var integratorID, status string
		var reserved decimal.Decimal
		var charged *decimal.Decimal
		err := tx.QueryRow(ctx, `SELECT integrator_id::text, reserved_usd::text, charged_usd::text, status FROM relay_sponsorships
			WHERE request_id = $1 FOR UPDATE`, requestID).Scan(&integratorID, &reserved, &charged, &status)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT sponsor_wallet, sponsor_chain_id FROM integrators WHERE id = $1`, integratorID).
			Scan(&out.Wallet, &out.ChainID); err != nil {
			return err
		}
		switch status {
		case "declined":
			return nil
		case "charged":
			out.Held = true
			if charged != nil {
				out.ChargedUSD = *charged
			}
			return nil
		case "released":
			out.Held = true
			return nil
		}
		out.Held = true
		spend := decimal.Zero
		if charge != nil {
			spend = decimal.Min(*charge, reserved)
		}
		back := reserved.Sub(spend)
		newStatus, kind := "charged", "relay_charge"
		if charge == nil {
			newStatus, kind = "released", "relay_release"
		}
		if _, err := tx.Exec(ctx, `UPDATE relay_sponsorships SET status = $2, charged_usd = $3, fee_wei = NULLIF($4, '')::numeric,
			updated_at = now() WHERE request_id = $1`, requestID, newStatus, spend, feeWei); err != nil {
			return err
		}
		var balance decimal.Decimal
		if err := tx.QueryRow(ctx, `UPDATE integrators SET sponsor_balance_usd = sponsor_balance_usd + $2
			WHERE id = $1 RETURNING sponsor_balance_usd::text`, integratorID, back).Scan(&balance); err != nil {
			return err
		}
		out.ChargedUSD = spend
		if spend.IsPositive() {
			if err := recordRelayCharge(ctx, tx, requestID, intent.SponsorPayment{Amount: intent.USDMicros(spend).String(),
				Address: out.Wallet, ChainID: out.ChainID}); err != nil {
				return err
			}
		}
		amount := spend
		if charge == nil {
			amount = back
		}
		return insertLedger(ctx, tx, ledgerEntry{integratorID: integratorID, requestID: requestID, kind: kind,
			amount: amount, delta: back, balance: balance})
	})
	return out, unavailable(err)
}

// recordRelayCharge writes the relay's charge on the request's record, in the settling
// transaction (feeSponsorship.actual.sponsorPayment: intent.Record.RelayCharged).
func recordRelayCharge(ctx context.Context, tx pgx.Tx, requestID string, p intent.SponsorPayment) error {
	return updateRecord(ctx, tx, requestID, func(rec *intent.Record) bool {
		rec.RelayCharged(p)
		return true
	})
}

// AddRequestFeature adds feature to a request's record (features), once.
func (s *Store) AddRequestFeature(ctx context.Context, requestID, feature string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return updateRecord(ctx, tx, requestID, func(rec *intent.Record) bool {
			if slices.Contains(rec.Features, feature) {
				return false
			}
			rec.Features = append(rec.Features, feature)
			return true
		})
	})
	if errors.Is(err, ErrNotFound) {
		return err
	}
	return unavailable(err)
}

// updateRecord reads a request's record under a row lock in tx, has change edit it, and writes
// it back when change reports that it changed; ErrNotFound when there is no such request.
func updateRecord(ctx context.Context, tx pgx.Tx, requestID string, change func(*intent.Record) bool) error {
	var raw []byte
	if err := tx.QueryRow(ctx, `SELECT record FROM requests WHERE id = $1 FOR NO KEY UPDATE`, requestID).Scan(&raw); err != nil {
		return notFound(err)
	}
	var rec intent.Record
	if err := decodeRecord(raw, &rec); err != nil {
		return err
	}
	if !change(&rec) {
		return nil
	}
	body, err := encodeRecord(&rec)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE requests SET record = $2 WHERE id = $1`, requestID, body)
	return err
}

// InsertRelayRequest stores the request of a standalone gasless call (POST /execute without a
// requestId: an EIP-7702 upgrade, any call that funds no quote), status waiting, requestType
// Call, feature gasless_execution, on the call's chain; from is the account the call is to (the
// user's). Idempotent: a request already stored is left as it is.
func (s *Store) InsertRelayRequest(ctx context.Context, id string, chainID uint64, from string, at time.Time) error {
	ts := at.UTC().Format(time.RFC3339Nano)
	rec := intent.Record{ID: id, Status: intent.StatusWaiting, User: from, Recipient: from, Sender: from, RequestType: "Call",
		Features: []string{intent.FeatureGaslessExecution}, CreatedAt: ts, UpdatedAt: ts,
		Data: intent.RecordData{FailReason: intent.FailReasonNA, RefundFailReason: intent.RefundFailReasonNA,
			InTxs: []intent.TxItem{}, OutTxs: []intent.TxItem{}}}
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	// A standalone call has no order; its order_id is its own id, which no order id can equal.
	_, err = s.pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id,
			order_id, record, created_at, updated_at)
		VALUES ($1, 'waiting', $2, $2, $3, $3, 'call:' || $1, $4, $5, $5) ON CONFLICT (id) DO NOTHING`,
		id, from, int64(chainID), body, at)
	return unavailable(err)
}

package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
)

// integratorColumns are an integrator's columns (table alias i), in integratorDest's order.
const integratorColumns = `i.id::text, i.name, i.business_verified, i.payout_address, i.sponsor_wallet, i.sponsor_chain_id,
	i.sponsor_balance_usd::text, i.created_at`

const integratorSelect = `SELECT ` + integratorColumns + ` FROM integrators i`

// integratorDest are the scan destinations of integratorColumns.
func integratorDest(in *auth.Integrator) []any {
	return []any{&in.ID, &in.Name, &in.BusinessVerified, &in.PayoutAddress, &in.SponsorWallet, &in.SponsorChainID,
		&in.SponsorBalanceUSD, &in.CreatedAt}
}

func scanIntegrator(row pgx.Row) (*auth.Integrator, error) {
	var in auth.Integrator
	if err := row.Scan(integratorDest(&in)...); err != nil {
		return nil, err
	}
	return &in, nil
}

// CreateIntegrator records a new integrator (audited) with in's profile; in.ID and CreatedAt
// are ignored, and a new integrator starts with no sponsorship balance (top it up with
// TopUpSponsorBalance). A refused field wraps auth.ErrInvalid.
func (s *Store) CreateIntegrator(ctx context.Context, in auth.Integrator, by Actor) (*auth.Integrator, error) {
	in.SponsorBalanceUSD = decimal.Zero
	if err := auth.CheckIntegrator(&in); err != nil {
		return nil, err
	}
	var out *auth.Integrator
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanIntegrator(tx.QueryRow(ctx, `INSERT INTO integrators AS i (id, name, business_verified, payout_address,
			sponsor_wallet, sponsor_chain_id) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5) RETURNING `+integratorColumns,
			in.Name, in.BusinessVerified, in.PayoutAddress, in.SponsorWallet, int64(in.SponsorChainID)))
		if err != nil {
			return err
		}
		return audit(ctx, tx, by, "integrator.create", "integrator", out.ID, nil, out.View())
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// IntegratorUpdate names the profile fields to change; nil leaves a field as it is.
type IntegratorUpdate struct {
	Name             *string
	BusinessVerified *bool
	PayoutAddress    *string
	SponsorWallet    *string
	SponsorChainID   *uint64
}

// UpdateIntegrator changes an integrator's profile (audited). The sponsorship balance is not
// part of the profile: it moves only by TopUpSponsorBalance and AdjustSponsorBalance (and the
// sponsorship ledger). An unknown integrator is ErrNotFound.
func (s *Store) UpdateIntegrator(ctx context.Context, id string, u IntegratorUpdate, by Actor) (*auth.Integrator, error) {
	return s.changeIntegrator(ctx, id, by, "integrator.update", func(tx pgx.Tx, before *auth.Integrator) error {
		next := *before
		set(&next.Name, u.Name)
		set(&next.BusinessVerified, u.BusinessVerified)
		set(&next.PayoutAddress, u.PayoutAddress)
		set(&next.SponsorWallet, u.SponsorWallet)
		set(&next.SponsorChainID, u.SponsorChainID)
		if err := auth.CheckIntegrator(&next); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE integrators SET name = $2, business_verified = $3, payout_address = $4,
			sponsor_wallet = $5, sponsor_chain_id = $6 WHERE id = $1`, id, next.Name, next.BusinessVerified,
			next.PayoutAddress, next.SponsorWallet, int64(next.SponsorChainID))
		return err
	})
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// ErrBalanceTooLow refuses an adjustment that would take a sponsorship balance below zero.
var ErrBalanceTooLow = errors.New("store: the sponsorship balance would go below zero")

// TopUpSponsorBalance adds funds the integrator paid in to its sponsorship balance (audited;
// by.Reason should name the payment). amount must be positive.
func (s *Store) TopUpSponsorBalance(ctx context.Context, id string, amount decimal.Decimal, by Actor) (*auth.Integrator, error) {
	if err := auth.CheckUSD("amount", amount); err != nil {
		return nil, err
	}
	if amount.IsNegative() {
		return nil, fmt.Errorf("%w: a top-up amount must be positive (use an adjustment to take funds off)", auth.ErrInvalid)
	}
	return s.moveSponsorBalance(ctx, id, amount, by, "integrator.sponsorship.top_up", "topup")
}

// AdjustSponsorBalance corrects a sponsorship balance by delta, up or down (audited; by.Reason
// is required). A balance never goes below zero: that is ErrBalanceTooLow.
func (s *Store) AdjustSponsorBalance(ctx context.Context, id string, delta decimal.Decimal, by Actor) (*auth.Integrator, error) {
	if err := auth.CheckUSD("delta", delta); err != nil {
		return nil, err
	}
	if by.Reason == "" {
		return nil, fmt.Errorf("%w: an adjustment needs a reason", auth.ErrInvalid)
	}
	return s.moveSponsorBalance(ctx, id, delta, by, "integrator.sponsorship.adjust", "adjust")
}

// moveSponsorBalance moves the balance by delta with its ledger row (kind) and its audit row, in
// one transaction over the locked integrator.
func (s *Store) moveSponsorBalance(ctx context.Context, id string, delta decimal.Decimal, by Actor, action, kind string) (*auth.Integrator, error) {
	return s.changeIntegrator(ctx, id, by, action, func(tx pgx.Tx, before *auth.Integrator) error {
		if before.SponsorBalanceUSD.Add(delta).IsNegative() {
			return ErrBalanceTooLow
		}
		var balance decimal.Decimal
		if err := tx.QueryRow(ctx, `UPDATE integrators SET sponsor_balance_usd = sponsor_balance_usd + $2::numeric WHERE id = $1
			RETURNING sponsor_balance_usd::text`, id, delta.String()).Scan(&balance); err != nil {
			return err
		}
		return insertLedger(ctx, tx, ledgerEntry{integratorID: id, kind: kind, amount: delta.Abs(), delta: delta,
			balance: balance, note: by.Reason})
	})
}

// changeIntegrator runs change on the integrator, locked, and audits it with the integrator
// before and after, all in one transaction.
func (s *Store) changeIntegrator(ctx context.Context, id string, by Actor, action string,
	change func(tx pgx.Tx, before *auth.Integrator) error) (*auth.Integrator, error) {
	if !isUUID(id) {
		return nil, ErrNotFound
	}
	var after *auth.Integrator
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := scanIntegrator(tx.QueryRow(ctx, integratorSelect+` WHERE i.id = $1 FOR UPDATE`, id))
		if err != nil {
			return notFound(err)
		}
		if err := change(tx, before); err != nil {
			return err
		}
		if after, err = scanIntegrator(tx.QueryRow(ctx, integratorSelect+` WHERE i.id = $1`, id)); err != nil {
			return err
		}
		return audit(ctx, tx, by, action, "integrator", id, before.View(), after.View())
	})
	if err != nil {
		return nil, err
	}
	return after, nil
}

// Integrator is one integrator; an unknown one is ErrNotFound.
func (s *Store) Integrator(ctx context.Context, id string) (*auth.Integrator, error) {
	if !isUUID(id) {
		return nil, ErrNotFound
	}
	in, err := scanIntegrator(s.pool.QueryRow(ctx, integratorSelect+` WHERE i.id = $1`, id))
	return in, readErr(err)
}

// Integrators lists every integrator, oldest first.
func (s *Store) Integrators(ctx context.Context) ([]*auth.Integrator, error) {
	rows, err := s.pool.Query(ctx, integratorSelect+` ORDER BY i.created_at, i.id`)
	if err != nil {
		return nil, readErr(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*auth.Integrator, error) { return scanIntegrator(r) })
	return out, readErr(err)
}

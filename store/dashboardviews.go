package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
)

// DashboardView is a saved view of the dashboard's requests: a named query of GET
// /dashboard/api/requests, shared by every user of its integrator (dashboard_views). Query maps
// a parameter to one value or a list; the API checks its keys before it is stored.
type DashboardView struct {
	ID        string                     `json:"id"`
	Name      string                     `json:"name"`
	Icon      string                     `json:"icon"`
	Colour    string                     `json:"colour"`
	Query     map[string]json.RawMessage `json:"query"`
	Sort      string                     `json:"sort,omitempty"`
	Columns   []string                   `json:"columns,omitempty"`
	Builtin   bool                       `json:"builtin"`
	CreatedBy string                     `json:"createdBy,omitempty"`
	CreatedAt *time.Time                 `json:"createdAt,omitempty"`
}

const dashboardViewCols = `id::text, name, icon, colour, query, sort, columns, coalesce(created_by::text, ''), created_at`

func scanDashboardView(row pgx.Row) (*DashboardView, error) {
	v := &DashboardView{}
	var query, columns []byte
	var at time.Time
	if err := row.Scan(&v.ID, &v.Name, &v.Icon, &v.Colour, &query, &v.Sort, &columns, &v.CreatedBy, &at); err != nil {
		return nil, err
	}
	v.CreatedAt = &at
	if err := json.Unmarshal(query, &v.Query); err != nil {
		return nil, err
	}
	if columns != nil {
		if err := json.Unmarshal(columns, &v.Columns); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// DashboardViews lists the integrator's saved views, oldest first.
func (s *Store) DashboardViews(ctx context.Context, integratorID string) ([]*DashboardView, error) {
	if !isUUID(integratorID) {
		return nil, ErrNotFound
	}
	rows, err := s.pool.Query(ctx, `SELECT `+dashboardViewCols+` FROM dashboard_views WHERE integrator_id = $1
		ORDER BY created_at, id`, integratorID)
	if err != nil {
		return nil, unavailable(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*DashboardView, error) { return scanDashboardView(r) })
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

// viewColumns is the columns' stored form: NULL when there are none.
func viewColumns(c []string) any {
	if c == nil {
		return nil
	}
	raw, _ := json.Marshal(c)
	return raw
}

// CreateDashboardView saves v for the integrator, made by the user createdBy (audited
// view.create).
func (s *Store) CreateDashboardView(ctx context.Context, integratorID, createdBy string, v DashboardView, by Actor) (*DashboardView, error) {
	if !isUUID(integratorID) || !isUUID(createdBy) {
		return nil, ErrNotFound
	}
	query, err := json.Marshal(v.Query)
	if err != nil {
		return nil, err
	}
	var out *DashboardView
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanDashboardView(tx.QueryRow(ctx, `INSERT INTO dashboard_views (id, integrator_id, name, icon, colour, query, sort,
			columns, created_by) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8) RETURNING `+dashboardViewCols,
			integratorID, v.Name, v.Icon, v.Colour, query, v.Sort, viewColumns(v.Columns), createdBy))
		if isForeignKeyViolation(err) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		return audit(ctx, tx, by, "view.create", "dashboard_view", out.ID, nil, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// changeDashboardView runs change on the integrator's view, locked, and audits it before and
// after (after nil: deleted) in one transaction. A view of another integrator is ErrNotFound.
func (s *Store) changeDashboardView(ctx context.Context, integratorID, viewID, action string, by Actor,
	change func(tx pgx.Tx, v *DashboardView) (*DashboardView, error)) (*DashboardView, error) {
	if !isUUID(integratorID) || !isUUID(viewID) {
		return nil, ErrNotFound
	}
	var after *DashboardView
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := scanDashboardView(tx.QueryRow(ctx, `SELECT `+dashboardViewCols+` FROM dashboard_views
			WHERE id = $1 AND integrator_id = $2 FOR UPDATE`, viewID, integratorID))
		if err != nil {
			return notFound(err)
		}
		if after, err = change(tx, before); err != nil {
			return err
		}
		var afterView any
		if after != nil {
			afterView = after
		}
		return audit(ctx, tx, by, action, "dashboard_view", viewID, before, afterView)
	})
	if err != nil {
		return nil, err
	}
	return after, nil
}

// UpdateDashboardView replaces the integrator's view with edit's result (audited view.update).
func (s *Store) UpdateDashboardView(ctx context.Context, integratorID, viewID string, edit func(*DashboardView) error, by Actor) (*DashboardView, error) {
	return s.changeDashboardView(ctx, integratorID, viewID, "view.update", by, func(tx pgx.Tx, before *DashboardView) (*DashboardView, error) {
		v := *before
		if err := edit(&v); err != nil {
			return nil, err
		}
		query, err := json.Marshal(v.Query)
		if err != nil {
			return nil, err
		}
		return scanDashboardView(tx.QueryRow(ctx, `UPDATE dashboard_views SET name = $2, icon = $3, colour = $4, query = $5, sort = $6,
			columns = $7 WHERE id = $1 RETURNING `+dashboardViewCols, viewID, v.Name, v.Icon, v.Colour, query, v.Sort, viewColumns(v.Columns)))
	})
}

// DeleteDashboardView deletes the integrator's view (audited view.delete).
func (s *Store) DeleteDashboardView(ctx context.Context, integratorID, viewID string, by Actor) error {
	_, err := s.changeDashboardView(ctx, integratorID, viewID, "view.delete", by, func(tx pgx.Tx, _ *DashboardView) (*DashboardView, error) {
		_, err := tx.Exec(ctx, `DELETE FROM dashboard_views WHERE id = $1`, viewID)
		return nil, err
	})
	return err
}

// RequestTransaction is one transaction of a request, as the read model holds it.
type RequestTransaction struct {
	Kind    string
	ChainID uint64
	Hash    string
}

// RequestTransactions lists a request's transactions (deposit, fill, refund, …) in the order
// they were recorded.
func (s *Store) RequestTransactions(ctx context.Context, requestID string) ([]RequestTransaction, error) {
	rows, err := s.pool.Query(ctx, `SELECT kind, chain_id, tx_hash FROM request_transactions WHERE request_id = $1 ORDER BY created_at, tx_hash`, requestID)
	if err != nil {
		return nil, unavailable(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (RequestTransaction, error) {
		var t RequestTransaction
		var chain int64
		err := r.Scan(&t.Kind, &chain, &t.Hash)
		t.ChainID = uint64(chain)
		return t, err
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

// SponsorshipEntry is one movement of an integrator's sponsorship balance (sponsorship_ledger).
type SponsorshipEntry struct {
	ID         int64
	At         time.Time
	Kind       string // topup, adjust, reserve, charge, release
	AmountUSD  decimal.Decimal
	DeltaUSD   decimal.Decimal
	BalanceUSD decimal.Decimal
	RequestID  string
	Note       string
}

// SponsorshipHistory lists the integrator's ledger rows, newest first, at most limit, those
// before the row id before when it is positive.
func (s *Store) SponsorshipHistory(ctx context.Context, integratorID string, limit int, before int64) ([]SponsorshipEntry, error) {
	if !isUUID(integratorID) {
		return nil, ErrNotFound
	}
	rows, err := s.pool.Query(ctx, `SELECT id, created_at, kind, amount_usd::text, delta_usd::text, balance_usd::text,
		coalesce(request_id, ''), note FROM sponsorship_ledger WHERE integrator_id = $1 AND ($2 <= 0 OR id < $2)
		ORDER BY id DESC LIMIT $3`, integratorID, before, limit)
	if err != nil {
		return nil, unavailable(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SponsorshipEntry, error) {
		var e SponsorshipEntry
		err := r.Scan(&e.ID, &e.At, &e.Kind, &e.AmountUSD, &e.DeltaUSD, &e.BalanceUSD, &e.RequestID, &e.Note)
		return e, err
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

// SetDashboardOperator marks the integrator's user as one of the engine's operators or not
// (audited dashboard_user.operator); only the admin API calls it.
func (s *Store) SetDashboardOperator(ctx context.Context, integratorID, userID string, operator bool, by Actor) (*auth.DashboardUser, error) {
	return s.changeDashboardUser(ctx, integratorID, userID, by, "dashboard_user.operator", func(tx pgx.Tx, _ *auth.DashboardUser) (bool, error) {
		_, err := tx.Exec(ctx, `UPDATE dashboard_users SET operator = $2 WHERE id = $1`, userID, operator)
		return false, err
	})
}

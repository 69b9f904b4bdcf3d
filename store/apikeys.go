package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/intentd/intentd/auth"
)

// NewKey is what a key is created with.
type NewKey struct {
	IntegratorID string
	Label        string
	Environment  string // "" is auth.DefaultEnvironment
	Tier         auth.Tier
	Limits       map[string]auth.Rate
	// Unlimited exempts the key from every rate limit: the development key only.
	Unlimited bool
}

// keyColumns are a key's columns and its integrator's, in scanKey's order, read from keyFrom.
const (
	keyColumns = `k.id::text, k.label, k.key_prefix, k.environment, k.tier, k.limits, k.unlimited, k.created_at,
	k.last_used_at, k.revoked_at, ` + integratorColumns
	keyFrom   = ` FROM api_keys k JOIN integrators i ON i.id = k.integrator_id`
	keySelect = `SELECT ` + keyColumns + keyFrom
)

func scanKey(row pgx.Row, extra ...any) (*auth.Key, error) {
	var k auth.Key
	dest := append([]any{&k.ID, &k.Label, &k.Prefix, &k.Environment, &k.Tier, &k.Limits, &k.Unlimited, &k.CreatedAt,
		&k.LastUsedAt, &k.RevokedAt}, integratorDest(&k.Integrator)...)
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	return &k, nil
}

// CreateAPIKey makes a key for an integrator and returns its value, which exists only in this
// answer: the database keeps its SHA-256 and a short prefix. The creation is audited. An
// unknown integrator is ErrNotFound; a refused field wraps auth.ErrInvalid.
func (s *Store) CreateAPIKey(ctx context.Context, in NewKey, by Actor) (value string, k *auth.Key, err error) {
	if in.Environment == "" {
		in.Environment = auth.DefaultEnvironment
	}
	if in.Tier == "" {
		in.Tier = auth.TierDefault
	}
	if in.Limits == nil {
		in.Limits = map[string]auth.Rate{}
	}
	if err := checkKey(in.Label, in.Environment, in.Tier, in.Limits); err != nil {
		return "", nil, err
	}
	if !isUUID(in.IntegratorID) {
		return "", nil, ErrNotFound
	}
	if value, err = auth.NewKeyValue(); err != nil {
		return "", nil, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var id string
		err := tx.QueryRow(ctx, `INSERT INTO api_keys (id, integrator_id, label, key_hash, key_prefix, environment, tier, limits, unlimited)
			VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8) RETURNING id::text`,
			in.IntegratorID, in.Label, auth.Hash(value), auth.DisplayPrefix(value), in.Environment, string(in.Tier), in.Limits,
			in.Unlimited).Scan(&id)
		if isForeignKeyViolation(err) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if k, err = scanKey(tx.QueryRow(ctx, keySelect+` WHERE k.id = $1`, id)); err != nil {
			return err
		}
		return audit(ctx, tx, by, "key.create", "key", k.ID, nil, k.View())
	})
	if err != nil {
		return "", nil, err
	}
	return value, k, nil
}

func checkKey(label, env string, tier auth.Tier, limits map[string]auth.Rate) error {
	if err := auth.CheckLabel("label", label, auth.MaxLabelLen); err != nil {
		return err
	}
	if err := auth.CheckEnvironment(env); err != nil {
		return err
	}
	return auth.CheckLimits(tier, limits)
}

// RenameAPIKey sets a key's label (audited). A key that is not the integrator's is ErrNotFound.
func (s *Store) RenameAPIKey(ctx context.Context, integratorID, keyID, label string, by Actor) (*auth.Key, error) {
	if err := auth.CheckLabel("label", label, auth.MaxLabelLen); err != nil {
		return nil, err
	}
	return s.changeKey(ctx, integratorID, keyID, by, "key.rename", func(tx pgx.Tx, _ *auth.Key) (bool, error) {
		_, err := tx.Exec(ctx, `UPDATE api_keys SET label = $2 WHERE id = $1`, keyID, label)
		return true, err
	})
}

// SetAPIKeyLimits sets a key's tier and own limits (audited): higher limits are granted on
// request. A key that is not the integrator's is ErrNotFound.
func (s *Store) SetAPIKeyLimits(ctx context.Context, integratorID, keyID string, tier auth.Tier, limits map[string]auth.Rate, by Actor) (*auth.Key, error) {
	if limits == nil {
		limits = map[string]auth.Rate{}
	}
	if err := auth.CheckLimits(tier, limits); err != nil {
		return nil, err
	}
	return s.changeKey(ctx, integratorID, keyID, by, "key.limits", func(tx pgx.Tx, _ *auth.Key) (bool, error) {
		_, err := tx.Exec(ctx, `UPDATE api_keys SET tier = $2, limits = $3 WHERE id = $1`, keyID, string(tier), limits)
		return true, err
	})
}

// RevokeAPIKey revokes a key for good (audited); every API process stops accepting it within
// auth.ResolverOptions.MaxAge. Revoking a revoked key changes nothing and is not audited again.
// A key that is not the integrator's is ErrNotFound.
func (s *Store) RevokeAPIKey(ctx context.Context, integratorID, keyID string, by Actor) (*auth.Key, error) {
	return s.changeKey(ctx, integratorID, keyID, by, "key.revoke", func(tx pgx.Tx, before *auth.Key) (bool, error) {
		if before.RevokedAt != nil {
			return false, nil
		}
		_, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = now() WHERE id = $1`, keyID)
		return true, err
	})
}

// changeKey runs change on the integrator's key, locked, and audits it with the key before and
// after, all in one transaction. change reports whether it changed anything.
func (s *Store) changeKey(ctx context.Context, integratorID, keyID string, by Actor, action string,
	change func(tx pgx.Tx, before *auth.Key) (bool, error)) (*auth.Key, error) {
	if !isUUID(integratorID) || !isUUID(keyID) {
		return nil, ErrNotFound
	}
	var after *auth.Key
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		const q = keySelect + ` WHERE k.id = $1 AND k.integrator_id = $2`
		before, err := scanKey(tx.QueryRow(ctx, q+` FOR UPDATE OF k`, keyID, integratorID))
		if err != nil {
			return notFound(err)
		}
		changed, err := change(tx, before)
		if err != nil || !changed {
			after = before
			return err
		}
		if after, err = scanKey(tx.QueryRow(ctx, q, keyID, integratorID)); err != nil {
			return err
		}
		return audit(ctx, tx, by, action, "key", keyID, before.View(), after.View())
	})
	if err != nil {
		return nil, err
	}
	return after, nil
}

// APIKeys lists an integrator's keys, revoked ones too, oldest first: never another
// integrator's, never a value or hash. An unknown integrator is ErrNotFound.
func (s *Store) APIKeys(ctx context.Context, integratorID string) ([]*auth.Key, error) {
	if _, err := s.Integrator(ctx, integratorID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, keySelect+` WHERE k.integrator_id = $1 ORDER BY k.created_at, k.id`, integratorID)
	if err != nil {
		return nil, readErr(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*auth.Key, error) { return scanKey(r) })
	return out, readErr(err)
}

// APIKey is one of an integrator's keys; a key that is not the integrator's is ErrNotFound.
func (s *Store) APIKey(ctx context.Context, integratorID, keyID string) (*auth.Key, error) {
	if !isUUID(integratorID) || !isUUID(keyID) {
		return nil, ErrNotFound
	}
	k, err := scanKey(s.pool.QueryRow(ctx, keySelect+` WHERE k.id = $1 AND k.integrator_id = $2`, keyID, integratorID))
	return k, readErr(err)
}

// KeyByHash finds the key stored under a SHA-256 hash, revoked or not, with the stored hash
// (auth.Source; the resolver compares the two in constant time and refuses revoked keys). No
// such key is nil, nil, nil; a database that cannot be reached is intent.ErrUnavailable.
func (s *Store) KeyByHash(ctx context.Context, hash []byte) (*auth.Key, []byte, error) {
	var stored []byte
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+`, k.key_hash`+keyFrom+` WHERE k.key_hash = $1`, hash), &stored)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil, nil
	case err != nil:
		return nil, nil, unavailable(err)
	}
	return k, stored, nil
}

// TouchKeys records when keys were last used, in one statement for the whole batch (auth.Source;
// the resolver calls it off the request path). A time never moves a key's last use back.
func (s *Store) TouchKeys(ctx context.Context, used map[string]time.Time) error {
	ids := make([]string, 0, len(used))
	ats := make([]time.Time, 0, len(used))
	for id, at := range used {
		ids, ats = append(ids, id), append(ats, at)
	}
	_, err := s.pool.Exec(ctx, `UPDATE api_keys k SET last_used_at = u.at FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
		WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`, ids, ats)
	if err != nil {
		return fmt.Errorf("touch %d api keys: %w", len(ids), unavailable(err))
	}
	return nil
}

func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

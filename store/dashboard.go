package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/intentd/intentd/auth"
)

// The integrator dashboard's accounts (migrations/0027_dashboard_accounts.sql, docs/dashboard.md):
// users, their sessions and one-time sign-in links, and the sign-in attempts the limits count.
// Every change of a user is audited in admin_audit like the admin API's changes; a session or a
// link is stored as its token's hash only, a password as its argon2id hash.

// ViaDashboard is where a change made by a signed-in dashboard user comes from.
const ViaDashboard = "dashboard"

// ErrEmailTaken refuses a dashboard user whose email another user already has.
var ErrEmailTaken = errors.New("store: a dashboard user already has this email")

// ErrLastOwner refuses a change that would leave an integrator without an owner.
var ErrLastOwner = errors.New("store: the integrator's last owner cannot be removed or demoted")

// DashboardActor is the audit trail's actor of a change a signed-in dashboard user makes.
func DashboardActor(u *auth.DashboardUser, remote string) Actor {
	return Actor{Name: u.Email + " (dashboard user " + u.ID + ")", Via: ViaDashboard, Remote: remote}
}

const dashboardUserCols = `u.id::text, u.integrator_id::text, u.email, u.role, u.password_hash IS NOT NULL, u.created_at, u.last_sign_in, u.operator`

func scanDashboardUser(row pgx.Row, extra ...any) (*auth.DashboardUser, error) {
	var u auth.DashboardUser
	var role string
	if err := row.Scan(append([]any{&u.ID, &u.IntegratorID, &u.Email, &role, &u.HasPassword, &u.CreatedAt, &u.LastSignIn, &u.Operator},
		extra...)...); err != nil {
		return nil, err
	}
	u.Role = auth.Role(role)
	return &u, nil
}

// CreateDashboardUser adds a user to an integrator's dashboard (audited), without a password
// when passwordHash is "" (the user then signs in by a one-time link and may set one). An
// unknown integrator is ErrNotFound, an email in use ErrEmailTaken.
func (s *Store) CreateDashboardUser(ctx context.Context, integratorID, email string, role auth.Role, passwordHash string, by Actor) (*auth.DashboardUser, error) {
	email, err := auth.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	if err := auth.CheckRole(role); err != nil {
		return nil, err
	}
	if !isUUID(integratorID) {
		return nil, ErrNotFound
	}
	var hash *string
	if passwordHash != "" {
		hash = &passwordHash
	}
	var u *auth.DashboardUser
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var id string
		err := tx.QueryRow(ctx, `INSERT INTO dashboard_users (id, integrator_id, email, role, password_hash)
			VALUES (gen_random_uuid(), $1, $2, $3, $4) RETURNING id::text`, integratorID, email, string(role), hash).Scan(&id)
		switch {
		case isForeignKeyViolation(err):
			return ErrNotFound
		case isUniqueViolation(err):
			return ErrEmailTaken
		case err != nil:
			return err
		}
		if u, err = scanDashboardUser(tx.QueryRow(ctx, `SELECT `+dashboardUserCols+` FROM dashboard_users u WHERE u.id = $1`, id)); err != nil {
			return err
		}
		return audit(ctx, tx, by, "dashboard_user.create", "dashboard_user", u.ID, nil, u.View())
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// DashboardUsers lists an integrator's dashboard users, oldest first.
func (s *Store) DashboardUsers(ctx context.Context, integratorID string) ([]*auth.DashboardUser, error) {
	if !isUUID(integratorID) {
		return nil, ErrNotFound
	}
	rows, err := s.pool.Query(ctx, `SELECT `+dashboardUserCols+` FROM dashboard_users u WHERE u.integrator_id = $1
		ORDER BY u.created_at, u.id`, integratorID)
	if err != nil {
		return nil, readErr(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*auth.DashboardUser, error) { return scanDashboardUser(r) })
	return out, readErr(err)
}

// DashboardUserByEmail is the user an email signs in as, with its password's hash ("" for none);
// no such user is nil, "", nil.
func (s *Store) DashboardUserByEmail(ctx context.Context, email string) (*auth.DashboardUser, string, error) {
	var hash *string
	u, err := scanDashboardUser(s.pool.QueryRow(ctx, `SELECT `+dashboardUserCols+`, u.password_hash FROM dashboard_users u
		WHERE u.email = $1`, email), &hash)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, "", nil
	case err != nil:
		return nil, "", unavailable(err)
	}
	return u, val(hash), nil
}

func val[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}

// changeDashboardUser runs change on the integrator's user, locked, and audits it with the user
// before and after (after nil: removed), in one transaction.
func (s *Store) changeDashboardUser(ctx context.Context, integratorID, userID string, by Actor, action string,
	change func(tx pgx.Tx, before *auth.DashboardUser) (removed bool, err error)) (*auth.DashboardUser, error) {
	if !isUUID(integratorID) || !isUUID(userID) {
		return nil, ErrNotFound
	}
	var after *auth.DashboardUser
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		const q = `SELECT ` + dashboardUserCols + ` FROM dashboard_users u WHERE u.id = $1 AND u.integrator_id = $2`
		before, err := scanDashboardUser(tx.QueryRow(ctx, q+` FOR UPDATE`, userID, integratorID))
		if err != nil {
			return notFound(err)
		}
		removed, err := change(tx, before)
		if err != nil {
			return err
		}
		var afterView any
		if !removed {
			if after, err = scanDashboardUser(tx.QueryRow(ctx, q, userID, integratorID)); err != nil {
				return err
			}
			afterView = after.View()
		}
		return audit(ctx, tx, by, action, "dashboard_user", userID, before.View(), afterView)
	})
	if err != nil {
		return nil, err
	}
	return after, nil
}

// lockOwners locks the integrator's owners and fails with ErrLastOwner when user is the only one:
// an integrator always keeps an owner to manage its team.
func lockOwners(ctx context.Context, tx pgx.Tx, integratorID string, user *auth.DashboardUser) error {
	if user.Role != auth.RoleOwner {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT id::text FROM dashboard_users WHERE integrator_id = $1 AND role = 'owner' ORDER BY id FOR UPDATE`,
		integratorID)
	if err != nil {
		return err
	}
	owners, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	if len(owners) <= 1 {
		return ErrLastOwner
	}
	return nil
}

// SetDashboardUserRole changes a user's role (audited); the last owner keeps theirs
// (ErrLastOwner). The role is read at every request, so it applies to the user's sessions at once.
func (s *Store) SetDashboardUserRole(ctx context.Context, integratorID, userID string, role auth.Role, by Actor) (*auth.DashboardUser, error) {
	if err := auth.CheckRole(role); err != nil {
		return nil, err
	}
	return s.changeDashboardUser(ctx, integratorID, userID, by, "dashboard_user.role", func(tx pgx.Tx, before *auth.DashboardUser) (bool, error) {
		if role != auth.RoleOwner {
			if err := lockOwners(ctx, tx, integratorID, before); err != nil {
				return false, err
			}
		}
		_, err := tx.Exec(ctx, `UPDATE dashboard_users SET role = $2 WHERE id = $1`, userID, string(role))
		return false, err
	})
}

// RemoveDashboardUser deletes a user with their sessions and links (audited); the last owner
// stays (ErrLastOwner).
func (s *Store) RemoveDashboardUser(ctx context.Context, integratorID, userID string, by Actor) error {
	_, err := s.changeDashboardUser(ctx, integratorID, userID, by, "dashboard_user.remove", func(tx pgx.Tx, before *auth.DashboardUser) (bool, error) {
		if err := lockOwners(ctx, tx, integratorID, before); err != nil {
			return false, err
		}
		_, err := tx.Exec(ctx, `DELETE FROM dashboard_users WHERE id = $1`, userID)
		return true, err
	})
	return err
}

// SetDashboardPassword sets a user's password hash (audited, the hash never in the trail) and
// ends the user's other sessions, keeping keepSession's (the hash of the session that made the
// change; nil: none kept).
func (s *Store) SetDashboardPassword(ctx context.Context, integratorID, userID, passwordHash string, keepSession []byte, by Actor) (*auth.DashboardUser, error) {
	return s.changeDashboardUser(ctx, integratorID, userID, by, "dashboard_user.password", func(tx pgx.Tx, _ *auth.DashboardUser) (bool, error) {
		if _, err := tx.Exec(ctx, `UPDATE dashboard_users SET password_hash = $2 WHERE id = $1`, userID, passwordHash); err != nil {
			return false, err
		}
		_, err := tx.Exec(ctx, `DELETE FROM dashboard_sessions WHERE user_id = $1 AND token_hash IS DISTINCT FROM $2`, userID, keepSession)
		return false, err
	})
}

// IssueDashboardLink stores a one-time sign-in link for the integrator's user by its token's
// hash, usable once until expiresAt (audited, never the token).
func (s *Store) IssueDashboardLink(ctx context.Context, integratorID, userID string, tokenHash []byte, expiresAt time.Time, by Actor) error {
	if !isUUID(integratorID) || !isUUID(userID) {
		return ErrNotFound
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO dashboard_links (token_hash, user_id, expires_at)
			SELECT $1, id, $3 FROM dashboard_users WHERE id = $2 AND integrator_id = $4`, tokenHash, userID, expiresAt, integratorID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		// Links past their use are dropped as new ones are issued: the table holds the live ones.
		if _, err := tx.Exec(ctx, `DELETE FROM dashboard_links WHERE expires_at < now() - interval '1 day'`); err != nil {
			return err
		}
		return audit(ctx, tx, by, "dashboard_user.link", "dashboard_user", userID, nil, map[string]any{"expiresAt": expiresAt})
	})
}

// UseDashboardLink spends a one-time link: the user it signs in, once, before it expires. A link
// unknown, used or expired is ErrNotFound, the three alike.
func (s *Store) UseDashboardLink(ctx context.Context, tokenHash []byte) (*auth.DashboardUser, error) {
	u, err := scanDashboardUser(s.pool.QueryRow(ctx, `WITH used AS (
			UPDATE dashboard_links SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id)
		SELECT `+dashboardUserCols+` FROM dashboard_users u JOIN used ON used.user_id = u.id`, tokenHash))
	return u, readErr(err)
}

// CreateDashboardSession stores a session of the user by its token's hash until expiresAt, and
// records the sign-in.
func (s *Store) CreateDashboardSession(ctx context.Context, userID string, tokenHash []byte, expiresAt time.Time, remote string) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO dashboard_sessions (token_hash, user_id, expires_at, remote) VALUES ($1, $2, $3, $4)`,
			tokenHash, userID, expiresAt, remote); err != nil {
			if isForeignKeyViolation(err) {
				return ErrNotFound
			}
			return err
		}
		// Expired sessions are dropped as new ones start: the table holds the live ones.
		if _, err := tx.Exec(ctx, `DELETE FROM dashboard_sessions WHERE expires_at < now() - interval '1 day'`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE dashboard_users SET last_sign_in = now() WHERE id = $1`, userID)
		return err
	})
}

// DashboardSession is the user of a live session, by its token's hash: ErrNotFound for a session
// unknown, ended or expired. The user is read afresh, so a role change applies at once.
func (s *Store) DashboardSession(ctx context.Context, tokenHash []byte) (*auth.DashboardUser, error) {
	u, err := scanDashboardUser(s.pool.QueryRow(ctx, `SELECT `+dashboardUserCols+` FROM dashboard_sessions x
		JOIN dashboard_users u ON u.id = x.user_id WHERE x.token_hash = $1 AND x.expires_at > now()`, tokenHash))
	return u, readErr(err)
}

// EndDashboardSession ends a session (sign-out); ending one that is not live changes nothing.
func (s *Store) EndDashboardSession(ctx context.Context, tokenHash []byte) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM dashboard_sessions WHERE token_hash = $1`, tokenHash)
	return unavailable(err)
}

// SignInCount is how many attempts a subject made within the window, this one included, and
// when the oldest of them was made.
type SignInCount struct {
	Count  int
	Oldest time.Time
}

// signInSubject is what an attempt is counted under, hashed: the table is no list of the emails
// and addresses that tried to sign in.
func signInSubject(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// AdmitSignInAttempt counts one sign-in attempt under each subject (e.g. "email:a@b.c",
// "ip:198.51.100.7"), each allowed limits[i] attempts within window. It answers whether the
// attempt is admitted, and per subject the attempts within the window (this one included when
// admitted) and the oldest of them. A refused attempt is not recorded: it tried no password, so
// a subject is free again as soon as its oldest admitted attempt leaves the window. Each subject
// is locked for the count, so concurrent attempts are each counted; attempts older than the
// window are dropped.
func (s *Store) AdmitSignInAttempt(ctx context.Context, subjects []string, limits []int, window time.Duration) ([]SignInCount, bool, error) {
	hashes := make([][]byte, len(subjects))
	for i, sub := range subjects {
		hashes[i] = signInSubject(sub)
	}
	order := slices.Clone(hashes)
	slices.SortFunc(order, func(a, b []byte) int { return slices.Compare(a, b) }) // locks in one order: no deadlock
	out := make([]SignInCount, len(subjects))
	admitted := true
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		for _, h := range order {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(('x' || encode(substr($1::bytea, 1, 8), 'hex'))::bit(64)::bigint)`, h); err != nil {
				return err
			}
		}
		// The window is the database's clock, the one that dates the attempts.
		secs := window.Seconds()
		if _, err := tx.Exec(ctx, `DELETE FROM dashboard_signin_attempts WHERE at < now() - make_interval(secs => $1)`, secs); err != nil {
			return err
		}
		for i, h := range hashes {
			var oldest *time.Time
			if err := tx.QueryRow(ctx, `SELECT count(*), min(at) FROM dashboard_signin_attempts WHERE subject = $1
				AND at >= now() - make_interval(secs => $2)`, h, secs).Scan(&out[i].Count, &oldest); err != nil {
				return err
			}
			if oldest != nil {
				out[i].Oldest = *oldest
			}
			if out[i].Count >= limits[i] {
				admitted = false
			}
		}
		if !admitted {
			return nil
		}
		for i, h := range hashes {
			var at time.Time
			if err := tx.QueryRow(ctx, `INSERT INTO dashboard_signin_attempts (subject) VALUES ($1) RETURNING at`, h).Scan(&at); err != nil {
				return err
			}
			if out[i].Count++; out[i].Oldest.IsZero() {
				out[i].Oldest = at
			}
		}
		return nil
	})
	return out, admitted, err
}

// ForgetSignInAttempts drops a subject's attempts: a successful sign-in does not count against
// its email.
func (s *Store) ForgetSignInAttempts(ctx context.Context, subject string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM dashboard_signin_attempts WHERE subject = $1`, signInSubject(subject))
	return unavailable(err)
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// QueueTestDelivery queues a delivery of body (event) to the webhook of integratorID's key
// keyID, as the dispatcher sends any other (signed, retried, in the delivery log), audited; it
// answers the delivery's id. A key without a webhook is ErrNotFound; a disabled webhook's test
// waits, as its other deliveries do, until it is enabled. A test delivery names no event of the
// outbox (outbox_id 0) and no request ("test").
func (s *Store) QueueTestDelivery(ctx context.Context, integratorID, keyID, event string, body []byte, by Actor) (int64, error) {
	var id int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := keyOfIntegrator(ctx, tx, integratorID, keyID); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `INSERT INTO webhook_deliveries (outbox_id, api_key_id, request_id, event, body)
			SELECT 0, api_key_id, 'test', $2, $3 FROM webhooks WHERE api_key_id = $1 RETURNING id`, keyID, event, body).Scan(&id)
		if err != nil {
			return notFound(err)
		}
		return audit(ctx, tx, by, "webhook.test", "api_key", keyID, nil, map[string]any{"deliveryId": id})
	})
	return id, err
}

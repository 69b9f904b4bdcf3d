package store_test

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

var operator = store.Actor{Name: "alice", Via: store.ViaCLI}

func newIntegrator(t *testing.T, st *store.Store, name string) *auth.Integrator {
	t.Helper()
	in, err := st.CreateIntegrator(context.Background(), auth.Integrator{Name: name}, operator)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func newKey(t *testing.T, st *store.Store, integratorID, label string) (string, *auth.Key) {
	t.Helper()
	v, k, err := st.CreateAPIKey(context.Background(), store.NewKey{IntegratorID: integratorID, Label: label}, operator)
	if err != nil {
		t.Fatal(err)
	}
	return v, k
}

// dump is every row of the tables that hold keys, integrators and the audit trail, as text.
func dump(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var s string
	err := pool.QueryRow(context.Background(), `SELECT concat_ws(E'\n',
		(SELECT string_agg(k::text, E'\n') FROM api_keys k), (SELECT string_agg(i::text, E'\n') FROM integrators i),
		(SELECT string_agg(a::text, E'\n') FROM admin_audit a))`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// auditRows are the audit trail of one target: action, actor, before and after as JSON text.
func auditRows(t *testing.T, pool *pgxpool.Pool, target string) [][4]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT action, actor, coalesce(before::text, ''), coalesce(after::text, '')
		FROM admin_audit WHERE target_id = $1 ORDER BY id`, target)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][4]string
	for rows.Next() {
		var r [4]string
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestAPIKeyIsShownOnceAndStoredAsItsHash(t *testing.T) {
	pool := testenv.Pool(t)
	st := store.New(pool)
	ctx := context.Background()
	in := newIntegrator(t, st, "acme")
	value, k := newKey(t, st, in.ID, "server")
	if !auth.WellFormed(value) || !strings.HasPrefix(value, "ik_") || len(value) != 67 {
		t.Fatalf("value %q is not ik_ + 64 hex", value)
	}
	if k.Prefix != value[:9] || k.Label != "server" || k.Environment != "production" || k.Tier != auth.TierDefault ||
		k.Unlimited || k.Integrator.ID != in.ID || k.LastUsedAt != nil || k.RevokedAt != nil {
		t.Fatalf("key %+v", k)
	}
	// The database holds the hash (in api_keys.key_hash only), never the value nor its random
	// part; the audit trail holds neither.
	all := dump(t, pool)
	if strings.Contains(all, value[3:]) || strings.Count(all, hex.EncodeToString(auth.Hash(value))) != 1 {
		t.Fatalf("key value or hash in the tables:\n%s", all)
	}
	got, stored, err := st.KeyByHash(ctx, auth.Hash(value))
	if err != nil || got == nil || got.ID != k.ID || string(stored) != string(auth.Hash(value)) {
		t.Fatalf("KeyByHash: %+v %x %v", got, stored, err)
	}
	if got, _, err := st.KeyByHash(ctx, auth.Hash("ik_"+strings.Repeat("0", 64))); got != nil || err != nil {
		t.Fatalf("unknown hash: %+v %v", got, err)
	}
	if rows := auditRows(t, pool, k.ID); len(rows) != 1 || rows[0][0] != "key.create" || rows[0][1] != "alice" || rows[0][2] != "" ||
		!strings.Contains(rows[0][3], `"label": "server"`) {
		t.Fatalf("audit %v", rows)
	}
}

func TestAPIKeyChangesAreAuditedAndScopedToTheIntegrator(t *testing.T) {
	pool := testenv.Pool(t)
	st := store.New(pool)
	ctx := context.Background()
	acme, other := newIntegrator(t, st, "acme"), newIntegrator(t, st, "other")
	_, k := newKey(t, st, acme.ID, "server")
	_, theirs := newKey(t, st, other.ID, "theirs")

	renamed, err := st.RenameAPIKey(ctx, acme.ID, k.ID, "backend", operator)
	if err != nil || renamed.Label != "backend" {
		t.Fatalf("rename: %+v %v", renamed, err)
	}
	limits := map[string]auth.Rate{"quote": {Count: 600, Period: time.Minute}}
	limited, err := st.SetAPIKeyLimits(ctx, acme.ID, k.ID, auth.TierCustom, limits, operator)
	if err != nil || limited.Tier != auth.TierCustom || limited.Limits["quote"] != limits["quote"] {
		t.Fatalf("limits: %+v %v", limited, err)
	}
	revoked, err := st.RevokeAPIKey(ctx, acme.ID, k.ID, operator)
	if err != nil || revoked.RevokedAt == nil {
		t.Fatalf("revoke: %+v %v", revoked, err)
	}
	if again, err := st.RevokeAPIKey(ctx, acme.ID, k.ID, operator); err != nil || !again.RevokedAt.Equal(*revoked.RevokedAt) {
		t.Fatalf("revoke again: %+v %v", again, err)
	}
	rows := auditRows(t, pool, k.ID)
	if len(rows) != 4 || rows[1][0] != "key.rename" || rows[2][0] != "key.limits" || rows[3][0] != "key.revoke" {
		t.Fatalf("audit %v", rows)
	}
	if !strings.Contains(rows[1][2], `"label": "server"`) || !strings.Contains(rows[1][3], `"label": "backend"`) ||
		!strings.Contains(rows[3][2], `"revokedAt": null`) || strings.Contains(rows[3][3], `"revokedAt": null`) {
		t.Fatalf("audit before/after %v", rows)
	}

	// Another integrator's key is not found through this one, for every operation.
	if _, err := st.RenameAPIKey(ctx, acme.ID, theirs.ID, "mine now", operator); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("rename another's key: %v", err)
	}
	if _, err := st.RevokeAPIKey(ctx, acme.ID, theirs.ID, operator); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoke another's key: %v", err)
	}
	if _, err := st.APIKey(ctx, acme.ID, theirs.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get another's key: %v", err)
	}
	list, err := st.APIKeys(ctx, acme.ID)
	if err != nil || len(list) != 1 || list[0].ID != k.ID {
		t.Fatalf("acme's keys: %+v %v", list, err)
	}
	if _, err := st.APIKeys(ctx, "00000000-0000-4000-8000-000000000000"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown integrator: %v", err)
	}
	if _, err := st.APIKeys(ctx, "not-a-uuid"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("malformed integrator id: %v", err)
	}

	// Refused values and a missing actor change nothing.
	for name, err := range map[string]error{
		"empty label":       second(st.RenameAPIKey(ctx, other.ID, theirs.ID, " ", operator)),
		"unknown tier":      second(st.SetAPIKeyLimits(ctx, other.ID, theirs.ID, "gold", nil, operator)),
		"custom, no limits": second(st.SetAPIKeyLimits(ctx, other.ID, theirs.ID, auth.TierCustom, nil, operator)),
		"bad environment":   third(st.CreateAPIKey(ctx, store.NewKey{IntegratorID: other.ID, Label: "x", Environment: "Prod!"}, operator)),
	} {
		if !errors.Is(err, auth.ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := st.RenameAPIKey(ctx, other.ID, theirs.ID, "x", store.Actor{Via: store.ViaCLI}); !errors.Is(err, store.ErrNoActor) {
		t.Errorf("no actor: %v", err)
	}
	if _, _, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: "00000000-0000-4000-8000-000000000000", Label: "x"}, operator); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("key of an unknown integrator: %v", err)
	}
	if rows := auditRows(t, pool, theirs.ID); len(rows) != 1 {
		t.Fatalf("refused changes were audited: %v", rows)
	}
}

func second[A, B any](_ A, b B) B        { return b }
func third[A, B, C any](_ A, _ B, c C) C { return c }

func TestTouchKeysNeverMovesLastUseBack(t *testing.T) {
	st := store.New(testenv.Pool(t))
	ctx := context.Background()
	in := newIntegrator(t, st, "acme")
	_, a := newKey(t, st, in.ID, "a")
	_, b := newKey(t, st, in.ID, "b")
	t1 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if err := st.TouchKeys(ctx, map[string]time.Time{a.ID: t1, b.ID: t1}); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchKeys(ctx, map[string]time.Time{a.ID: t1.Add(-time.Hour), b.ID: t1.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	ka, _ := st.APIKey(ctx, in.ID, a.ID)
	kb, _ := st.APIKey(ctx, in.ID, b.ID)
	if ka.LastUsedAt == nil || !ka.LastUsedAt.Equal(t1) || kb.LastUsedAt == nil || !kb.LastUsedAt.Equal(t1.Add(time.Hour)) {
		t.Fatalf("last used %v %v", ka.LastUsedAt, kb.LastUsedAt)
	}
}

func TestIntegratorProfileAndSponsorshipBalance(t *testing.T) {
	pool := testenv.Pool(t)
	st := store.New(pool)
	ctx := context.Background()
	payout := "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: "acme", BusinessVerified: true, PayoutAddress: payout,
		SponsorBalanceUSD: decimal.NewFromInt(1_000_000)}, operator)
	if err != nil {
		t.Fatal(err)
	}
	if in.PayoutAddress != "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" || !in.SponsorBalanceUSD.IsZero() {
		t.Fatalf("created %+v: the address in checksum form, and no balance but by a top-up", in)
	}
	wallet, chain := "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", uint64(31337)
	up, err := st.UpdateIntegrator(ctx, in.ID, store.IntegratorUpdate{SponsorWallet: &wallet, SponsorChainID: &chain}, operator)
	if err != nil || up.SponsorWallet != wallet || up.SponsorChainID != chain || !up.BusinessVerified || up.Name != "acme" {
		t.Fatalf("update: %+v %v", up, err)
	}
	if _, err := st.UpdateIntegrator(ctx, in.ID, store.IntegratorUpdate{SponsorWallet: ptr("")}, operator); !errors.Is(err, auth.ErrInvalid) {
		t.Fatalf("a wallet without its chain: %v", err)
	}

	by := operator
	by.Reason = "wire 4711"
	topped, err := st.TopUpSponsorBalance(ctx, in.ID, decimal.RequireFromString("250.50"), by)
	if err != nil || !topped.SponsorBalanceUSD.Equal(decimal.RequireFromString("250.5")) {
		t.Fatalf("top-up: %+v %v", topped, err)
	}
	if _, err := st.TopUpSponsorBalance(ctx, in.ID, decimal.RequireFromString("-1"), by); !errors.Is(err, auth.ErrInvalid) {
		t.Fatalf("negative top-up: %v", err)
	}
	if _, err := st.AdjustSponsorBalance(ctx, in.ID, decimal.RequireFromString("-0.5"), operator); !errors.Is(err, auth.ErrInvalid) {
		t.Fatalf("adjustment without a reason: %v", err)
	}
	by.Reason = "refund of a double top-up"
	if _, err := st.AdjustSponsorBalance(ctx, in.ID, decimal.RequireFromString("-250.51"), by); !errors.Is(err, store.ErrBalanceTooLow) {
		t.Fatalf("adjustment below zero: %v", err)
	}
	adj, err := st.AdjustSponsorBalance(ctx, in.ID, decimal.RequireFromString("-0.5"), by)
	if err != nil || !adj.SponsorBalanceUSD.Equal(decimal.NewFromInt(250)) {
		t.Fatalf("adjust: %+v %v", adj, err)
	}
	rows := auditRows(t, pool, in.ID)
	if len(rows) != 4 || rows[2][0] != "integrator.sponsorship.top_up" || rows[3][0] != "integrator.sponsorship.adjust" ||
		!strings.Contains(rows[3][2], `"sponsorBalanceUsd": "250.5"`) || !strings.Contains(rows[3][3], `"sponsorBalanceUsd": "250"`) {
		t.Fatalf("audit %v", rows)
	}
	var reason string
	if err := pool.QueryRow(ctx, `SELECT reason FROM admin_audit WHERE target_id = $1 ORDER BY id DESC LIMIT 1`, in.ID).Scan(&reason); err != nil || reason != by.Reason {
		t.Fatalf("reason %q %v", reason, err)
	}
	list, err := st.Integrators(ctx)
	if err != nil || len(list) != 1 || list[0].ID != in.ID {
		t.Fatalf("list %+v %v", list, err)
	}
}

func ptr[T any](v T) *T { return &v }

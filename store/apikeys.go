package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// APIKey is a stored key: never the key itself, only its hash and a short prefix.
type APIKey struct {
	ID         string
	Name       string
	Prefix     string
	Integrator string
	CreatedAt  time.Time
	// BusinessVerified and PayoutAddress make the key's integrator eligible for the platform
	// fee's revenue share (with enough trailing volume).
	BusinessVerified bool
	PayoutAddress    string
}

// keyPrefix marks the project's keys so a leaked one is easy to recognise in scanners.
const keyPrefix = "ik_"

// HashAPIKey is how keys are stored and looked up: SHA-256 of the full key. Keys carry 256 bits
// of entropy, so a plain hash is enough (no password stretching needed).
func HashAPIKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// CreateAPIKey makes a new key and returns it in plain text once; only the hash is stored.
func (s *Store) CreateAPIKey(ctx context.Context, name, integrator string) (plain string, k APIKey, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", APIKey{}, err
	}
	plain = keyPrefix + hex.EncodeToString(b[:])
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", APIKey{}, err
	}
	id[6] = (id[6] & 0x0f) | 0x40 // UUID v4
	id[8] = (id[8] & 0x3f) | 0x80
	k = APIKey{Name: name, Prefix: plain[:len(keyPrefix)+6], Integrator: integrator}
	err = s.pool.QueryRow(ctx, `INSERT INTO api_keys (id, name, key_hash, key_prefix, integrator) VALUES ($1, $2, $3, $4, $5)
		RETURNING id::text, created_at`, id, name, HashAPIKey(plain), k.Prefix, integrator).Scan(&k.ID, &k.CreatedAt)
	return plain, k, err
}

// APIKeyByPlain resolves a presented key; revoked and unknown keys are ErrNotFound.
func (s *Store) APIKeyByPlain(ctx context.Context, plain string) (*APIKey, error) {
	return s.APIKeyByHash(ctx, HashAPIKey(plain))
}

// APIKeyByHash resolves a key by its SHA-256 hash; revoked and unknown keys are ErrNotFound.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (*APIKey, error) {
	var k APIKey
	err := s.pool.QueryRow(ctx, `SELECT id::text, name, key_prefix, integrator, created_at, business_verified, payout_address
		FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`, hash).Scan(&k.ID, &k.Name, &k.Prefix, &k.Integrator,
		&k.CreatedAt, &k.BusinessVerified, &k.PayoutAddress)
	if err != nil {
		return nil, notFound(err)
	}
	return &k, nil
}

// SetIntegratorProfile records a key's revenue-share profile: business verification and the EVM
// address platform-fee shares are paid to.
func (s *Store) SetIntegratorProfile(ctx context.Context, keyID string, verified bool, payout string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET business_verified = $2, payout_address = $3 WHERE id = $1`, keyID, verified, payout)
	if err == nil && tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return err
}

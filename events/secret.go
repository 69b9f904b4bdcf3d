package events

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/intentd/intentd/store"
)

// SecretPrefix starts every webhook signing secret, so one is recognised in a receiver's
// configuration (and by secret scanners).
const SecretPrefix = "whsec_"

// NewSecret returns a new webhook signing secret: SecretPrefix and 32 random bytes, base64url.
// Receivers key their HMAC with the whole string's bytes.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// ShownPrefix is the part of a secret the admin API shows after its creation.
func ShownPrefix(secret string) string {
	if len(secret) <= len(SecretPrefix)+4 {
		return secret
	}
	return secret[:len(SecretPrefix)+4]
}

// Sealer seals webhook secrets and custom headers for the database (AES-256-GCM under
// WEBHOOK_SECRETS_KEY, a key the database never sees): the dispatcher must sign with a secret,
// so unlike an API key it cannot be stored hashed, and a copy of the database alone does not
// let anyone forge deliveries.
//
// A sealed value is bound to its place (review L15): its associated data is the API key id of
// the webhook and the field (Field), so a sealed value copied onto another key's webhook, or
// from the headers into the secret, does not open there. It names the key that sealed it (a key
// id derived from the key), so the key can be rotated: values are sealed under the current key
// and opened under whichever of the current and previous keys (WEBHOOK_SECRETS_PREVIOUS_KEYS)
// sealed them, and `intentd admin webhooks reseal` re-seals every row under the current key.
//
//	sealed = 0x01 ‖ key id (4 bytes) ‖ nonce (12) ‖ ciphertext and tag
//	AAD    = "intentd webhook v1" ‖ 0x00 ‖ len(api key id) (2 bytes, big-endian) ‖ api key id ‖ field
//
// Values sealed before this format (nonce ‖ ciphertext, one constant associated data for every
// row) still open while OpenUnversioned is set (WEBHOOK_SECRETS_OPEN_UNVERSIONED, on by
// default; turn it off once `reseal` has run, so no value is opened without its binding).
type Sealer struct {
	// keys are the current key, which seals, then the previous keys, which only open
	// (WEBHOOK_SECRETS_PREVIOUS_KEYS), newest first.
	keys []sealKey
	// OpenUnversioned opens values sealed in the format before the version byte.
	OpenUnversioned bool
}

// sealKey is one key and its id.
type sealKey struct {
	id   [keyIDLen]byte
	aead cipher.AEAD
}

// keyIDLen is the length of a key id.
const keyIDLen = 4

// Field names what a sealed value is, in its associated data.
type Field string

// The sealed fields of a webhook. A previous secret is sealed as FieldSecret: rotation moves the
// current secret into previous_secret as it is, without opening it.
const (
	FieldSecret  Field = "secret"
	FieldHeaders Field = "headers"
)

// sealVersion starts every sealed value of the current format.
const sealVersion = 0x01

// unversionedAAD is the one associated data of values sealed before the format had a version.
var unversionedAAD = []byte("intentd webhook secret")

// NewSealer makes a sealer from the current 32-byte key and the previous keys that still open
// values sealed under them (newest first). It opens unversioned values (OpenUnversioned).
func NewSealer(key []byte, previous ...[]byte) (*Sealer, error) {
	s := &Sealer{OpenUnversioned: true}
	for i, k := range append([][]byte{key}, previous...) {
		sk, err := newSealKey(k)
		if err != nil {
			if i > 0 {
				err = fmt.Errorf("previous key %d: %w", i, err)
			}
			return nil, err
		}
		s.keys = append(s.keys, sk)
	}
	return s, nil
}

func newSealKey(key []byte) (sealKey, error) {
	if len(key) != 32 {
		return sealKey{}, fmt.Errorf("the webhook secrets key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return sealKey{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return sealKey{}, err
	}
	return sealKey{id: KeyID(key), aead: aead}, nil
}

// KeyID is the id a sealed value names its key by: the first 4 bytes of SHA-256 over a label
// and the key. It tells keys apart and reveals nothing usable about the key.
func KeyID(key []byte) [keyIDLen]byte {
	h := sha256.Sum256(append([]byte("intentd webhook secrets key id\x00"), key...))
	return [keyIDLen]byte(h[:keyIDLen])
}

// sealAAD is the associated data of a value of field on apiKeyID's webhook. The id is taken in
// its canonical form (lower-case, hyphenated), the one the database answers with, so a value
// sealed for an id written otherwise still opens.
func sealAAD(apiKeyID string, field Field) []byte {
	if id, err := uuid.Parse(apiKeyID); err == nil {
		apiKeyID = id.String()
	}
	b := make([]byte, 0, 32+len(apiKeyID)+len(field))
	b = append(b, "intentd webhook v1\x00"...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(apiKeyID)))
	b = append(b, apiKeyID...)
	return append(b, field...)
}

// ParseSecretsKey reads WEBHOOK_SECRETS_KEY: 32 bytes as 64 hex digits or as base64.
func ParseSecretsKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(strings.TrimPrefix(s, "0x")); err == nil && len(b) == 32 {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == 32 {
			return b, nil
		}
	}
	return nil, errors.New("must be 32 bytes, as 64 hex digits or base64")
}

// ParseSecretsKeys reads WEBHOOK_SECRETS_PREVIOUS_KEYS: keys as ParseSecretsKey reads them,
// comma-separated, newest first; empty is none.
func ParseSecretsKeys(s string) ([][]byte, error) {
	var out [][]byte
	for i, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, err := ParseSecretsKey(part)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i+1, err)
		}
		out = append(out, k)
	}
	return out, nil
}

// Seal encrypts plain as field of apiKeyID's webhook, under the current key.
func (s *Sealer) Seal(apiKeyID string, field Field, plain []byte) ([]byte, error) {
	k := s.keys[0]
	head := 1 + keyIDLen + k.aead.NonceSize()
	out := make([]byte, head, head+len(plain)+k.aead.Overhead())
	out[0] = sealVersion
	copy(out[1:], k.id[:])
	nonce := out[1+keyIDLen:]
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return k.aead.Seal(out, nonce, plain, sealAAD(apiKeyID, field)), nil
}

// ErrUnsealable is a sealed value that opens under none of the keys for its place.
var ErrUnsealable = errors.New("the sealed webhook value does not open with WEBHOOK_SECRETS_KEY or WEBHOOK_SECRETS_PREVIOUS_KEYS for this key and field (was the key changed, or the value copied from elsewhere?)")

// Open decrypts field of apiKeyID's webhook. current reports whether it was sealed in the current
// format under the current key (else `reseal` would seal it again).
func (s *Sealer) Open(apiKeyID string, field Field, sealed []byte) (plain []byte, current bool, err error) {
	if len(sealed) > 1+keyIDLen && sealed[0] == sealVersion {
		id, body := [keyIDLen]byte(sealed[1:1+keyIDLen]), sealed[1+keyIDLen:]
		for i, k := range s.keys {
			n := k.aead.NonceSize()
			if id != k.id || len(body) < n {
				continue
			}
			if p, err := k.aead.Open(nil, body[:n], body[n:], sealAAD(apiKeyID, field)); err == nil {
				return p, i == 0, nil
			}
		}
	}
	if s.OpenUnversioned {
		for _, k := range s.keys {
			n := k.aead.NonceSize()
			if len(sealed) < n {
				break
			}
			if p, err := k.aead.Open(nil, sealed[:n], sealed[n:], unversionedAAD); err == nil {
				return p, false, nil
			}
		}
	}
	return nil, false, ErrUnsealable
}

// SealSecret seals a webhook's signing secret (current or previous).
func (s *Sealer) SealSecret(apiKeyID, secret string) ([]byte, error) {
	return s.Seal(apiKeyID, FieldSecret, []byte(secret))
}

// OpenSecret opens a webhook's sealed signing secret.
func (s *Sealer) OpenSecret(apiKeyID string, sealed []byte) (string, error) {
	p, _, err := s.Open(apiKeyID, FieldSecret, sealed)
	return string(p), err
}

// SealHeaders seals a webhook's custom headers (they often carry the receiver's credentials).
func (s *Sealer) SealHeaders(apiKeyID string, h map[string]string) ([]byte, error) {
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	return s.Seal(apiKeyID, FieldHeaders, b)
}

// OpenHeaders opens sealed custom headers.
func (s *Sealer) OpenHeaders(apiKeyID string, sealed []byte) (map[string]string, error) {
	plain, _, err := s.Open(apiKeyID, FieldHeaders, sealed)
	if err != nil {
		return nil, err
	}
	var h map[string]string
	if err := json.Unmarshal(plain, &h); err != nil {
		return nil, errors.New("sealed webhook headers are not a JSON object")
	}
	return h, nil
}

// ResealStore is what Reseal needs of the database.
type ResealStore interface {
	SealedWebhooks(ctx context.Context, after string, limit int) ([]store.SealedWebhook, error)
	ResealWebhook(ctx context.Context, was, next store.SealedWebhook, by store.Actor) (bool, error)
}

// ResealResult is what Reseal did.
type ResealResult struct {
	Webhooks int      `json:"webhooks"` // webhooks read
	Resealed int      `json:"resealed"` // sealed again under the current key and format
	Unopened []string `json:"unopened"` // API key ids of webhooks a value of which no key opens: left as they are
}

// Reseal seals the values of every webhook again under the current key and in the current
// format, where they are not already: values sealed under a previous key (after
// WEBHOOK_SECRETS_KEY was rotated) or before the format had a version and its binding to the
// key id. A webhook changed meanwhile is left to the change (ResealWebhook compares); running
// it again finishes what is left. `intentd admin webhooks reseal` runs it.
func Reseal(ctx context.Context, st ResealStore, s *Sealer, by store.Actor) (ResealResult, error) {
	res := ResealResult{Unopened: []string{}}
	for after := ""; ; {
		page, err := st.SealedWebhooks(ctx, after, 100)
		if err != nil {
			return res, err
		}
		if len(page) == 0 {
			return res, nil
		}
		for _, w := range page {
			after = w.APIKeyID
			res.Webhooks++
			next, changed, err := s.reseal(w)
			if err != nil {
				res.Unopened = append(res.Unopened, w.APIKeyID)
				continue
			}
			if !changed {
				continue
			}
			done, err := st.ResealWebhook(ctx, w, next, by)
			if err != nil {
				return res, err
			}
			if done {
				res.Resealed++
			}
		}
	}
}

// reseal is w with every value sealed again that is not sealed under the current key and
// format; changed reports whether any was.
func (s *Sealer) reseal(w store.SealedWebhook) (next store.SealedWebhook, changed bool, err error) {
	next = store.SealedWebhook{APIKeyID: w.APIKeyID}
	for _, v := range []struct {
		field Field
		from  []byte
		to    *[]byte
	}{{FieldSecret, w.Secret, &next.Secret}, {FieldSecret, w.PreviousSecret, &next.PreviousSecret},
		{FieldHeaders, w.Headers, &next.Headers}} {
		if v.from == nil {
			continue
		}
		plain, current, err := s.Open(w.APIKeyID, v.field, v.from)
		if err != nil {
			return next, false, err
		}
		if current {
			*v.to = v.from
			continue
		}
		if *v.to, err = s.Seal(w.APIKeyID, v.field, plain); err != nil {
			return next, false, err
		}
		changed = true
	}
	return next, changed, nil
}

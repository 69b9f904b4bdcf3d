package events

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

// Sealer seals webhook secrets for the database (AES-256-GCM under WEBHOOK_SECRETS_KEY, a key
// the database never sees): the dispatcher must sign with a secret, so unlike an API key it
// cannot be stored hashed, and a copy of the database alone does not let anyone forge
// deliveries.
type Sealer struct{ aead cipher.AEAD }

// NewSealer makes a sealer from a 32-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("the webhook secrets key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
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

// Seal encrypts a secret: nonce ‖ ciphertext.
func (s *Sealer) Seal(secret string) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return s.aead.Seal(nonce, nonce, []byte(secret), []byte("intentd webhook secret")), nil
}

// Open decrypts a sealed secret.
func (s *Sealer) Open(sealed []byte) (string, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("sealed webhook secret too short")
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte("intentd webhook secret"))
	if err != nil {
		return "", errors.New("the webhook secret does not open with WEBHOOK_SECRETS_KEY (was the key changed?)")
	}
	return string(plain), nil
}

// SealHeaders seals a webhook's custom headers (they often carry the receiver's credentials).
func (s *Sealer) SealHeaders(h map[string]string) ([]byte, error) {
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	return s.Seal(string(b))
}

// OpenHeaders opens sealed custom headers.
func (s *Sealer) OpenHeaders(sealed []byte) (map[string]string, error) {
	plain, err := s.Open(sealed)
	if err != nil {
		return nil, err
	}
	var h map[string]string
	if err := json.Unmarshal([]byte(plain), &h); err != nil {
		return nil, errors.New("sealed webhook headers are not a JSON object")
	}
	return h, nil
}

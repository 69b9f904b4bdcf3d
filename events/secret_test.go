package events

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"testing"
)

var (
	testKeyOld = bytes.Repeat([]byte{0x11}, 32)
	testKeyNew = bytes.Repeat([]byte{0x22}, 32)
)

const (
	keyA = "6f0e7c1a-8d2b-4c3e-9f10-2a3b4c5d6e7f"
	keyB = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
)

// sealUnversioned seals plain as the sealer did before review L15: nonce ‖ ciphertext, one
// constant associated data for every row and field.
func sealUnversioned(t *testing.T, key []byte, plain string) []byte {
	t.Helper()
	block, _ := aes.NewCipher(key)
	aead, _ := cipher.NewGCM(block)
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return aead.Seal(nonce, nonce, []byte(plain), []byte("intentd webhook secret"))
}

func mustSealer(t *testing.T, key []byte, previous ...[]byte) *Sealer {
	t.Helper()
	s, err := NewSealer(key, previous...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Review L15 (issue 33, point 7): "sealed webhook secrets/headers use AAD = api_key_id ‖ field
// name": integrator A's sealed headers copied onto B's webhook row, or A's headers copied into
// A's secret, do not open; each opens in its own place, and a secret rotated into
// previous_secret (copied as it is by the store) still opens there.
func TestSealedWebhookValueOpensOnlyForItsKeyAndField(t *testing.T) {
	s := mustSealer(t, testKeyNew)
	headers, err := s.SealHeaders(keyA, map[string]string{"Authorization": "Bearer receiver-credential"})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := s.SealSecret(keyA, "whsec_a")
	if err != nil {
		t.Fatal(err)
	}
	if h, err := s.OpenHeaders(keyA, headers); err != nil || h["Authorization"] != "Bearer receiver-credential" {
		t.Fatalf("A's headers on A: %v %v", h, err)
	}
	if got, err := s.OpenSecret(keyA, secret); err != nil || got != "whsec_a" {
		t.Fatalf("A's secret on A (or as A's previous secret): %q %v", got, err)
	}
	// The key id as the database writes it (lower case) and as a caller may (upper case) are one.
	if got, err := s.OpenSecret("6F0E7C1A-8D2B-4C3E-9F10-2A3B4C5D6E7F", secret); err != nil || got != "whsec_a" {
		t.Fatalf("A's secret under its id in upper case: %q %v", got, err)
	}
	if h, err := s.OpenHeaders(keyB, headers); !errors.Is(err, ErrUnsealable) {
		t.Errorf("A's headers copied onto B's webhook opened: %v %v", h, err)
	}
	if got, err := s.OpenSecret(keyB, secret); !errors.Is(err, ErrUnsealable) {
		t.Errorf("A's secret copied onto B's webhook opened: %q %v", got, err)
	}
	if got, err := s.OpenSecret(keyA, headers); !errors.Is(err, ErrUnsealable) {
		t.Errorf("A's headers copied into A's secret opened: %q %v", got, err)
	}
}

// Review L15: "carry a key version (so the key can be rotated; existing sealed values must still
// open — a migration or a read-old/write-new path; test both)". This is the read-old/write-new
// path (TestResealSealsEveryWebhookAgainUnderTheCurrentKey, in reseal_test.go, the
// migration): a value sealed before the format had a version opens, and one sealed under a
// previous key opens with that key among WEBHOOK_SECRETS_PREVIOUS_KEYS; both report that they are
// not current, and whatever is sealed now names the current key.
func TestSealedValuesOfTheOldFormatAndOfAPreviousKeyStillOpenAndNewOnesUseTheCurrentKey(t *testing.T) {
	old := mustSealer(t, testKeyOld)
	underOld, err := old.SealSecret(keyA, "whsec_prev_key")
	if err != nil {
		t.Fatal(err)
	}
	unversioned := sealUnversioned(t, testKeyOld, "whsec_unversioned")

	rotated := mustSealer(t, testKeyNew, testKeyOld)
	for name, tc := range map[string]struct {
		sealed []byte
		want   string
	}{"sealed under the previous key": {underOld, "whsec_prev_key"}, "sealed unversioned": {unversioned, "whsec_unversioned"}} {
		p, current, err := rotated.Open(keyA, FieldSecret, tc.sealed)
		if err != nil || string(p) != tc.want || current {
			t.Errorf("%s: %q current=%v %v, want %q, not current", name, p, current, err, tc.want)
		}
	}
	fresh, err := rotated.SealSecret(keyA, "whsec_new")
	if err != nil {
		t.Fatal(err)
	}
	id := KeyID(testKeyNew)
	if fresh[0] != sealVersion || !bytes.Equal(fresh[1:5], id[:]) {
		t.Fatalf("a new value starts % x, want version %d and the current key's id % x", fresh[:5], sealVersion, id)
	}
	if p, current, err := rotated.Open(keyA, FieldSecret, fresh); err != nil || string(p) != "whsec_new" || !current {
		t.Fatalf("new value: %q current=%v %v", p, current, err)
	}
	// Without the previous key, what it sealed does not open; with unversioned values refused
	// (once `reseal` has run), neither does the old format.
	if _, err := mustSealer(t, testKeyNew).OpenSecret(keyA, underOld); !errors.Is(err, ErrUnsealable) {
		t.Errorf("a value of a key no longer configured opened: %v", err)
	}
	strict := mustSealer(t, testKeyOld)
	strict.OpenUnversioned = false
	if _, err := strict.OpenSecret(keyA, unversioned); !errors.Is(err, ErrUnsealable) {
		t.Errorf("an unversioned value opened with WEBHOOK_SECRETS_OPEN_UNVERSIONED=false: %v", err)
	}
}

package main

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

func TestDevAdminTokenIsKeptPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev-admin-token")
	h1, err := devAdminToken(path)
	if err != nil || len(h1) != sha256.Size {
		t.Fatalf("first: %x %v", h1, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st.Mode(), err)
	}
	b, _ := os.ReadFile(path)
	if sum := sha256.Sum256(bytes.TrimSpace(b)); !bytes.Equal(sum[:], h1) {
		t.Fatal("hash is not the SHA-256 of the stored token")
	}
	h2, err := devAdminToken(path)
	if err != nil || !bytes.Equal(h1, h2) {
		t.Fatalf("restart made a new token: %v", err)
	}
	// A file made too open (or truncated) is fixed up.
	if err := os.WriteFile(path, []byte("short\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	h3, err := devAdminToken(path)
	if st, _ := os.Stat(path); err != nil || bytes.Equal(h3, h1) || st.Mode().Perm() != 0o600 {
		t.Fatalf("truncated token file: %v %v", st.Mode(), err)
	}
}

package app

import (
	"encoding/hex"
	"fmt"
	"maps"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// Issue 37: RELAYER_PRIVATE_KEY is the worker's alone, optional, never printed, and never the
// solver's key; a bad value is an error naming the variable without echoing it.
func TestTheRelayerKeyIsTheWorkersAndNeverPrinted(t *testing.T) {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	cfg, err := LoadRole(RoleWorker, env(required(map[string]string{"RELAYER_PRIVATE_KEY": "0x" + keyHex})), nil)
	if err != nil || cfg.RelayerKey() == nil || crypto.PubkeyToAddress(cfg.RelayerKey().PublicKey) != crypto.PubkeyToAddress(key.PublicKey) {
		t.Fatalf("worker with RELAYER_PRIVATE_KEY: %v", err)
	}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), cfg.LogValue().String()} {
		if strings.Contains(s, keyHex) || strings.Contains(s, new(big.Int).SetBytes(crypto.FromECDSA(key)).String()) {
			t.Fatalf("the relayer key is printed: %s", s)
		}
	}
	if !strings.Contains(cfg.LogValue().String(), crypto.PubkeyToAddress(key.PublicKey).Hex()) {
		t.Fatalf("the relayer's address is not logged: %s", cfg.LogValue())
	}
	if cfg, err := LoadRole(RoleWorker, env(required(nil)), nil); err != nil || cfg.RelayerKey() != nil {
		t.Fatalf("worker without RELAYER_PRIVATE_KEY: %v (relays nothing)", err)
	}

	api := map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "SOLVER_ADDRESS": "0x1111111111111111111111111111111111111111"}
	withAPI := func(m map[string]string) map[string]string { out := maps.Clone(api); maps.Copy(out, m); return out }
	for _, tc := range []struct {
		role Role
		env  map[string]string
	}{
		{RoleAPI, withAPI(map[string]string{"RELAYER_PRIVATE_KEY": keyHex})},
		{RoleMigrate, map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "RELAYER_PRIVATE_KEY": keyHex}},
		{RoleWorker, required(map[string]string{"RELAYER_PRIVATE_KEY": keyHex[:40]})},
		{RoleWorker, required(map[string]string{"RELAYER_PRIVATE_KEY": testSolverHex})},
	} {
		_, err := LoadRole(tc.role, env(tc.env), nil)
		if err == nil || !strings.Contains(err.Error(), "RELAYER_PRIVATE_KEY:") {
			t.Errorf("%s: %v, want an error naming RELAYER_PRIVATE_KEY", tc.role, err)
			continue
		}
		if strings.Contains(err.Error(), keyHex[:40]) || strings.Contains(err.Error(), testSolverHex) {
			t.Errorf("%s: a key is echoed: %v", tc.role, err)
		}
	}
}

package app

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	solanago "github.com/gagliardetto/solana-go"
)

// The Solana family's keys (issue 36): SOLVER_SOLANA_KEY and SOLANA_VAULT_KEY are base58
// keypairs the worker alone holds, never printed; the api names the solver by
// SOLVER_SOLANA_ADDRESS; a bad value is an error naming its variable without echoing it.
func TestSolanaKeysAreTheWorkersAndNeverPrinted(t *testing.T) {
	solver, vault := solanago.NewWallet().PrivateKey, solanago.NewWallet().PrivateKey
	keys := map[string]string{"SOLVER_SOLANA_KEY": solver.String(), "SOLANA_VAULT_KEY": vault.String()}

	cfg, err := LoadRole(RoleWorker, env(required(keys)), nil)
	if err != nil || !cfg.SolanaSolverKey().PublicKey().Equals(solver.PublicKey()) ||
		!cfg.SolanaVaultKey().PublicKey().Equals(vault.PublicKey()) || cfg.SolanaSolverAddress() != solver.PublicKey().String() {
		t.Fatalf("worker with the Solana keys: %v", err)
	}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), cfg.LogValue().String()} {
		if strings.Contains(s, solver.String()) || strings.Contains(s, vault.String()) {
			t.Fatalf("a Solana key is printed: %s", s)
		}
	}
	if cfg, err := LoadRole(RoleWorker, env(required(nil)), nil); err != nil || cfg.SolanaSolverKey() != nil || cfg.SolanaSolverAddress() != "" {
		t.Fatalf("worker without Solana keys: %v (no Solana routes, as before)", err)
	}

	api := map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "SOLVER_ADDRESS": "0x1111111111111111111111111111111111111111"}
	withAPI := func(m map[string]string) map[string]string { out := maps.Clone(api); maps.Copy(out, m); return out }
	cfg, err = LoadRole(RoleAPI, env(withAPI(map[string]string{"SOLVER_SOLANA_ADDRESS": solver.PublicKey().String()})), nil)
	if err != nil || cfg.SolanaSolverAddress() != solver.PublicKey().String() || cfg.SolanaSolverKey() != nil {
		t.Fatalf("api with SOLVER_SOLANA_ADDRESS: %q %v", cfg.SolanaSolverAddress(), err)
	}
	for _, tc := range []struct {
		role Role
		env  map[string]string
		name string
	}{
		{RoleAPI, withAPI(map[string]string{"SOLVER_SOLANA_KEY": solver.String()}), "SOLVER_SOLANA_KEY"},
		{RoleAPI, withAPI(map[string]string{"SOLANA_VAULT_KEY": vault.String()}), "SOLANA_VAULT_KEY"},
		{RoleAPI, withAPI(map[string]string{"SOLVER_SOLANA_ADDRESS": "0x1111111111111111111111111111111111111111"}), "SOLVER_SOLANA_ADDRESS"},
		{RoleWorker, required(map[string]string{"SOLVER_SOLANA_KEY": solver.String()[:40]}), "SOLVER_SOLANA_KEY"},
		{RoleWorker, required(map[string]string{"SOLANA_VAULT_KEY": "0x" + strings.Repeat("ab", 64)}), "SOLANA_VAULT_KEY"},
		{RoleAll, required(map[string]string{"SOLVER_SOLANA_KEY": solver.String(), "SOLVER_SOLANA_ADDRESS": vault.PublicKey().String()}), "SOLVER_SOLANA_ADDRESS"},
	} {
		_, err := LoadRole(tc.role, env(tc.env), nil)
		if err == nil || !strings.Contains(err.Error(), tc.name+":") {
			t.Errorf("%s %s: %v, want an error naming %s", tc.role, tc.name, err, tc.name)
			continue
		}
		if strings.Contains(err.Error(), solver.String()[:40]) || strings.Contains(err.Error(), vault.String()) {
			t.Errorf("%s: a key is echoed: %v", tc.role, err)
		}
	}
}

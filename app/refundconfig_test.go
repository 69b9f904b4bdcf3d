package app

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// Issue 33, point 1: "refund gas has a fixed ceiling per listed currency (configuration, with
// documented defaults: native and ERC-20)" and "orphan refunds have a budget per depositor and
// chain (configurable; document the default)": both validated at start, each bad value named.
func TestRefundGasCeilingsAndTheOrphanRefundBudgetHaveDefaultsAndAreValidated(t *testing.T) {
	cfg, err := Load(env(required(nil)), nil)
	require.NoError(t, err)
	require.Equal(t, activities.RefundGas{Native: 100_000, ERC20: 150_000}, cfg.RefundGas)
	require.Equal(t, intent.RefundBudget{PerDepositor: 10, Window: 24 * time.Hour}, cfg.OrphanRefundBudget)

	cfg, err = Load(env(required(map[string]string{"REFUND_GAS_LIMITS": "native=60000", "ORPHAN_REFUND_BUDGET": "0/1h"})), nil)
	require.NoError(t, err)
	require.Equal(t, activities.RefundGas{Native: 60_000, ERC20: 150_000}, cfg.RefundGas)
	require.Equal(t, intent.RefundBudget{PerDepositor: 0, Window: time.Hour}, cfg.OrphanRefundBudget)

	for name, bad := range map[string][]string{
		"REFUND_GAS_LIMITS":    {"NATIVE=20999", "ERC20=lots", "USDC", "USDC=90000", "NATIVE=60000,native=70000", "ERC20=10000001"},
		"ORPHAN_REFUND_BUDGET": {"10", "-1/24h", "ten/24h", "10/0s", "10/day"},
	} {
		for _, v := range bad {
			_, err := Load(env(required(map[string]string{name: v})), nil)
			require.Error(t, err, "%s=%s", name, v)
			require.True(t, strings.Contains(err.Error(), name), "%s=%s: %v", name, v, err)
		}
	}
	// The api neither signs nor refunds: it does not read them.
	_, err = LoadRole(RoleAPI, env(map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "SOLVER_ADDRESS": testOracle.Hex(),
		"REFUND_GAS_LIMITS": "junk"}), nil)
	require.NoError(t, err)
}

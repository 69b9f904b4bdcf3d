package oracleapi

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The engine imports this package to reach the oracle; it must not bring the oracle's server
// (package oracle, Gin) or any other package of the project with it.
func TestImportsNoServerCode(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the imports with")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, string(out))
	const self = "github.com/intentd/intentd/oracle/oracleapi"
	for _, p := range strings.Fields(string(out)) {
		require.NotContains(t, p, "gin-gonic", "oracleapi imports %s", p)
		if strings.HasPrefix(p, "github.com/intentd/intentd/") {
			require.Equal(t, self, p, "oracleapi imports a package of the project")
		}
	}
}

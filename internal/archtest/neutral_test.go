package archtest

import (
	"slices"
	"strings"
	"testing"
)

// Issue 34, point 1: "workflows, activities, quote and the door reach neither chains/evm nor
// go-ethereum through any package of ours (the chain-neutral chains registry, prices and auth
// included); only the protocol's own hashing and signatures may use go-ethereum's crypto (the
// order's EIP-712 id in the domain, the attestation messages in oracle/oracleapi)". A chain
// family is a package under chains/ that the composition names (app: evm.VM(), evm.NewPayout);
// the packages below speak the engine's terms (the workflows and their activities reach a
// chain's family through chains.Families and the ports of package chains), so a new family is a
// new package and not a branch in each.

// neutralPackages must not reach a chain family: each is checked with its whole closure of
// packages of ours.
var neutralPackages = []string{"quote", "prices", "auth", "chains", "door", "deposits", "workflows", "activities"}

// neutralForbidden is what they must not reach: a chain family's package (EVM's, Solana's), and
// the families' own libraries (go-ethereum, solana-go).
var neutralForbidden = []string{"./chains/evm", "./chains/solana", "github.com/ethereum/go-ethereum", "github.com/gagliardetto/solana-go"}

// neutralProtocolOwn are the packages of ours that may use go-ethereum themselves, for the
// protocol's own hashing and signatures; they must still not reach a family's package.
var neutralProtocolOwn = []string{"./intent", "./oracle/oracleapi"}

// TestChainNeutralPackagesReachNoChainFamily walks each family-neutral package's imports through
// every package of ours and reports every package reached that imports a
// family's package or go-ethereum, with the chain of imports that reaches it.
func TestChainNeutralPackagesReachNoChainFamily(t *testing.T) {
	var patterns []string
	for _, p := range neutralPackages {
		patterns = append(patterns, "./"+p)
	}
	pkgs := list(t, append([]string{"-deps"}, patterns...)...)
	for _, root := range neutralPackages {
		t.Run(root, func(t *testing.T) {
			for _, v := range neutralViolations(pkgs, module+"/"+root) {
				t.Error(v)
			}
		})
	}
}

// neutralViolations returns, for the package at root, one line for each forbidden import of a
// package of ours that root reaches, naming the path of imports from root.
func neutralViolations(pkgs map[string]pkg, root string) []string {
	var out []string
	via := map[string]string{root: ""} // each package reached, by the package that imported it
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		imports := slices.Clone(pkgs[p].Imports)
		slices.Sort(imports)
		for _, imp := range imports {
			if matches(imp, neutralForbidden) && !(strings.HasPrefix(imp, "github.com/ethereum/") && matches(p, neutralProtocolOwn)) {
				out = append(out, neutralPath(via, p)+" imports "+imp)
				continue
			}
			if _, seen := via[imp]; seen || !strings.HasPrefix(imp, module+"/") {
				continue
			}
			via[imp] = p
			queue = append(queue, imp)
		}
	}
	return out
}

// neutralPath is the chain of imports by which p was reached, from the root: "quote → screening".
func neutralPath(via map[string]string, p string) string {
	var chain []string
	for ; p != ""; p = via[p] {
		chain = append(chain, strings.TrimPrefix(p, module+"/"))
	}
	slices.Reverse(chain)
	return strings.Join(chain, " → ")
}

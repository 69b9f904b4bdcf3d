package evm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
)

// Issue 34: "address parsing/validation per family (EVM hex + EIP-55 today; Solana base58
// later): behind the family, not hex everywhere". The EVM family's notation is the one the
// registry finds for evm chains once the package is linked, and reads what clients write by
// review L1's rule (one case, or exactly the EIP-55 checksum); a chain file's addresses in any
// case; transaction ids in any case, kept in lower case. A family that is not linked has none,
// and the registry refuses its chains.
func TestTheEVMNotationIsTheFamilysAndReadsAddressesAndTxIDs(t *testing.T) {
	n, err := chains.NotationOf(chains.VMTypeEVM)
	if err != nil || n != evm.Notation() {
		t.Fatalf("notation of evm = %v, %v", n, err)
	}
	const sum = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	for _, in := range []string{sum, strings.ToLower(sum), "0x" + strings.ToUpper(sum[2:])} {
		if got, err := n.ParseAddress(in); err != nil || got != sum {
			t.Errorf("ParseAddress(%s) = %s, %v, want %s", in, got, err, sum)
		}
	}
	last := strings.LastIndexAny(sum, "abcdefABCDEF")
	typo := sum[:last] + string(sum[last]^0x20) + sum[last+1:] // the checksum's last letter in the other case
	for in, want := range map[string]string{typo: "EIP-55", "0x12": "not a valid EVM address", sum[2:]: "not a valid EVM address"} {
		if _, err := n.ParseAddress(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAddress(%s) = %v, want an error saying %q", in, err, want)
		}
	}
	if got, ok := n.CanonicalAddress(strings.ToLower(sum[2:])); !ok || got != sum {
		t.Errorf("CanonicalAddress without 0x = %s, %v", got, ok)
	}
	if _, ok := n.CanonicalAddress("0xnot"); ok {
		t.Error("CanonicalAddress accepted 0xnot")
	}
	if !n.IsZeroAddress(chains.NativeAddress) || n.IsZeroAddress(sum) || !n.SameAddress(sum, strings.ToLower(sum)) {
		t.Error("zero or same address misread")
	}
	hash := "0x" + strings.Repeat("aB", 32)
	if got, err := n.ParseTxID(hash); err != nil || got != strings.ToLower(hash) {
		t.Errorf("ParseTxID(%s) = %s, %v", hash, got, err)
	}
	if _, err := n.ParseTxID("0x1234"); err == nil || !strings.Contains(err.Error(), "32-byte hash") {
		t.Errorf("ParseTxID(0x1234) = %v", err)
	}

	if _, err := chains.NotationOf(chains.VMTypeSVM); !errors.Is(err, chains.ErrUnsupported) {
		t.Fatalf("notation of svm, a family not linked = %v, want ErrUnsupported", err)
	}
	none := func(string) (string, bool) { return "", false }
	for doc, want := range map[string]string{
		`{"id": 792703809, "vmType": "solana-vm", "httpRpcUrl": "http://127.0.0.1:1", "currency": {"symbol": "SOL", "decimals": 9}}`: `vmType "svm" is not supported yet`,
		`{"id": 1, "httpRpcUrl": "http://127.0.0.1:1", "depository": "0x12", "currency": {"symbol": "ETH", "decimals": 18}}`:         `depository "0x12" is not an address`,
	} {
		if _, err := chains.ParseRegistry([]byte(`{"chains": [`+doc+`]}`), none); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("registry of %s = %v, want an error saying %q", doc, err, want)
		}
	}
}

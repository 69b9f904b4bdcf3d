package solana_test

import (
	"crypto/rand"
	"strings"
	"testing"

	solanago "github.com/gagliardetto/solana-go"

	"github.com/intentd/intentd/chains"
	_ "github.com/intentd/intentd/chains/evm" // the EVM family, beside which the Solana chain is listed
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/screening"
)

const (
	// wallet is a Solana wallet address in mixed case, as every base58 key is.
	wallet     = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	evmAccount = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
)

// Issue 36, point 2: "addresses base58 and case-sensitive everywhere (no lower-casing),
// INVALID_ADDRESS for an EVM address on the Solana side". The family's notation is the one the
// registry finds for svm once the package is linked; it reads a base58 public key of 32 bytes
// and gives it back as written, refuses an EVM address saying so, and reads transaction ids as
// base58 signatures of 64 bytes.
func TestTheSolanaNotationIsTheFamilysAndKeepsAddressesAsWritten(t *testing.T) {
	n, err := chains.NotationOf(chains.VMTypeSVM)
	if err != nil || n != solana.Notation() {
		t.Fatalf("notation of svm = %v, %v", n, err)
	}
	for _, a := range []string{wallet, solana.USDCAddress, solana.WrappedSOLAddress, solana.NativeAddress,
		solanago.NewWallet().PublicKey().String()} {
		if got, err := n.ParseAddress(a); err != nil || got != a {
			t.Errorf("ParseAddress(%s) = %s, %v, want it unchanged", a, got, err)
		}
		if got, ok := n.CanonicalAddress(a); !ok || got != a {
			t.Errorf("CanonicalAddress(%s) = %s, %v, want it unchanged", a, got, ok)
		}
		// Another case is another string of base58: never the same address, and never read
		// back as this one.
		if lower := strings.ToLower(a); lower != a {
			if n.SameAddress(a, lower) {
				t.Errorf("SameAddress(%s, %s): base58 is case-sensitive", a, lower)
			}
			if got, err := n.ParseAddress(lower); err == nil && got != lower {
				t.Errorf("ParseAddress(%s) = %s: an address is kept as written", lower, got)
			}
		}
	}
	for in, want := range map[string]string{
		evmAccount:                    "is an EVM address",
		strings.ToLower(evmAccount):   "is an EVM address",
		"0OIl" + wallet[4:]:           "is not a valid Solana address",
		wallet[:20]:                   "is not a valid Solana address",
		"1" + wallet:                  "is not a valid Solana address", // a leading zero byte more: 33 bytes
		"":                            "is not a valid Solana address",
		solana.NativeAddress + "1111": "is not a valid Solana address",
	} {
		if got, err := n.ParseAddress(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAddress(%q) = %q, %v, want an error saying %q", in, got, err, want)
		}
		if _, ok := n.CanonicalAddress(in); ok {
			t.Errorf("CanonicalAddress(%q) accepted it", in)
		}
	}
	if !n.IsZeroAddress(solana.NativeAddress) || n.IsZeroAddress(wallet) || n.NativeAddress() != solana.NativeAddress {
		t.Error("the System Program's id is SOL's address and the family's zero address, and nothing else is")
	}

	var sig solanago.Signature
	if _, err := rand.Read(sig[:]); err != nil {
		t.Fatal(err)
	}
	if got, err := n.ParseTxID(sig.String()); err != nil || got != sig.String() {
		t.Errorf("ParseTxID(%s) = %s, %v, want it unchanged", sig, got, err)
	}
	for _, bad := range []string{wallet, "0x" + strings.Repeat("ab", 32), "", "0OIl" + sig.String()[4:]} {
		if _, err := n.ParseTxID(bad); err == nil || !strings.Contains(err.Error(), "base58 Solana transaction signature") {
			t.Errorf("ParseTxID(%q) = %v, want refused", bad, err)
		}
	}
}

// registryDoc is a chain file with an EVM chain and the Solana chain, whose native currency is
// written without an address (SOL's, the family's), its tokens by their mints.
const registryDoc = `{"chains": [
	{"id": 1, "name": "ethereum", "httpRpcUrl": "http://127.0.0.1:1", "depository": "0x5fbdb2315678afecb367f032d93f642f64180aa3",
	 "currency": {"id": "eth", "symbol": "ETH", "name": "Ether", "decimals": 18},
	 "erc20Currencies": [{"id": "usdc", "symbol": "USDC", "name": "USD Coin", "address": "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "decimals": 6}]},
	{"id": 792703809, "name": "solana", "displayName": "Solana", "vmType": "%s", "httpRpcUrl": "http://127.0.0.1:1",
	 "depository": "` + wallet + `", "depositEnabled": true,
	 "currency": {"id": "sol", "symbol": "SOL", "name": "Solana", "decimals": 9},
	 "erc20Currencies": [
		{"id": "wsol", "symbol": "WSOL", "name": "Wrapped SOL", "address": "So11111111111111111111111111111111111111112", "decimals": 9},
		{"id": "usdc", "symbol": "USDC", "name": "USD Coin", "address": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "decimals": 6}]}
]}`

func none(string) (string, bool) { return "", false }

// Issue 36, point 2: with the family linked, the registry reads a chain file entry of vmType svm
// (or the oracle spec's solana-vm) beside the EVM chains: SOL at the System Program's id with 9
// decimals, wSOL and USDC by their mints, every address as written; each chain's addresses by
// its own family, so an EVM address on the Solana chain and a base58 one on an EVM chain are
// refused.
func TestARegistryReadsTheSolanaChainBesideAnEVMChain(t *testing.T) {
	for _, vm := range []string{"svm", "solana-vm"} {
		reg, err := chains.ParseRegistry([]byte(strings.Replace(registryDoc, "%s", vm, 1)), none)
		if err != nil {
			t.Fatalf("vmType %s: %v", vm, err)
		}
		sol, err := reg.Get(solana.ChainID)
		if err != nil || sol.VMType != chains.VMTypeSVM || sol.Notation() != solana.Notation() {
			t.Fatalf("vmType %s: the Solana chain = %+v, %v", vm, sol, err)
		}
		if len(reg.Enabled()) != 2 {
			t.Errorf("enabled chains: %d, want 2", len(reg.Enabled()))
		}
		if c := sol.Currency; c.Address != solana.NativeAddress || c.Decimals != solana.NativeDecimals || !c.IsNative() {
			t.Errorf("SOL = %+v, want the System Program's id, 9 decimals, native", c)
		}
		if sol.Depository != wallet {
			t.Errorf("depository %s, want %s as written", sol.Depository, wallet)
		}
		for addr, want := range map[string]uint8{solana.WrappedSOLAddress: solana.NativeDecimals, solana.USDCAddress: solana.USDCDecimals} {
			c, ok := sol.FindCurrency(addr)
			if !ok || c.Address != addr || c.Decimals != want || c.IsNative() {
				t.Errorf("currency %s = %+v, %v, want listed as written with %d decimals, not native", addr, c, ok, want)
			}
			if _, ok := sol.FindCurrency(strings.ToLower(addr)); ok {
				t.Errorf("currency %s found in lower case: base58 is case-sensitive", addr)
			}
		}
		eth, _ := reg.Get(1)
		if c, ok := eth.FindCurrency("0xA0B86991C6218B36C1D19D4A2E9EB0CE3606EB48"); !ok || !eth.Currency.IsNative() || c.IsNative() {
			t.Errorf("the EVM chain's currencies: USDC %+v %v, ETH native %v", c, ok, eth.Currency.IsNative())
		}
	}

	for name, doc := range map[string]string{
		"an EVM token on the Solana chain":   strings.Replace(registryDoc, "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", 1),
		"an EVM depository on Solana":        strings.Replace(registryDoc, `"depository": "`+wallet, `"depository": "`+evmAccount, 1),
		"a Solana token on the EVM chain":    strings.Replace(registryDoc, "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", solana.USDCAddress, 1),
		"a Solana depository on the EVM one": strings.Replace(registryDoc, "0x5fbdb2315678afecb367f032d93f642f64180aa3", wallet, 1),
		"SOL at the EVM zero address":        strings.Replace(registryDoc, `"symbol": "SOL",`, `"symbol": "SOL", "address": "`+chains.NativeAddress+`",`, 1),
	} {
		doc = strings.Replace(doc, "%s", "svm", 1)
		if _, err := chains.ParseRegistry([]byte(doc), none); err == nil || !strings.Contains(err.Error(), "is not an address") {
			t.Errorf("%s: %v, want the address refused", name, err)
		}
	}
}

// The screening blocklist reads its svm lines by shape (base58, 32 to 44 characters): it is
// chain-neutral, so it neither links this family nor decodes keys, and a binary without the
// family still reads its list. The family decodes (solana-go). Every address the family accepts
// is one the list reads and keeps exactly as written, so a listed Solana address is found for
// every quote, fill and refund that names it.
func TestEveryAddressTheFamilyAcceptsTheBlocklistReadsAsWritten(t *testing.T) {
	addrs := []string{wallet, solana.NativeAddress, solana.WrappedSOLAddress, solana.USDCAddress}
	for range 500 {
		addrs = append(addrs, solanago.NewWallet().PublicKey().String())
	}
	var short solanago.PublicKey // leading zero bytes are the shortest spellings
	short[31] = 1
	addrs = append(addrs, short.String())
	for _, a := range addrs {
		if _, err := solana.Notation().ParseAddress(a); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		if got, err := screening.Normalize(chains.VMTypeSVM, a); err != nil || got != a {
			t.Errorf("screening.Normalize(svm, %s) = %s, %v, want it as written", a, got, err)
		}
	}
}

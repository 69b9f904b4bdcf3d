package quote

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana" // the Solana family's notation, which reads the Solana chain's addresses
)

// solanaChains is testChains' EVM chains and the Solana chain: SOL at the System Program's id,
// USDC at its mint. Validation reads no chain.
var solanaChains = func() *chains.Registry {
	r, err := chains.ParseRegistry([]byte(`{"chains": [
		{"id": 31337, "httpRpcUrl": "http://127.0.0.1:1", "currency": {"symbol": "ETH", "decimals": 18}},
		{"id": 31338, "httpRpcUrl": "http://127.0.0.1:1", "currency": {"symbol": "ETH", "decimals": 18}},
		{"id": 792703809, "vmType": "svm", "displayName": "Solana", "httpRpcUrl": "http://127.0.0.1:1",
		 "currency": {"symbol": "SOL", "decimals": 9},
		 "erc20Currencies": [{"symbol": "USDC", "address": "`+solana.USDCAddress+`", "decimals": 6}]}]}`),
		func(string) (string, bool) { return "", false })
	if err != nil {
		panic(err)
	}
	return r
}()

// Issue 36, point 2: every address of a quote is read by its own chain's family. On the Solana
// chain (origin: user, refundTo, originCurrency; destination: recipient, destinationCurrency) a
// base58 key is kept exactly as written and an EVM address is INVALID_ADDRESS; on an EVM chain a
// base58 key is INVALID_ADDRESS. A recipient left to default to an EVM user is not one of the
// Solana chain's.
func TestAQuoteReadsSolanaAddressesAsWrittenAndRefusesTheOtherFamilys(t *testing.T) {
	const (
		evmUser   = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
		solWallet = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
		ethNative = chains.NativeAddress
	)
	validate := func(fields map[string]any) (*Validated, *Error) {
		m := map[string]any{"amount": "1000000"}
		for k, v := range fields {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		req, derr := Decode(strings.NewReader(string(b)))
		if derr != nil {
			t.Fatalf("Decode(%s): %v", b, derr)
		}
		return req.Validate(solanaChains)
	}
	toSolana := map[string]any{"user": evmUser, "originChainId": 31337, "originCurrency": ethNative,
		"destinationChainId": solana.ChainID, "destinationCurrency": solana.USDCAddress, "recipient": solWallet}
	fromSolana := map[string]any{"user": solWallet, "originChainId": solana.ChainID, "originCurrency": solana.NativeAddress,
		"destinationChainId": 31338, "destinationCurrency": ethNative, "recipient": evmUser, "refundTo": solWallet}
	with := func(base map[string]any, k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range base {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}

	v, err := validate(toSolana)
	if err != nil || v.Recipient != solWallet || v.DestCurrency != solana.USDCAddress || v.User != evmUser {
		t.Fatalf("EVM to Solana: %+v, %v, want the Solana addresses as written", v, err)
	}
	v, err = validate(fromSolana)
	if err != nil || v.User != solWallet || v.RefundTo != solWallet || v.OriginCurrency != solana.NativeAddress || v.Recipient != evmUser {
		t.Fatalf("Solana to EVM: %+v, %v, want the Solana addresses as written", v, err)
	}

	for name, c := range map[string]struct {
		fields map[string]any
		want   string
	}{
		"an EVM recipient on Solana":             {with(toSolana, "recipient", evmUser), `recipient "` + evmUser + `" is an EVM address`},
		"the EVM user as the Solana recipient":   {with(toSolana, "recipient", nil), `recipient "` + evmUser + `" is an EVM address`},
		"an EVM destinationCurrency on Solana":   {with(toSolana, "destinationCurrency", ethNative), "destinationCurrency"},
		"a base58 user on an EVM origin":         {with(toSolana, "user", solWallet), `user "` + solWallet + `" is not a valid EVM address`},
		"an EVM user on a Solana origin":         {with(fromSolana, "user", evmUser), `user "` + evmUser + `" is an EVM address`},
		"an EVM refundTo on a Solana origin":     {with(fromSolana, "refundTo", evmUser), "refundTo"},
		"an EVM originCurrency on Solana":        {with(fromSolana, "originCurrency", ethNative), "originCurrency"},
		"a base58 recipient on an EVM chain":     {with(fromSolana, "recipient", solWallet), `recipient "` + solWallet + `" is not a valid EVM address`},
		"Solana's zero address as the recipient": {with(toSolana, "recipient", solana.NativeAddress), "recipient must not be the zero address"},
		"a recipient that is not base58":         {with(toSolana, "recipient", "0OIl"+solWallet[4:]), "is not a valid Solana address"},
	} {
		if _, err := validate(c.fields); err == nil || err.Code != CodeInvalidAddress || !strings.Contains(err.Message, c.want) {
			t.Errorf("%s: %v, want INVALID_ADDRESS saying %q", name, err, c.want)
		}
	}
}

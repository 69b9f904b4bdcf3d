package intent

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/mr-tron/base58"
)

// A route to a Solana-type chain (issue 36): the order carries the base58 recipient, currency and
// solver as written, and its id hashes each as the 32 bytes it names: never parsed as hex, never
// lower-cased, so a recipient differing only in case is another order.
func TestOrderIDReadsBase58AddressesAsTheirBytes(t *testing.T) {
	const recipient, mint, solver = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
		"65vV6LB6Nfb2NjMLYZwQ33Wz2yC1L94QRtRYkuEHMn8U"
	o := sampleOrder()
	o.SolverChainID, o.Output.ChainID, o.Solver = "792703809", "792703809", solver
	o.Output.Payments[0].Recipient, o.Output.Payments[0].Currency = recipient, mint
	id, err := o.ID()
	if err != nil {
		t.Fatal(err)
	}
	// The payment's struct hash over the raw keys, as encodeData writes bytes fields.
	raw := func(s string) []byte { b, _ := base58.Decode(s); return b }
	e := &orderEncoder{}
	p := o.Output.Payments[0]
	want := hashStruct("OutputPayment", crypto.Keccak256(raw(recipient)), crypto.Keccak256(raw(mint)),
		e.uint("", p.MinimumAmount, 256), e.uint("", p.ExpectedAmount, 256))
	got := hashStruct("OutputPayment", e.bytes("", recipient), e.bytes("", mint), e.uint("", p.MinimumAmount, 256), e.uint("", p.ExpectedAmount, 256))
	if common.BytesToHash(got) != common.BytesToHash(want) || e.err != nil {
		t.Fatalf("payment hash %x, want %x (%v)", got, want, e.err)
	}
	if b := e.address("", solver); common.BytesToHash(b) != common.BytesToHash(raw(solver)) {
		t.Fatalf("solver word %x, want its 32 bytes", b)
	}

	lower := o
	lower.Output.Payments = []OutputPayment{p}
	lower.Output.Payments[0].Recipient = strings.ToLower(recipient)
	if other, err := lower.ID(); err == nil && other == id {
		t.Fatal("a lower-cased base58 recipient gives the same order id")
	}
	bad := o
	bad.Output.Payments = []OutputPayment{p}
	bad.Output.Payments[0].Recipient = "not-an-address"
	if _, err := bad.ID(); err == nil {
		t.Fatal("an address neither hex nor base58 is hashed")
	}
	evm := sampleOrder()
	if _, err := evm.ID(); err != nil {
		t.Fatalf("the EVM order: %v", err)
	}
}

// A Solana origin's addresses are written into the order as written (base58), as a Solana
// destination's are: the id is the one of the hex of the same 32 bytes, so a client checking the
// id offline computes the same whichever it writes.
func TestASolanaOriginsBase58AddressesHashAsTheHexOfTheirBytes(t *testing.T) {
	const user, mint = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	hexOf := func(s string) string { b, _ := base58.Decode(s); return "0x" + common.Bytes2Hex(b) }
	o := sampleOrder()
	o.Inputs = []OrderInput{{Payment: o.Inputs[0].Payment, Refunds: []InputRefund{o.Inputs[0].Refunds[0]}}}
	o.Inputs[0].Payment.ChainID, o.Inputs[0].Refunds[0].ChainID = "792703809", "792703809"
	o.Inputs[0].Payment.Currency, o.Inputs[0].Refunds[0].Currency, o.Inputs[0].Refunds[0].Recipient = mint, mint, user
	id, err := o.ID()
	if err != nil {
		t.Fatal(err)
	}
	h := o
	h.Inputs = []OrderInput{{Payment: o.Inputs[0].Payment, Refunds: []InputRefund{o.Inputs[0].Refunds[0]}}}
	h.Inputs[0].Payment.Currency, h.Inputs[0].Refunds[0].Currency, h.Inputs[0].Refunds[0].Recipient = hexOf(mint), hexOf(mint), hexOf(user)
	if other, err := h.ID(); err != nil || other != id {
		t.Fatalf("the hex form's id %s (%v), the base58 form's %s", other.Hex(), err, id.Hex())
	}
}

package deposits

import (
	"testing"
)

// Issue 35, point 5: a reindex's payment is "a synthetic one: log_index -2 and a documented tx
// hash convention". Its hash is 32 bytes of 0x-hex, the same for the same address, currency and
// head in any case (a balance found twice at one head is one payment), and another for another
// head, chain or currency (funds found later are a new payment).
func TestAReindexsPaymentHashIsFixedByChainAddressCurrencyAndHead(t *testing.T) {
	const addr, eth = "0xAbCdEf0000000000000000000000000000000001", "0x0000000000000000000000000000000000000000"
	h := ReindexTxHash(31337, addr, eth, 7)
	if len(h) != 66 || h[:2] != "0x" {
		t.Fatalf("hash %q is not 32 bytes of 0x-hex", h)
	}
	if ReindexTxHash(31337, "0xabcdef0000000000000000000000000000000001", eth, 7) != h {
		t.Fatal("the address's case changes the hash")
	}
	for _, other := range []string{ReindexTxHash(31337, addr, eth, 8), ReindexTxHash(31338, addr, eth, 7),
		ReindexTxHash(31337, addr, "0x3F88d0F5403139753a203e6F36BFaE0CeAE3bF42", 7)} {
		if other == h {
			t.Fatal("another head, chain or currency gives the same hash")
		}
	}
	if ReindexLogIndex != -2 {
		t.Fatalf("log index %d", ReindexLogIndex)
	}
}

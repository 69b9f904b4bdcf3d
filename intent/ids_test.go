package intent

import "testing"

// Review L1 (issue 33, point 7): "a mixed-case address that fails EIP-55 is refused; all-lower
// and all-upper still accepted".
func TestChecksumValidRefusesMixedCaseThatIsNotTheEIP55Checksum(t *testing.T) {
	const good = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" // the devnet's account 0, checksummed
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{good, true},
		{"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", true},  // all lower case
		{"0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266", true},  // all upper case
		{"0XF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266", true},  // upper case, 0X prefix
		{"0x0000000000000000000000000000000000000000", true},  // no letters at all
		{"0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266", false}, // one letter's case changed
		{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92267", false}, // one digit changed: the checksum no longer matches
		{"0xf39fd6e51aad88f6f4ce6ab8827279cfffb9226A", false}, // lower case with one upper letter
	} {
		if got := ChecksumValid(tc.addr); got != tc.ok {
			t.Errorf("ChecksumValid(%s) = %v, want %v", tc.addr, got, tc.ok)
		}
	}
}

// Issue 36, point 6: the zero address is recognised in each family's notation, and a base58 key
// (a Solana refundTo, a depositor) is never read as hex: it is an address of its own, not the
// zero address, so a refund to it is paid to it.
func TestIsZeroAddressOfEachFamily(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "0x0000000000000000000000000000000000000000": true, "0x0": true,
		"0000000000000000000000000000000000000000":     true,
		"0x000000000000000000000000000000000000bEEF":   false,
		"11111111111111111111111111111111":             true, // Solana's all-zero key
		"GeGzeAKJwmiAxVaujX9NMaxKv2hRuR5d1beaHgNGfnYU": false,
		"xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU":  false,
		"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v": false,
	} {
		if got := IsZeroAddress(s); got != want {
			t.Errorf("IsZeroAddress(%q) = %v, want %v", s, got, want)
		}
	}
}

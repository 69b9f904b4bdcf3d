package intent

import "testing"

// A Solana transaction id is a base58 signature, case-sensitive: two that differ only in case
// are two transactions (and two refund requests); an EVM hash is the same in any case.
func TestTransactionIDsAreComparedByTheirFamilysRules(t *testing.T) {
	const evmA, evmB = "0xABCDEF0000000000000000000000000000000000000000000000000000000001", "0xabcdef0000000000000000000000000000000000000000000000000000000001"
	const solA, solB = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW", "5verv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
	if !SameTxID(evmA, evmB) || DepositRefundRequestID(1, evmA, 0) != DepositRefundRequestID(1, evmB, 0) {
		t.Error("an EVM hash in another case is another transaction")
	}
	if SameTxID(solA, solB) || DepositRefundRequestID(792703809, solA, 0) == DepositRefundRequestID(792703809, solB, 0) {
		t.Error("two Solana signatures that differ in case are one transaction")
	}
	if !(Deposit{ChainID: 792703809, TxHash: solA}).SameEvent(Deposit{ChainID: 792703809, TxHash: solA}) {
		t.Error("a Solana deposit is not the same event as itself")
	}
}

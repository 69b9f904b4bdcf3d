package intent

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// RefundID is the once-only payout id of a request's refund in the depository
// (Depository.withdraw): every refund of one request, automatic or by an operator, uses it,
// so the contract itself refuses to refund a request twice.
func RefundID(requestID string) common.Hash {
	return crypto.Keccak256Hash([]byte("intentd.refund:"), []byte(requestID))
}

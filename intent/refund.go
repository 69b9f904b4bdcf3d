package intent

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// RefundID is the once-only payout id of a request's refund in the depository
// (Depository.withdraw): every refund of one request, automatic or by an operator, uses it,
// so the contract itself refuses to refund a request twice.
func RefundID(requestID string) common.Hash {
	return crypto.Keccak256Hash([]byte("intentd.refund:"), []byte(requestID))
}

// DepositRefundRequestID is the requestId of the refund request made for a deposit that no
// order can take (an orphaned deposit, or a second deposit for an order already paid): derived
// from the deposit itself, so every route that finds the deposit names the same request.
func DepositRefundRequestID(chainID uint64, txHash string, logIndex uint) string {
	return crypto.Keccak256Hash([]byte(fmt.Sprintf("intentd.deposit-refund:%d:%s:%d", chainID, strings.ToLower(txHash), logIndex))).Hex()
}

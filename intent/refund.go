package intent

import (
	"fmt"
	"time"

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
	return crypto.Keccak256Hash([]byte(fmt.Sprintf("intentd.deposit-refund:%d:%s:%d", chainID, txIDKey(txHash), logIndex))).Hex()
}

// RefundHold says why the automatic refund of a deposit no order can take waits for an operator's
// manual admin refund instead of being made (docs/operations.md, "Money safety"); "" when it is
// made. The solver pays every refund's gas, and anyone can make deposits: without a hold, one
// transaction of many deposits of a worthless token, or of dust, would have the solver pay a
// refund for each.
type RefundHold string

const (
	// RefundHoldUnlistedCurrency: the deposit is in a currency its chain's configuration does
	// not list, which the engine cannot price and whose transfer may cost any gas. It is not even
	// attested until an operator refunds it.
	RefundHoldUnlistedCurrency RefundHold = "UNLISTED_CURRENCY"
	// RefundHoldBudgetExceeded: the depositor has had its budget of automatic refunds on the
	// chain within the budget's window (ORPHAN_REFUND_BUDGET).
	RefundHoldBudgetExceeded RefundHold = "REFUND_BUDGET_EXCEEDED"
)

// RefundBudget is how many automatic refunds of deposits no order can take one depositor gets on
// one chain within Window (ORPHAN_REFUND_BUDGET); the next ones wait for an operator.
type RefundBudget struct {
	PerDepositor int
	Window       time.Duration
}

// RefundClaim asks whether the automatic refund of a refund request may go ahead: held when its
// currency is unlisted, else one of its depositor's budget on the chain (store.ClaimRefund).
type RefundClaim struct {
	RequestID string
	ChainID   uint64
	Depositor string
	Currency  string
	Amount    string
	At        time.Time // the request's time, from its workflow: the budget's window ends there
	Unlisted  bool
	Budget    RefundBudget
}

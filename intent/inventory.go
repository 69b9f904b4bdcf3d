package intent

import (
	"fmt"
	"math/big"
)

// Commitment is what a solver transaction can take from the solver's balances on its chain
// until it is mined: Amount of Currency paid out of the solver's own balance, and at most
// MaxGasCost of the chain's native currency in gas (gas limit × fee cap). It is stored with the
// transaction. A refund is paid out of the depository, so it commits its gas only.
type Commitment struct {
	Currency   string   // 0x address of the currency paid; the zero address for the native currency
	Amount     *big.Int // in the currency's smallest unit; nil or zero pays nothing
	MaxGasCost *big.Int // wei; nil for none
}

// Holdings are the solver's balances on a chain at one block, read together with the solver's
// nonce at that block: a stored transaction whose nonce is at or above that nonce is signed but
// not mined, so what it commits is still part of these balances.
type Holdings struct {
	Native *big.Int // wei
	Token  *big.Int // of the commitment's currency when that is not the native one
}

// InventoryShortfall refuses a solver transaction before it is signed (no nonce is allocated):
// the solver's Balance of Currency on the chain, less what its transactions not yet mined
// commit (InFlight), does not cover what the transaction needs (Need: its amount, plus its gas
// for the native currency).
type InventoryShortfall struct {
	ChainID  uint64
	Currency string
	Balance  *big.Int
	InFlight *big.Int
	Need     *big.Int
}

func (e *InventoryShortfall) Error() string {
	return fmt.Sprintf("the solver holds %s of %s on chain %d, %s of it committed to transactions not yet mined; the transaction needs %s",
		e.Balance, e.Currency, e.ChainID, e.InFlight, e.Need)
}

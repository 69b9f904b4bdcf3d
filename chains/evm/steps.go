package evm

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// The EVM family's side of a quote (chains.Steps): the user funds an order with a call of the
// chain's depository, deposit(orderId) with the native value or depositErc20(orderId, token,
// amount) after an approve; the solver's fill is a call of the output settler whose gas the
// quote charges (SimulateFill is in simulate.go).

// FundingSteps returns the steps that fund o from this chain: an approve of the depository when
// the user's allowance of an ERC-20 falls short (read fresh: a stale "enough" would leave out an
// approve the deposit needs), then the deposit.
func (c *Client) FundingSteps(ctx context.Context, o chains.FundingOrder) ([]intent.Step, error) {
	depository := common.HexToAddress(c.chain.Depository)
	user, token := common.HexToAddress(o.User), common.HexToAddress(o.Currency.Address)
	orderID, amount := common.HexToHash(o.OrderID), o.Amount
	var steps []intent.Step
	var deposit intent.TxData
	if token == (common.Address{}) {
		deposit = intent.TxData{From: user.Hex(), To: depository.Hex(), Data: hexutil.Encode(DepositoryABI.PackDepositNative(orderID)),
			Value: amount.String(), ChainID: c.chain.ID}
	} else {
		allowance, err := c.Allowance(ctx, token, user, depository)
		if err != nil {
			return nil, err
		}
		if allowance.Cmp(amount) < 0 {
			steps = append(steps, intent.Step{ID: "approve", Action: "Approve", Kind: intent.StepKindTransaction, RequestID: o.RequestID,
				Description: fmt.Sprintf("Allow the depository to take %s %s", intent.FormatUnits(amount, o.Currency.Decimals), o.Currency.Symbol),
				Items: []intent.StepItem{{Status: intent.StepItemIncomplete, Data: intent.TxData{From: user.Hex(), To: token.Hex(),
					Data: hexutil.Encode(ERC20ABI.PackApprove(depository, amount)), Value: "0", ChainID: c.chain.ID}}}})
		}
		deposit = intent.TxData{From: user.Hex(), To: depository.Hex(), Value: "0", ChainID: c.chain.ID,
			Data: hexutil.Encode(DepositoryABI.PackDepositErc20(orderID, token, amount))}
	}
	return append(steps, intent.Step{ID: "deposit", Action: "Confirm transaction in your wallet", Kind: intent.StepKindTransaction,
		RequestID: o.RequestID, Description: fmt.Sprintf("Deposit %s %s", intent.FormatUnits(amount, o.Currency.Decimals), o.Currency.Symbol),
		Items: []intent.StepItem{{Status: intent.StepItemIncomplete, Data: deposit}}}), nil
}

// FillCost is the gas a fill of currency is quoted with (FillGasEstimate) at the chain's gas
// price, in wei.
func (c *Client) FillCost(ctx context.Context, currency string) (*big.Int, error) {
	gasPrice, err := c.GasPrice(ctx)
	if err != nil {
		return nil, err
	}
	return new(big.Int).Mul(gasPrice, new(big.Int).SetUint64(FillGasEstimate(common.HexToAddress(currency)))), nil
}

// FillGasEstimate is the gas a fill is quoted with; real fills are estimated at execution.
func FillGasEstimate(currency common.Address) uint64 {
	if currency == (common.Address{}) {
		return 60_000
	}
	return 90_000
}

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
// amount) after an approve, or with a plain transfer to a deposit address of the order
// (DepositAddressSteps), which the solver sweeps into the depository at a gas cost the quote
// charges; the solver's fill is a call of the output settler whose gas the quote charges
// (SimulateFill is in simulate.go).

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

// RecipientRent (chains.Steps) is zero: an EVM chain charges no rent for the accounts a fill
// pays, and any amount may be paid to any address.
func (c *Client) RecipientRent(context.Context, string, string) (chains.RecipientRent, error) {
	return chains.RecipientRent{Rent: new(big.Int)}, nil
}

// DepositAddressSteps returns the deposit address of o's order and depositor under the chain's
// DepositAddressFactory (DepositAddress, computed offline) and the one step that pays o to it: a
// plain transfer of the native value with empty calldata, or an ERC-20 transfer to it. No
// approve: nothing takes the funds from the payer, the factory's sweep moves them on.
func (c *Client) DepositAddressSteps(o chains.FundingOrder, depositor string) (string, []intent.Step, error) {
	if c.chain.DepositAddressFactory == "" {
		return "", nil, fmt.Errorf("%w: chain %d has no deposit address factory", chains.ErrUnsupported, c.chain.ID)
	}
	factory := common.HexToAddress(c.chain.DepositAddressFactory)
	addr := DepositAddress(factory, DepositAddressImplementation(factory), common.HexToHash(o.OrderID), common.HexToAddress(depositor))
	user, token := common.HexToAddress(o.User), common.HexToAddress(o.Currency.Address)
	pay := intent.TxData{From: user.Hex(), To: addr.Hex(), Data: "0x", Value: o.Amount.String(), ChainID: c.chain.ID}
	if token != (common.Address{}) {
		pay = intent.TxData{From: user.Hex(), To: token.Hex(), Data: hexutil.Encode(ERC20ABI.PackTransfer(addr, o.Amount)), Value: "0",
			ChainID: c.chain.ID}
	}
	return addr.Hex(), []intent.Step{{ID: "deposit", Action: "Send to the deposit address", Kind: intent.StepKindTransaction,
		RequestID: o.RequestID, DepositAddress: addr.Hex(),
		Description: fmt.Sprintf("Send %s %s to %s", intent.FormatUnits(o.Amount, o.Currency.Decimals), o.Currency.Symbol, addr.Hex()),
		Items:       []intent.StepItem{{Status: intent.StepItemIncomplete, Data: pay}}}}, nil
}

// SweepCost is the gas a sweep of currency is quoted with (SweepGasEstimate) at the chain's gas
// price, in wei.
func (c *Client) SweepCost(ctx context.Context, currency string) (*big.Int, error) {
	gasPrice, err := c.GasPrice(ctx)
	if err != nil {
		return nil, err
	}
	return new(big.Int).Mul(gasPrice, new(big.Int).SetUint64(SweepGasEstimate(common.HexToAddress(currency)))), nil
}

// The gas a deposit-address quote charges for its sweep (DepositAddressFactory.sweep of one
// payment): the devnet's measured sweep of an address not deployed yet, which deploys its clone
// first, the dearer case (native 71,242 gas, 49,684 once deployed; USDC 94,516 and 75,660;
// devnet/depositaddr_test.go logs them and fails when a first sweep costs more than this),
// rounded up to the thousand. A sweep is priced by the
// quote, not estimated, so the fee a user is quoted is the fee they pay; the solver pays what
// the sweep really costs within it.
const (
	SweepGasNative = 72_000
	SweepGasERC20  = 95_000
)

// SweepGasEstimate is the gas a sweep of currency is quoted with.
func SweepGasEstimate(currency common.Address) uint64 {
	if currency == (common.Address{}) {
		return SweepGasNative
	}
	return SweepGasERC20
}

// FillGasEstimate is the gas a fill is quoted with; real fills are estimated at execution.
func FillGasEstimate(currency common.Address) uint64 {
	if currency == (common.Address{}) {
		return 60_000
	}
	return 90_000
}

package perps

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"fmt"
	"github.com/ethereum/go-ethereum/common"
	"math/big"
	"slices"
	"strings"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// ActivationFee is the exchange's fee for a new account's first credit: USD 1, in perps USDC
// (8 decimals), charged to the sender of the credit (spec, Fee model).
var ActivationFee = big.NewInt(100_000_000)

// FundingSteps are a withdrawal's two steps (spec, "Perps-exchange chain"): authorize, the
// NonceMapping message binding the nonce of the user's transfer to the order, signed and posted
// to POST /authorize; then deposit, the exchange's sendAsset of the amount to the depository
// account, signed by the user with the same nonce. The nonce is the quote's time in
// milliseconds (the exchange takes nonces within a day of its clock, each once per signer),
// moved up past the last one this client gave (nonce.go).
func (c *Client) FundingSteps(_ context.Context, o chains.FundingOrder) ([]intent.Step, error) {
	ch := c.chain
	if ch.Depository == "" {
		return nil, fmt.Errorf("%w: chain %d has no depository account", chains.ErrUnsupported, ch.ID)
	}
	cur, ok := ch.FindCurrency(o.Currency.Address)
	if !ok {
		return nil, fmt.Errorf("%w: currency %s is not listed on chain %d", chains.ErrUnsupported, o.Currency.Address, ch.ID)
	}
	token, dex, err := tokenOf(ch, cur)
	if err != nil {
		return nil, err
	}
	user := common.HexToAddress(o.User)
	nonce := c.nonces.next(c.now())
	x := exchangeOf(ch)
	auth, err := x.AuthorizeStepItem(NonceMapping{Wallet: user, Depositor: user, OrderID: common.HexToHash(o.OrderID), Nonce: nonce})
	if err != nil {
		return nil, err
	}
	send, err := x.SendAssetStepItem(SendAsset{Destination: strings.ToLower(ch.Depository), SourceDex: dex, DestinationDex: dex,
		Token: token, Amount: FormatAmount(o.Amount, cur.Decimals), Nonce: nonce})
	if err != nil {
		return nil, err
	}
	return []intent.Step{
		{ID: "authorize", Action: "Sign authorization", Description: "Authorize the withdrawal: bind your transfer's nonce to this order",
			Kind: intent.StepKindSignature, RequestID: o.RequestID, Items: []intent.StepItem{auth}},
		{ID: "deposit", Action: "Confirm transaction in your wallet", Description: "Send the funds to the depository account on the exchange",
			Kind: intent.StepKindTransaction, RequestID: o.RequestID, Items: []intent.StepItem{send}},
	}, nil
}

// FillCost is zero: a fill on the exchange is a signed sendAsset, which pays no gas. What a new
// recipient costs is its activation fee (RecipientRent).
func (c *Client) FillCost(context.Context, string) (*big.Int, error) { return new(big.Int), nil }

// RecipientRent answers the exchange's activation fee when recipient's account is new: it has
// never sent or received anything and holds nothing. The exchange charges no rent.
func (c *Client) RecipientRent(ctx context.Context, _ string, recipient string) (chains.RecipientRent, error) {
	fresh, err := c.IsNewAccount(ctx, recipient)
	if err != nil {
		return chains.RecipientRent{}, err
	}
	if !fresh {
		return chains.RecipientRent{}, nil
	}
	return chains.RecipientRent{ActivationFee: new(big.Int).Set(ActivationFee)}, nil
}

// IsNewAccount reports whether account has never been credited on the exchange: no transfer in
// its ledger and nothing held, perps, spot or in a HIP-3 DEX the chain lists a currency of. Three
// reads and one per such DEX: the ledger, the perps balance, the spot balances, each DEX's.
func (c *Client) IsNewAccount(ctx context.Context, account string) (bool, error) {
	ledger, err := c.Ledger(ctx, account, time.Unix(0, 0))
	if err != nil || len(ledger) > 0 {
		return false, err
	}
	perpsHeld, err := c.BalanceNow(ctx, PerpsUSDCAddress, account)
	if err != nil || perpsHeld.Sign() > 0 {
		return false, err
	}
	dexes := []string{""}
	for _, cur := range c.chain.ERC20 {
		if _, dex, err := SplitCurrency(cur.Address); err == nil && dex != "" && !slices.Contains(dexes, dex) {
			dexes = append(dexes, dex)
		}
	}
	for _, dex := range dexes {
		var spot struct {
			Balances []struct {
				Total string `json:"total"`
			} `json:"balances"`
		}
		q := map[string]any{"type": "spotClearinghouseState", "user": account}
		if dex != "" {
			q["dex"] = dex
		}
		if err := c.info(ctx, q, &spot); err != nil {
			return false, err
		}
		for _, b := range spot.Balances {
			if v, err := decimal.NewFromString(b.Total); err == nil && v.IsPositive() {
				return false, nil
			}
		}
	}
	return true, nil
}

// SimulateFill checks what the exchange lets the engine check before paying: the currency is
// listed and the recipient is an account (an EVM address). The solver's balance is checked when
// the fill is paid.
func (c *Client) SimulateFill(_ context.Context, _ string, currency, recipient string) error {
	if _, ok := c.chain.FindCurrency(currency); !ok {
		return &chains.RevertError{Reason: fmt.Sprintf("currency %s is not listed on the exchange", currency)}
	}
	if a, ok := Notation().CanonicalAddress(recipient); !ok || len(a) != 42 || strings.EqualFold(a, "0x0000000000000000000000000000000000000000") {
		return &chains.RevertError{Reason: fmt.Sprintf("recipient %s is not an exchange account", recipient)}
	}
	return nil
}

// DepositAddressSteps: the exchange has no deposit addresses.
func (c *Client) DepositAddressSteps(chains.FundingOrder, string) (string, []intent.Step, error) {
	return "", nil, fmt.Errorf("%w: the perps exchange has no deposit addresses", chains.ErrUnsupported)
}

// SweepCost: the exchange has no deposit addresses.
func (c *Client) SweepCost(context.Context, string) (*big.Int, error) {
	return nil, fmt.Errorf("%w: the perps exchange has no deposit addresses", chains.ErrUnsupported)
}

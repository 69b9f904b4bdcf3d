package devnet

import (
	"context"
	"encoding/hex"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/devnet/exchange"
)

// The local perps exchange's funding at start (StartExchange), in perps units (8 decimals): the
// same amounts of perps USDC and of spot USDC for each account.
const (
	// ExchangeSolverUSDC is the solver's perps USDC, and its spot USDC, on the local exchange:
	// 10,000,000 USDC each.
	ExchangeSolverUSDC = 10_000_000 * 100_000_000
	// ExchangeTestAccountUSDC is each test account's perps USDC, and its spot USDC, on the local
	// exchange: 1,000,000 USDC each.
	ExchangeTestAccountUSDC = 1_000_000 * 100_000_000
)

// ExchangeDex is the HIP-3 DEX the local exchange runs (exchange.Options.Dexes), whose USDC the
// chain lists as ExchangeDexUSDCAddress.
const ExchangeDex = "xyz"

// ExchangeDexUSDCAddress is the currency address of USDC on ExchangeDex: spot USDC's 16-byte
// token id followed by the DEX's name in hex (0x6d1e7cde53ba9467b783cb7c530ce054 and 78797a).
var ExchangeDexUSDCAddress = exchange.DefaultSpotUSDCTokenID + hex.EncodeToString([]byte(ExchangeDex))

// StartExchange starts the local perps exchange (devnet/exchange) with o, ExchangeDex among its
// DEXes, and funds it as `intentd-dev devnet` does: SolverAddress with ExchangeSolverUSDC and
// every test account with ExchangeTestAccountUSDC, of perps USDC and of spot USDC each, and the
// solver with ExchangeSolverUSDC of USDC on ExchangeDex too (what fills in that currency are
// paid from). The exchange's addresses are the EVM addresses of the same keys, so a wallet that
// imports the test mnemonic signs for them.
func StartExchange(ctx context.Context, o exchange.Options) (*exchange.Server, error) {
	if !slices.Contains(o.Dexes, ExchangeDex) {
		o.Dexes = append(slices.Clone(o.Dexes), ExchangeDex)
	}
	s, err := exchange.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	fund := func(amount int64, addrs ...common.Address) error {
		for _, a := range addrs {
			if err := s.CreditPerps(a, big.NewInt(amount)); err != nil {
				return err
			}
			if err := s.CreditSpot(a, s.SpotUSDC().ID, big.NewInt(amount)); err != nil {
				return err
			}
		}
		return nil
	}
	err = fund(ExchangeSolverUSDC, SolverAddress())
	if err == nil {
		err = s.CreditDex(SolverAddress(), ExchangeDex, s.SpotUSDC().ID, big.NewInt(ExchangeSolverUSDC))
	}
	if err == nil {
		// The engine's depository account exists from the start (1 USDC of perps), so that a
		// user's first withdrawal does not pay the exchange's activation fee for it.
		err = s.CreditPerps(ExchangeDepositoryAddress(), big.NewInt(100_000_000))
	}
	for _, a := range TestAddresses() {
		if err == nil {
			err = fund(ExchangeTestAccountUSDC, a)
		}
	}
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// ExchangeChainID is the perps exchange's chain id (the spec's).
const ExchangeChainID = 1337

// ExchangeEVMChainID is the id of the exchange's EVM chain (the spec's: "a related EVM chain for
// the same exchange uses id 999 through the ordinary quote flow"): on the devnet an ordinary EVM
// chain like 31337 and 31338, with the same contracts at the same addresses.
const ExchangeEVMChainID = 999

// ExchangeChainConfig returns the registry entry of the local perps exchange at url (its API's
// base URL, which the family's client posts /info and /exchange to): chain 1337, vmType hypevm,
// the perps USDC (16 zero bytes, 8 decimals) as its native currency, spot USDC by its token id
// and USDC on the DEX ExchangeDex (ExchangeDexUSDCAddress; symbol USDC, so priced as USDC), and
// the engine's depository account (ExchangeDepositoryAddress), which withdrawals pay.
func ExchangeChainConfig(url string) chains.Chain {
	return chains.Chain{
		ID:          ExchangeChainID,
		Name:        "perps-local",
		DisplayName: "Perps exchange (local)",
		VMType:      chains.VMTypePerps,
		HTTPRPCURL:  url,
		// As for the other local chains: the endpoint holds no secret.
		PublicRPCURL:   url,
		DepositEnabled: true,
		Depository:     ExchangeDepositoryAddress().Hex(),
		Confirmations:  0,
		Exchange:       exchange.DefaultName,
		Currency: chains.Currency{ID: "usdc-perps", Symbol: "USDC", Name: "USDC (Perps)", Address: "0x00000000000000000000000000000000",
			Decimals: exchange.PerpsDecimals},
		ERC20: []chains.Currency{{ID: "usdc-spot", Symbol: "USDC", Name: "USDC (Spot)", Address: exchange.DefaultSpotUSDCTokenID,
			Decimals: exchange.PerpsDecimals},
			{ID: "usdc-" + ExchangeDex, Symbol: "USDC", Name: "USDC (" + ExchangeDex + ")", Address: ExchangeDexUSDCAddress,
				Decimals: exchange.PerpsDecimals}},
	}
}

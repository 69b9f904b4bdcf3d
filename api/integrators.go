package api

import (
	"errors"
	"math/big"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/fees"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
)

// quoteDataJSON is GET /integrators/quote-data's answer: what the quotes made with the caller's
// key are priced with. The public service names the endpoint and shows nothing of it; this is
// what an integrator needs to predict its quotes (docs/api.md, "GET /integrators/quote-data").
type quoteDataJSON struct {
	IntegratorID     string            `json:"integratorId" doc:"empty for a key of no integrator"`
	Name             string            `json:"name"`
	APIKey           quoteDataKeyJSON  `json:"apiKey"`
	BusinessVerified bool              `json:"businessVerified"`
	PayoutAddress    string            `json:"payoutAddress" doc:"where the revenue share is paid, \"\" for none"`
	Volume30dUsd     string            `json:"volume30dUsd" pattern:"^[0-9]+(\\.[0-9]+)?$" doc:"the integrator's successful volume over the trailing 30 days, all its keys, USD (a decimal string)"`
	RevenueShare     revenueShareJSON  `json:"revenueShare"`
	PlatformFees     []platformFeeJSON `json:"platformFees" doc:"the platform fee of each pair class, as this key's quotes split it"`
	Sponsorship      sponsorshipJSON   `json:"sponsorship"`
	FlatExecutionUsd string            `json:"flatExecutionFeeUsd" doc:"the flat part of every quote's execution cost, USD"`
	SwapCostBps      int64             `json:"swapCostBps" doc:"the swap cost of a cross-asset route, basis points of the input"`
}

type quoteDataKeyJSON struct {
	ID          string `json:"id"`
	Prefix      string `json:"prefix"`
	Label       string `json:"label"`
	Environment string `json:"environment"`
	Tier        string `json:"tier" enum:"default,elevated,custom"`
}

type revenueShareJSON struct {
	Eligible bool   `json:"eligible" doc:"business verified, a payout address, and more than USD 10,000,000 of trailing volume"`
	Rule     string `json:"rule" enum:"standard,rs-10m-100m,rs-100m-1b" doc:"the tier applied: the second half of the record's platformFee.ruleId"`
}

type platformFeeJSON struct {
	Class         fees.Class `json:"class" enum:"bridge,wrap,stablecoin,major,minor"`
	TotalBps      string     `json:"totalBps" doc:"what the user pays, basis points of the input (a decimal string)"`
	IntegratorBps string     `json:"integratorBps" doc:"the integrator's revenue share of it"`
	ServiceBps    string     `json:"serviceBps"`
}

type sponsorshipJSON struct {
	Wallet     string `json:"wallet" doc:"\"\" when the integrator has none"`
	ChainID    uint64 `json:"chainId"`
	BalanceUsd string `json:"balanceUsd" doc:"what it may still sponsor, USD (a decimal string)"`
	CanSponsor bool   `json:"canSponsor" doc:"subsidizeFees quotes are accepted: a wallet and a positive balance"`
}

// integratorQuoteData serves GET /integrators/quote-data for the caller's key (required): the
// integrator's profile as the fee model reads it, its trailing volume, the revenue-share tier
// and what each pair class's platform fee becomes with it, and its sponsorship balance, read
// fresh. A database that does not answer is 503.
func (s *Server) integratorQuoteData(c *gin.Context) {
	key := apiKeyOf(c)
	in := key.Integrator
	out := quoteDataJSON{IntegratorID: in.ID, Name: in.Name, BusinessVerified: in.BusinessVerified, PayoutAddress: in.PayoutAddress,
		APIKey:       quoteDataKeyJSON{ID: key.ID, Prefix: key.Prefix, Label: key.Label, Environment: key.Environment, Tier: string(key.Tier)},
		Volume30dUsd: "0", Sponsorship: sponsorshipJSON{BalanceUsd: "0"}, PlatformFees: []platformFeeJSON{},
		FlatExecutionUsd: quote.FlatExecutionFeeUSD.String(), SwapCostBps: s.Quotes.SwapCostBps}
	if out.SwapCostBps <= 0 {
		out.SwapCostBps = quote.DefaultSwapCostBps
	}
	profile := fees.Integrator{HasAPIKey: true, BusinessVerified: in.BusinessVerified, PayoutAddress: in.PayoutAddress}
	if in.ID != "" {
		ctx := c.Request.Context()
		vol, err := s.Store.IntegratorVolume30d(ctx, in.ID)
		if err != nil {
			abort(c, &Error{Code: CodeServiceUnavailable, Message: "the integrator's volume could not be read; retry shortly", cause: err})
			return
		}
		profile.Volume30dUSD, out.Volume30dUsd = vol, vol.String()
		acct, err := s.Store.SponsorAccount(ctx, in.ID)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			abort(c, &Error{Code: CodeServiceUnavailable, Message: "the sponsorship balance could not be read; retry shortly", cause: err})
			return
		default:
			out.Sponsorship = sponsorshipJSON{Wallet: acct.Wallet, ChainID: acct.ChainID, BalanceUsd: acct.BalanceUSD.String(), CanSponsor: acct.CanSponsor()}
		}
	}
	out.RevenueShare.Eligible = fees.Eligible(profile)
	for _, class := range []fees.Class{fees.ClassBridge, fees.ClassWrap, fees.ClassStablecoin, fees.ClassMajor, fees.ClassMinor} {
		split := fees.Platform(class, big.NewInt(0), profile)
		out.PlatformFees = append(out.PlatformFees, platformFeeJSON{Class: class, TotalBps: split.TotalBps.String(),
			IntegratorBps: split.IntegratorBps.String(), ServiceBps: split.ServiceBps.String()})
		_, out.RevenueShare.Rule, _ = strings.Cut(split.RuleID, ":") // "<class>:<tier>", the same tier for each
	}
	c.JSON(http.StatusOK, out)
}

package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
)

// POST /transactions/deposit-address/reindex (public-api-notes §5.3; docs/api.md, "Reindexing a
// deposit address"): the address's balances on the target chain are read again, and each one
// no recorded payment accounts for is routed as a payment the watch had seen (deposits.Reindexer):
// how native value a contract moved to the address, which the watch cannot see, is recovered.

// DepositAddressReindexer reindexes a deposit address (deposits.Reindexer, which app hands in:
// the API imports no deposits code).
type DepositAddressReindexer interface {
	Reindex(ctx context.Context, r intent.DepositAddressReindex) (*intent.DepositAddressReindexed, error)
}

// reindexBody is the body of the reindex: the SDK's (chainId the chain the address was issued
// for, targetChainId the chain to read, currency one currency to read). chainId may be left out
// (the notes' curl examples do): the address names its chain. sweep is deprecated and refused.
type reindexBody struct {
	ChainID        chainIDParam `json:"chainId"`
	DepositAddress string       `json:"depositAddress"`
	TargetChainID  chainIDParam `json:"targetChainId"`
	Currency       string       `json:"currency"`
	Sweep          *bool        `json:"sweep"`
}

// reindexedJSON is the reindex's answer (the SDK's).
type reindexedJSON struct {
	Message             string                  `json:"message"`
	TriggeredCurrencies []reindexedCurrencyJSON `json:"triggeredCurrencies"`
	CheckedCurrencies   []string                `json:"checkedCurrencies"`
	FailedCurrencies    []string                `json:"failedCurrencies"`
}

type reindexedCurrencyJSON struct {
	Currency string `json:"currency"`
	Symbol   string `json:"symbol"`
	Balance  string `json:"balance"`
}

// reindexRateLimitedJSON is the reindex's own 429: {message}, as the SDK types it.
type reindexRateLimitedJSON = messageJSON

// reindexDepositAddress serves POST /transactions/deposit-address/reindex.
func (s *Server) reindexDepositAddress(c *gin.Context) {
	var b reindexBody
	if msg := bindHint(c, &b, "{chainId?: number, depositAddress: string, targetChainId?: number, currency?: string}"); msg != "" {
		abort(c, invalidInput(msg))
		return
	}
	if b.Sweep != nil {
		abort(c, invalidInput("sweep is not supported: a reindex routes what it finds, and the engine sweeps it"))
		return
	}
	addr := strings.TrimSpace(b.DepositAddress)
	if addr == "" {
		abort(c, invalidInput("depositAddress is required"))
		return
	}
	if b.ChainID != 0 {
		ch, err := s.Chains.Get(uint64(b.ChainID))
		if err != nil {
			abort(c, errUnsupportedChain)
			return
		}
		canon, ok := ch.Notation().CanonicalAddress(addr)
		if !ok {
			abort(c, &Error{Code: quote.CodeInvalidAddress, Message: "depositAddress is not an address of chain " + ch.Name})
			return
		}
		addr = canon
	}
	if s.Reindexer == nil {
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "reindexing is not available"})
		return
	}
	if !s.mayReindex(c, addr) {
		return
	}
	got, err := s.Reindexer.Reindex(c.Request.Context(), intent.DepositAddressReindex{ChainID: uint64(b.ChainID), Address: addr,
		TargetChainID: uint64(b.TargetChainID), Currency: b.Currency})
	switch {
	case errors.Is(err, intent.ErrNotFound):
		abort(c, &Error{Code: CodeDepositAddressNotFound, Message: "no deposit address " + b.DepositAddress + " for that chainId"})
		return
	case errors.Is(err, intent.ErrReindexInvalid):
		abort(c, invalidInput(strings.TrimPrefix(err.Error(), intent.ErrReindexInvalid.Error()+": ")))
		return
	case errors.Is(err, intent.ErrReindexTooRecent):
		c.Set(ctxErrorCode, CodeRateLimited)
		c.AbortWithStatusJSON(http.StatusTooManyRequests, reindexRateLimitedJSON{Message: "The deposit address was reindexed too recently"})
		return
	case err != nil:
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the deposit address could not be reindexed; retry shortly", cause: err})
		return
	}
	out := reindexedJSON{Message: "Deposit address reindexed", TriggeredCurrencies: make([]reindexedCurrencyJSON, 0, len(got.Triggered)),
		CheckedCurrencies: got.Checked, FailedCurrencies: got.Failed}
	for _, t := range got.Triggered {
		out.TriggeredCurrencies = append(out.TriggeredCurrencies, reindexedCurrencyJSON{Currency: t.Currency, Symbol: t.Symbol, Balance: t.Balance})
	}
	c.JSON(http.StatusOK, out)
}

// mayReindex reports whether the caller may reindex the address, and answers otherwise: an
// address quoted with an API key is reindexed only with that key (403 for another key or none,
// as its disabling); an address quoted without a key, by anyone. An address not found is left to
// the reindex (404).
func (s *Server) mayReindex(c *gin.Context, address string) bool {
	ctx := c.Request.Context()
	a, err := s.Store.DepositAddressByAddress(ctx, address)
	if errors.Is(err, store.ErrNotFound) {
		return true
	}
	var creator string
	if err == nil {
		creator, err = s.Store.DepositAddressCreator(ctx, a.ID)
	}
	switch {
	case err != nil:
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the deposit address could not be read; retry shortly", cause: err})
		return false
	case creator == "":
		return true
	case keyUnchecked(c):
		abort(c, errKeyUnchecked)
		return false
	}
	if k := apiKeyOf(c); k == nil || k.ID != creator {
		abort(c, &Error{Code: CodeForbidden, Message: "only the API key the deposit address was quoted with may reindex it"})
		return false
	}
	return true
}

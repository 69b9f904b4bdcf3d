package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/intent"
)

// GET /dashboard/api/balance (docs/dashboard.md, Sponsorship balance): the integrator's
// sponsorship balance and its ledger, for owners and developers. The ledger holds USD
// (numeric); the answer gives it as whole millionths of a USD, the unit a sponsor's payment is
// written in (intent.USDMicros), so that no client reads money as a float.

const (
	balanceDefaultLimit = 50
	balanceMaxLimit     = 200
)

type balanceAmountJSON struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
	USD      string `json:"usd,omitempty"`
}

type balanceEntryJSON struct {
	ID           int64     `json:"id"`
	At           time.Time `json:"at"`
	Kind         string    `json:"kind" enum:"topup,adjust,reserve,charge,release"`
	Amount       string    `json:"amount"`
	BalanceAfter string    `json:"balanceAfter"`
	RequestID    string    `json:"requestId,omitempty"`
	Reason       string    `json:"reason,omitempty"`
}

type balanceJSON struct {
	Balance balanceAmountJSON  `json:"balance"`
	History []balanceEntryJSON `json:"history"`
}

// balanceCurrency names the unit of the answer's amounts: millionths of a USD.
const balanceCurrency = "USD"

// micros is usd in whole millionths of a USD, rounded away from zero as intent.USDMicros rounds.
func micros(usd decimal.Decimal) string {
	if usd.IsNegative() {
		return "-" + intent.USDMicros(usd.Neg()).String()
	}
	return intent.USDMicros(usd).String()
}

func (s *Server) dashboardBalance(c *gin.Context) {
	if !requireRole(c, auth.RoleOwner, auth.RoleDeveloper) {
		return
	}
	limit, e := intParam(c.Request.URL.Query(), "limit", balanceDefaultLimit)
	if e != nil {
		abort(c, e)
		return
	}
	if limit < 1 || limit > balanceMaxLimit {
		abort(c, invalidInput("limit must be from 1 to "+strconv.Itoa(balanceMaxLimit)))
		return
	}
	var before int64
	if raw := c.Query("before"); raw != "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 1 {
			abort(c, invalidInput("before must be a history entry's id"))
			return
		}
		before = n
	}
	integratorID := dashboardUser(c).IntegratorID
	acct, err := s.Store.SponsorAccount(c.Request.Context(), integratorID)
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	bal := acct.BalanceUSD
	entries, err := s.Store.SponsorshipHistory(c.Request.Context(), integratorID, limit, before)
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	out := balanceJSON{Balance: balanceAmountJSON{Amount: micros(bal), Currency: balanceCurrency, USD: bal.String()},
		History: make([]balanceEntryJSON, len(entries))}
	for i, en := range entries {
		amount := en.AmountUSD
		if en.DeltaUSD.IsNegative() {
			amount = amount.Neg()
		}
		out.History[i] = balanceEntryJSON{ID: en.ID, At: en.At.UTC(), Kind: en.Kind, Amount: micros(amount),
			BalanceAfter: micros(en.BalanceUSD), RequestID: en.RequestID, Reason: en.Note}
	}
	c.JSON(http.StatusOK, out)
}

package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// Error codes of the admin API for integrators and keys.
const (
	// CodeIntegratorNotFound is an integrator id the admin API has no integrator for.
	CodeIntegratorNotFound = "INTEGRATOR_NOT_FOUND"
	// CodeAPIKeyNotFound is a key id that names none of the integrator's keys.
	CodeAPIKeyNotFound = "API_KEY_NOT_FOUND"
	// CodeSponsorBalanceNegative is a sponsorship adjustment that would leave a negative balance.
	CodeSponsorBalanceNegative = "SPONSOR_BALANCE_NEGATIVE"
)

// The admin API for integrators and their keys (docs/api.md, "Admin API: integrators and keys";
// its routes are rows of the route table, routes.go), behind the admin bearer token like the
// manual refund. Every change is audited in its own transaction (store); a key's value appears
// in one answer only, the creation's.

// adminChange is what every admin change names: who makes it and, optionally, why.
type adminChange struct {
	Operator string `json:"operator" required:"true"`
	Reason   string `json:"reason"`
}

// actor is the audit trail's actor of an admin HTTP change.
func (a adminChange) actor(c *gin.Context) store.Actor {
	return store.Actor{Name: strings.TrimSpace(a.Operator), Via: store.ViaHTTP, Remote: c.ClientIP(), Reason: a.Reason}
}

// readAdminBody decodes a change's JSON body into dst, refusing unknown fields (a misspelt
// field must not be silently ignored) and a missing operator.
func readAdminBody(c *gin.Context, dst any, change *adminChange) bool {
	if !readStrictBody(c, dst, adminBodyLimit) {
		return false
	}
	if strings.TrimSpace(change.Operator) == "" {
		abort(c, invalidInput("operator (who makes the change, for the audit trail) is required"))
		return false
	}
	return true
}

// adminStoreError answers a failed store call of the admin API.
func (s *Server) adminStoreError(c *gin.Context, err error, notFoundCode string) {
	e := &Error{Code: CodeUnknownError, Message: "internal error", cause: err}
	switch {
	case errors.Is(err, store.ErrNotFound):
		e.Code, e.Message = notFoundCode, "not found"
	case errors.Is(err, auth.ErrInvalid):
		e.Code, e.Message = CodeInvalidInput, err.Error()
	case errors.Is(err, store.ErrBalanceTooLow):
		e.Code, e.Message = CodeSponsorBalanceNegative, "the adjustment would leave a negative sponsorship balance"
	case errors.Is(err, intent.ErrUnavailable):
		e.Code, e.Message = CodeServiceUnavailable, "the database is unavailable; retry"
	case errors.Is(err, events.ErrInvalid):
		e.Code, e.Message = CodeInvalidInput, strings.TrimPrefix(err.Error(), events.ErrInvalid.Error()+": ")
	case errors.Is(err, events.ErrUnconfigured):
		e.Code, e.Message = CodeWebhooksUnavailable, "webhooks are not configured on this API (WEBHOOK_SECRETS_KEY is not set)"
	}
	if e.Status() >= http.StatusInternalServerError {
		s.Logger.Error("admin api failed", "path", c.FullPath(), "errorCode", e.Code, "error", err)
	}
	abort(c, e)
}

// adminAnswer answers a store read: view() with 200, or the error.
func (s *Server) adminAnswer(c *gin.Context, err error, notFoundCode string, view func() any) {
	if err != nil {
		s.adminStoreError(c, err, notFoundCode)
		return
	}
	c.JSON(http.StatusOK, view())
}

// adminChanged answers a store change: on success a log line naming the change and its path's
// ids (the audit trail has the details; never a key value) and view() with status, else the
// error.
func (s *Server) adminChanged(c *gin.Context, err error, notFoundCode string, status int, action string, by store.Actor, view func() any) {
	if err != nil {
		s.adminStoreError(c, err, notFoundCode)
		return
	}
	s.Logger.Info("admin change", "action", action, "operator", by.Name, "remote", by.Remote,
		"integratorId", c.Param("integratorId"), "keyId", c.Param("keyId"))
	c.JSON(status, view())
}

func (s *Server) adminListIntegrators(c *gin.Context) {
	list, err := s.Store.Integrators(c.Request.Context())
	s.adminAnswer(c, err, CodeIntegratorNotFound, func() any { return integratorsJSON{Integrators: views(list, (*auth.Integrator).View)} })
}

func (s *Server) adminShowIntegrator(c *gin.Context) {
	in, err := s.Store.Integrator(c.Request.Context(), c.Param("integratorId"))
	s.adminAnswer(c, err, CodeIntegratorNotFound, func() any { return in.View() })
}

// integratorBody is the body of POST and PATCH /admin/integrators: a field left out is not
// changed (PATCH) or takes its default (POST).
type integratorBody struct {
	adminChange
	Name             *string `json:"name"`
	BusinessVerified *bool   `json:"businessVerified"`
	PayoutAddress    *string `json:"payoutAddress"`
	SponsorWallet    *string `json:"sponsorWallet"`
	SponsorChainID   *uint64 `json:"sponsorChainId"`
}

func (s *Server) adminCreateIntegrator(c *gin.Context) {
	var b integratorBody
	if !readAdminBody(c, &b, &b.adminChange) {
		return
	}
	in := auth.Integrator{Name: val(b.Name), BusinessVerified: val(b.BusinessVerified), PayoutAddress: val(b.PayoutAddress),
		SponsorWallet: val(b.SponsorWallet), SponsorChainID: val(b.SponsorChainID)}
	by := b.actor(c)
	out, err := s.Store.CreateIntegrator(c.Request.Context(), in, by)
	s.adminChanged(c, err, CodeIntegratorNotFound, http.StatusCreated, "integrator.create", by, func() any { return out.View() })
}

// val is *p, or T's zero value for nil.
func val[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}

func (s *Server) adminUpdateIntegrator(c *gin.Context) {
	var b integratorBody
	if !readAdminBody(c, &b, &b.adminChange) {
		return
	}
	by, id := b.actor(c), c.Param("integratorId")
	out, err := s.Store.UpdateIntegrator(c.Request.Context(), id, store.IntegratorUpdate{Name: b.Name, BusinessVerified: b.BusinessVerified,
		PayoutAddress: b.PayoutAddress, SponsorWallet: b.SponsorWallet, SponsorChainID: b.SponsorChainID}, by)
	s.adminChanged(c, err, CodeIntegratorNotFound, http.StatusOK, "integrator.update", by, func() any { return out.View() })
}

// sponsorshipBody is the body of a top-up or an adjustment: a USD amount as a decimal string
// (money is never a float), negative only for an adjustment.
type sponsorshipBody struct {
	adminChange
	AmountUSD string `json:"amountUsd"`
}

// adminMoveSponsorBalance serves POST …/sponsorship/top-ups (topUp) and …/adjustments.
func (s *Server) adminMoveSponsorBalance(topUp bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		var b sponsorshipBody
		if !readAdminBody(c, &b, &b.adminChange) {
			return
		}
		amount, err := decimal.NewFromString(b.AmountUSD)
		if err != nil {
			abort(c, invalidInput(`amountUsd must be a USD amount as a decimal string, e.g. "250.00"`))
			return
		}
		by, id := b.actor(c), c.Param("integratorId")
		move, action := s.Store.AdjustSponsorBalance, "integrator.sponsorship.adjust"
		if topUp {
			move, action = s.Store.TopUpSponsorBalance, "integrator.sponsorship.top_up"
		}
		out, err := move(c.Request.Context(), id, amount, by)
		s.adminChanged(c, err, CodeIntegratorNotFound, http.StatusOK, action, by, func() any { return out.View() })
	}
}

// views lists objects as their views: for keys never a value or hash.
func views[T, V any](list []*T, view func(*T) V) []V {
	out := make([]V, len(list))
	for i, x := range list {
		out[i] = view(x)
	}
	return out
}

func (s *Server) adminListKeys(c *gin.Context) {
	keys, err := s.Store.APIKeys(c.Request.Context(), c.Param("integratorId"))
	s.adminAnswer(c, err, CodeIntegratorNotFound, func() any { return apiKeysJSON{APIKeys: views(keys, (*auth.Key).View)} })
}

func (s *Server) adminShowKey(c *gin.Context) {
	k, err := s.Store.APIKey(c.Request.Context(), c.Param("integratorId"), c.Param("keyId"))
	s.adminAnswer(c, err, CodeAPIKeyNotFound, func() any { return k.View() })
}

// keyBody is the body of POST and PATCH …/keys: on PATCH, label renames the key, tier and
// limits (together) set its limits.
type keyBody struct {
	adminChange
	Label       *string                  `json:"label"`
	Environment string                   `json:"environment"`
	Tier        auth.Tier                `json:"tier"`
	Limits      map[string]auth.RateView `json:"limits"`
}

// adminCreateKey answers 201 {key, apiKey}: key is the value, shown in this answer only.
func (s *Server) adminCreateKey(c *gin.Context) {
	var b keyBody
	if !readAdminBody(c, &b, &b.adminChange) {
		return
	}
	limits, err := auth.ParseRates(b.Limits)
	if err != nil {
		abort(c, invalidInput(err.Error()))
		return
	}
	by, id := b.actor(c), c.Param("integratorId")
	value, k, err := s.Store.CreateAPIKey(c.Request.Context(), store.NewKey{IntegratorID: id, Label: val(b.Label),
		Environment: b.Environment, Tier: b.Tier, Limits: limits}, by)
	s.adminChanged(c, err, CodeIntegratorNotFound, http.StatusCreated, "key.create", by,
		func() any { return createdKeyJSON{Key: value, APIKey: k.View()} })
}

func (s *Server) adminUpdateKey(c *gin.Context) {
	var b keyBody
	if !readAdminBody(c, &b, &b.adminChange) {
		return
	}
	if b.Environment != "" {
		abort(c, invalidInput("a key's environment is fixed at creation; create a key for the other environment"))
		return
	}
	if b.Label == nil && b.Tier == "" && b.Limits == nil {
		abort(c, invalidInput("nothing to change: give label, or tier (with limits for a custom tier)"))
		return
	}
	setLimits := b.Tier != "" || b.Limits != nil
	limits, err := auth.ParseRates(b.Limits)
	if err == nil && setLimits {
		err = auth.CheckLimits(b.Tier, limits) // before the rename: both changes or neither
	}
	if err != nil {
		abort(c, invalidInput(err.Error()))
		return
	}
	ctx, integratorID, keyID, by := c.Request.Context(), c.Param("integratorId"), c.Param("keyId"), b.actor(c)
	var k *auth.Key
	if b.Label != nil {
		k, err = s.Store.RenameAPIKey(ctx, integratorID, keyID, *b.Label, by)
	}
	if err == nil && setLimits {
		k, err = s.Store.SetAPIKeyLimits(ctx, integratorID, keyID, b.Tier, limits, by)
	}
	s.adminChanged(c, err, CodeAPIKeyNotFound, http.StatusOK, "key.update", by, func() any { return k.View() })
}

func (s *Server) adminRevokeKey(c *gin.Context) {
	var b adminChange
	if !readAdminBody(c, &b, &b) {
		return
	}
	by, integratorID, keyID := b.actor(c), c.Param("integratorId"), c.Param("keyId")
	k, err := s.Store.RevokeAPIKey(c.Request.Context(), integratorID, keyID, by)
	s.adminChanged(c, err, CodeAPIKeyNotFound, http.StatusOK, "key.revoke", by, func() any { return k.View() })
}

// readStrictBody decodes one JSON object of at most limit bytes into dst, refusing unknown
// fields (a misspelt field must not be silently ignored) and anything after the object; it
// answers 400 and returns false otherwise.
func readStrictBody(c *gin.Context, dst any, limit int64) bool {
	dec := json.NewDecoder(http.MaxBytesReader(c.Writer, c.Request.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		abort(c, invalidInput("body must be one JSON object of the documented fields: "+jsonProblem(err)))
		return false
	}
	if dec.More() {
		abort(c, invalidInput("body must be a single JSON object"))
		return false
	}
	return true
}

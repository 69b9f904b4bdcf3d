package api

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// POST /execute (the spec's "POST /execute"; docs/gasless.md): a user without native gas hands
// the engine its own signed call (an EIP-7702 batch through its delegated account: approve and
// deposit), and the engine relays it, the relayer paying the gas, backed by the integrator's
// sponsorship balance. The route answers in its own shapes, never {message, errorCode}: 200
// {message, requestId}; 400 {error} for a body that is not valid (the public service's
// messages: "to is required", "authorizationList cannot be empty", …); 400 {error, message,
// requestId, details} when the call's simulation reverts (details: the trace's topLevel,
// innermost and path frames and the decoded revert; error is the revert's label); 401 {error:
// "Unauthorized"}; 404 {error} for a requestId without a quote; 409 {error} for a request
// already executing; 500 {error: "Internal server error"}; 503 {error} when the chain cannot be
// read now.

// GaslessExecutor starts a gasless request's workflow with its call (door.Door.OpenRelayed).
type GaslessExecutor interface {
	OpenRelayed(ctx context.Context, requestID string, call intent.RelayCall, integratorID string, subsidize bool) error
	// Started reports whether the request's workflow exists (its deposit found, or executed).
	Started(ctx context.Context, requestID string) (bool, error)
	// RelayStandalone starts a standalone call's request (no quote), which the API stored.
	RelayStandalone(ctx context.Context, requestID string, call intent.RelayCall, integratorID, apiKeyID string) error
}

// RelaySimulator simulates a relayed call on its chain: the decoded failure, nil when it
// would succeed (chains/evm.Client.SimulateRelay).
type RelaySimulator interface {
	SimulateRelay(ctx context.Context, call intent.RelayCall) (*evm.RevertDetails, error)
}

// executeBody is POST /execute's body.
type executeBody struct {
	ExecutionKind    string          `json:"executionKind"`
	Data             *executeData    `json:"data"`
	ExecutionOptions *executeOptions `json:"executionOptions"`
	RequestID        string          `json:"requestId"`
}

// executeData is the call: chainId, to, data, value (wei) and the EIP-7702 authorizations.
type executeData struct {
	ChainID           *uint64                 `json:"chainId"`
	To                *string                 `json:"to"`
	Data              *string                 `json:"data"`
	Value             *string                 `json:"value"`
	AuthorizationList *[]intent.Authorization `json:"authorizationList"`
}

// executeOptions are the execution's options: whether the integrator pays the origin gas, and
// a referrer (optional: the key names the integrator).
type executeOptions struct {
	SubsidizeFees bool   `json:"subsidizeFees"`
	Referrer      string `json:"referrer,omitempty"`
}

// executeAnswer is the 200 answer.
type executeAnswer struct {
	Message   string `json:"message"`
	RequestID string `json:"requestId"`
}

// executeError is every error answer of POST /execute: {error}, and for a failed simulation
// the message, the request and the details.
type executeError struct {
	Error     string             `json:"error"`
	Message   string             `json:"message,omitempty"`
	RequestID string             `json:"requestId,omitempty"`
	Details   *evm.RevertDetails `json:"details,omitempty"`
}

// executeFail answers an /execute error and records its code for the usage counts.
func executeFail(c *gin.Context, status int, e executeError) {
	code := e.Error
	if status == http.StatusBadRequest && e.Details == nil {
		code = "INVALID_INPUT"
	}
	c.Set(ctxErrorCode, code)
	c.AbortWithStatusJSON(status, e)
}

func (s *Server) execute(c *gin.Context) {
	key := apiKeyOf(c)
	if keyUnchecked(c) {
		executeFail(c, http.StatusServiceUnavailable, executeError{Error: "the API key could not be checked; retry shortly"})
		return
	}
	if key == nil {
		executeFail(c, http.StatusUnauthorized, executeError{Error: "Unauthorized"})
		return
	}
	var b executeBody
	dec := json.NewDecoder(c.Request.Body) // bounded by the route's body limit (bound)
	if err := dec.Decode(&b); err != nil {
		executeFail(c, http.StatusBadRequest, executeError{Error: "the body is not valid JSON: " + err.Error()})
		return
	}
	call, msg := s.executeCall(b)
	if msg != "" {
		executeFail(c, http.StatusBadRequest, executeError{Error: msg})
		return
	}
	ctx := c.Request.Context()
	if b.RequestID == "" {
		s.executeStandalone(c, key, call)
		return
	}
	q, err := s.Store.QuoteByRequestID(ctx, b.RequestID)
	if errors.Is(err, store.ErrNotFound) {
		executeFail(c, http.StatusNotFound, executeError{Error: "no quote for requestId " + b.RequestID, RequestID: b.RequestID})
		return
	}
	if err != nil {
		s.executeInternal(c, "read the quote", err)
		return
	}
	ex := q.Execution
	switch {
	case call.ChainID != ex.OriginChainID:
		executeFail(c, http.StatusBadRequest, executeError{Error: fmt.Sprintf("chainId %d is not the quote's origin chain %d", call.ChainID, ex.OriginChainID),
			RequestID: b.RequestID})
		return
	case ex.DepositAddress != nil:
		executeFail(c, http.StatusBadRequest, executeError{Error: "a deposit-address quote is paid by a plain transfer, not executed", RequestID: b.RequestID})
		return
	case s.now().Unix() > ex.Deadline:
		executeFail(c, http.StatusBadRequest, executeError{Error: "the quote has expired: ask for a new one", RequestID: b.RequestID})
		return
	}
	if s.Gasless == nil {
		executeFail(c, http.StatusServiceUnavailable, executeError{Error: "gasless execution is not available"})
		return
	}
	// Before the simulation: once relayed, the batch's nonce is spent and it would revert.
	if started, err := s.Gasless.Started(ctx, b.RequestID); err != nil {
		s.executeInternal(c, "look up the request's workflow", err)
		return
	} else if started {
		executeFail(c, http.StatusConflict, executeError{Error: errAlreadyExecuting, RequestID: b.RequestID})
		return
	}
	if !s.simulateRelay(c, call, b.RequestID) {
		return
	}
	if err := s.Store.AddRequestFeature(ctx, b.RequestID, intent.FeatureGaslessExecution); err != nil {
		s.executeInternal(c, "mark the request", err)
		return
	}
	subsidize := b.ExecutionOptions != nil && b.ExecutionOptions.SubsidizeFees
	err = s.Gasless.OpenRelayed(ctx, b.RequestID, call, key.Integrator.ID, subsidize)
	switch {
	case errors.Is(err, door.ErrAlreadyExecuting):
		executeFail(c, http.StatusConflict, executeError{Error: errAlreadyExecuting, RequestID: b.RequestID})
		return
	case err != nil:
		s.executeInternal(c, "start the request", err)
		return
	}
	c.JSON(http.StatusOK, executeAnswer{Message: "Transaction submitted", RequestID: b.RequestID})
}

// executeInternal answers 500 {error: "Internal server error"} and logs why.
func (s *Server) executeInternal(c *gin.Context, what string, err error) {
	s.Logger.Error("POST /execute failed", "step", what, "error", err)
	executeFail(c, http.StatusInternalServerError, executeError{Error: "Internal server error"})
}

// executeCall validates the body and returns its call, or the public service's message.
func (s *Server) executeCall(b executeBody) (intent.RelayCall, string) {
	var call intent.RelayCall
	switch {
	case b.ExecutionKind == "":
		return call, "executionKind is required"
	case b.ExecutionKind != "rawCalls":
		return call, "executionKind must be rawCalls"
	case b.Data == nil:
		return call, "data is required"
	case b.Data.To == nil || strings.TrimSpace(*b.Data.To) == "":
		return call, "to is required"
	case b.Data.Data == nil:
		return call, "data is required"
	case b.Data.Value == nil:
		return call, "value is required"
	case b.Data.ChainID == nil:
		return call, "chainId is required"
	case b.Data.AuthorizationList != nil && len(*b.Data.AuthorizationList) == 0:
		return call, "authorizationList cannot be empty"
	}
	ch, err := s.Chains.Get(*b.Data.ChainID)
	if err != nil || ch.Disabled || ch.VMType != chains.VMTypeEVM {
		return call, fmt.Sprintf("chainId %d is not a supported EVM chain", *b.Data.ChainID)
	}
	to := strings.TrimSpace(*b.Data.To)
	if !common.IsHexAddress(to) {
		return call, "to is not an address"
	}
	data := strings.TrimSpace(*b.Data.Data)
	if data == "" {
		data = "0x"
	}
	if _, err := hexutil.Decode(data); err != nil {
		return call, "data is not 0x-prefixed hex"
	}
	call = intent.RelayCall{ChainID: ch.ID, To: strings.ToLower(to), Data: strings.ToLower(data), Value: strings.TrimSpace(*b.Data.Value)}
	if b.Data.AuthorizationList != nil {
		call.AuthorizationList = *b.Data.AuthorizationList
	}
	if _, err := evm.SimCallOf(common.Address{}, call); err != nil {
		return call, err.Error()
	}
	return call, ""
}

// relaySimulator is the simulator of a chain's client.
func (s *Server) relaySimulator(chainID uint64) (RelaySimulator, error) {
	if s.Quotes == nil || s.Quotes.Chains == nil {
		return nil, chains.ErrUnsupported
	}
	return chains.Capability[RelaySimulator](s.Quotes.Chains, chainID)
}

// executeBodyLimit bounds POST /execute's body: a batch's calldata and a few authorizations.
const executeBodyLimit = 256 << 10

// errAlreadyExecuting is the 409's error.
const errAlreadyExecuting = "the request is already executing: its deposit was found or it was executed before"

// executeStandalone relays a call that funds no quote (no requestId: an EIP-7702 upgrade, any
// call of the user's account) under a new requestId, as the public service does: simulated
// first like any call, stored as a request of its own (requestType Call, feature
// gasless_execution), relayed, and ended once mined (success unless it reverted). The
// integrator pays its gas whatever subsidizeFees says: nobody else does.
func (s *Server) executeStandalone(c *gin.Context, key *auth.Key, call intent.RelayCall) {
	ctx := c.Request.Context()
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		s.executeInternal(c, "make a requestId", err)
		return
	}
	requestID := hexutil.Encode(raw[:])
	if s.Gasless == nil {
		executeFail(c, http.StatusServiceUnavailable, executeError{Error: "gasless execution is not available"})
		return
	}
	if !s.simulateRelay(c, call, requestID) {
		return
	}
	if err := s.Store.InsertRelayRequest(ctx, requestID, call.ChainID, call.To, s.now()); err != nil {
		s.executeInternal(c, "store the request", err)
		return
	}
	if err := s.Gasless.RelayStandalone(ctx, requestID, call, key.Integrator.ID, key.ID); err != nil {
		s.executeInternal(c, "start the request", err)
		return
	}
	c.JSON(http.StatusOK, executeAnswer{Message: "Transaction submitted", RequestID: requestID})
}

// simulateRelay simulates the call and reports whether it would succeed; when not, it has
// answered: 400 {error, message, requestId, details} for a revert, 503 for a chain it cannot
// read now, 500 otherwise.
func (s *Server) simulateRelay(c *gin.Context, call intent.RelayCall, requestID string) bool {
	sim, err := s.relaySimulator(call.ChainID)
	if err != nil {
		executeFail(c, http.StatusBadRequest, executeError{Error: fmt.Sprintf("chain %d relays no calls", call.ChainID)})
		return false
	}
	details, err := sim.SimulateRelay(c.Request.Context(), call)
	switch {
	case errors.Is(err, chains.ErrUnavailable):
		executeFail(c, http.StatusServiceUnavailable, executeError{Error: fmt.Sprintf("chain %d is unavailable; retry shortly", call.ChainID)})
		return false
	case err != nil:
		s.executeInternal(c, "simulate the call", err)
		return false
	case details != nil:
		executeFail(c, http.StatusBadRequest, executeError{Error: details.Revert.Label, Message: details.Revert.Message,
			RequestID: requestID, Details: details})
		return false
	}
	return true
}

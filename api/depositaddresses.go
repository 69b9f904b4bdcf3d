package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// The deposit-address endpoints (issue 35, point 5; docs/api.md, "Deposit addresses"):
// GET /deposit-addresses/v1 in the public SDK's shape, GET /deposit-addresses/v2 with the
// address's deposit and sweep history, and the disabling of an address by the key that quoted
// it (POST /deposit-addresses/{depositAddressId}/disable/v2) or by an operator on the admin API.

// CodeDepositAddressNotFound is an address, requestId or depositAddressId with no deposit address
// behind it (404).
const CodeDepositAddressNotFound = "DEPOSIT_ADDRESS_NOT_FOUND"

var errDepositAddressNotFound = &Error{Code: CodeDepositAddressNotFound, Message: "deposit address not found"}

// depositAddressQuery is the lookup of GET /deposit-addresses/v1 and /v2: exactly one of the two.
type depositAddressQuery struct {
	Address   string `query:"address" pattern:"^0x[0-9a-fA-F]{40}$" doc:"the deposit address; either address or requestId"`
	RequestID string `query:"requestId" pattern:"^0x[0-9a-fA-F]{64}$" doc:"the requestId the address was created for (or a request it funded); either address or requestId"`
}

var depositAddressParams = schemas.MustQuery(depositAddressQuery{})

// depositAddressV1JSON is GET /deposit-addresses/v1's answer, the public SDK's shape.
type depositAddressV1JSON struct {
	DepositAddress string  `json:"depositAddress" pattern:"^0x[0-9a-fA-F]{40}$"`
	Type           string  `json:"type" enum:"open,strict"`
	RequestID      string  `json:"requestId" doc:"the requestId the address was created for"`
	ChainID        uint64  `json:"chainId" doc:"the chain the address was created on (the quote's origin)"`
	CreatedAt      string  `json:"createdAt" doc:"RFC 3339, UTC"`
	Currency       *string `json:"currency" doc:"the quote's origin currency"`
	RefundTo       *string `json:"refundTo" doc:"where a deposit that cannot be filled is refunded; null: no automatic refund (an open address quoted without refundTo); the zero address: whoever paid the address"`
}

// depositAddressJSON is the address as GET /deposit-addresses/v2 and the disable endpoints answer
// it: v1's fields and what the engine keeps besides.
type depositAddressJSON struct {
	depositAddressV1JSON
	ID              string  `json:"id" doc:"the depositAddressId of the quote's deposit step"`
	Depositor       string  `json:"depositor" doc:"the depositor of the address's salt (the quote's user), in whose name every sweep deposits"`
	OrderID         string  `json:"orderId" doc:"the order id of the address's salt, under which every sweep deposits"`
	RecoveryAddress *string `json:"recoveryAddress"`
	DisabledAt      *string `json:"disabledAt" doc:"when the address was disabled (RFC 3339, UTC): payments to it are no longer watched; null while it is"`
}

// depositAddressV2JSON is GET /deposit-addresses/v2's answer.
type depositAddressV2JSON struct {
	DepositAddress depositAddressJSON     `json:"depositAddress"`
	Transfers      []depositAddressTxJSON `json:"transfers" doc:"every payment seen arriving at the address, oldest first, with the request it funds and the sweep that moved it"`
}

// depositAddressTxJSON is one payment seen arriving at a deposit address and what became of it.
type depositAddressTxJSON struct {
	ChainID     uint64  `json:"chainId"`
	TxHash      string  `json:"txHash"`
	LogIndex    *int    `json:"logIndex" doc:"the ERC-20 Transfer log's index; null for a native transfer"`
	BlockNumber uint64  `json:"blockNumber"`
	From        string  `json:"from" doc:"who paid"`
	Currency    string  `json:"currency"`
	Amount      string  `json:"amount" pattern:"^[0-9]+$"`
	RequestID   *string `json:"requestId" doc:"the request it funds, once routed"`
	SweepTxHash *string `json:"sweepTxHash" doc:"the sweep that moved it into the depository, once sent"`
	SeenAt      string  `json:"seenAt"`
}

// depositAddressV1 serves GET /deposit-addresses/v1.
func (s *Server) depositAddressV1(c *gin.Context) {
	a := s.lookUpDepositAddress(c)
	if a == nil {
		return
	}
	c.JSON(http.StatusOK, s.depositAddressView(a).depositAddressV1JSON)
}

// depositAddressV2 serves GET /deposit-addresses/v2: the address and its history.
func (s *Server) depositAddressV2(c *gin.Context) {
	a := s.lookUpDepositAddress(c)
	if a == nil {
		return
	}
	list, err := s.Store.DepositAddressTransfers(c.Request.Context(), a.ID)
	if err != nil {
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the deposit address's history could not be read; retry shortly", cause: err})
		return
	}
	out := depositAddressV2JSON{DepositAddress: s.depositAddressView(a), Transfers: make([]depositAddressTxJSON, 0, len(list))}
	for _, t := range list {
		x := depositAddressTxJSON{ChainID: t.ChainID, TxHash: t.TxHash, BlockNumber: t.BlockNumber, From: s.addressOn(t.ChainID, t.Sender),
			Currency: s.addressOn(t.ChainID, t.Currency), Amount: t.Amount, RequestID: orNil(t.RequestID), SweepTxHash: orNil(t.SweepTx),
			SeenAt: t.SeenAt.UTC().Format(time.RFC3339Nano)}
		if t.LogIndex >= 0 {
			i := t.LogIndex
			x.LogIndex = &i
		}
		out.Transfers = append(out.Transfers, x)
	}
	c.JSON(http.StatusOK, out)
}

// lookUpDepositAddress reads the lookup of the v1 and v2 endpoints and the address it names; nil
// when it answered already.
func (s *Server) lookUpDepositAddress(c *gin.Context) *intent.DepositAddress {
	var q depositAddressQuery
	if err := depositAddressParams.Bind(c.Request.URL.Query(), &q); err != nil {
		abort(c, invalidInput(err.Error()))
		return nil
	}
	if (q.Address == "") == (q.RequestID == "") {
		abort(c, invalidInput("give exactly one of address and requestId"))
		return nil
	}
	if q.Address != "" && !intent.ChecksumValid(q.Address) {
		abort(c, invalidInput("address "+q.Address+" "+intent.ErrAddressChecksum))
		return nil
	}
	var a *intent.DepositAddress
	var err error
	if q.Address != "" {
		a, err = s.Store.DepositAddressByAddress(c.Request.Context(), q.Address)
	} else {
		a, err = s.Store.DepositAddressByRequest(c.Request.Context(), strings.ToLower(q.RequestID))
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		abort(c, errDepositAddressNotFound)
		return nil
	case err != nil:
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the deposit address could not be read; retry shortly", cause: err})
		return nil
	}
	return a
}

// disableDepositAddress serves POST /deposit-addresses/{depositAddressId}/disable/v2: only the
// key the address was quoted with may disable it (an operator may too, on the admin API). It
// answers the address, disabled; disabling twice keeps the first time.
func (s *Server) disableDepositAddress(c *gin.Context) {
	id := c.Param("depositAddressId")
	if !intent.IsHash32(id) {
		abort(c, errDepositAddressNotFound)
		return
	}
	id = strings.ToLower(id)
	creator, err := s.Store.DepositAddressCreator(c.Request.Context(), id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		abort(c, errDepositAddressNotFound)
		return
	case err != nil:
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the deposit address could not be read; retry shortly", cause: err})
		return
	}
	if creator == "" || creator != apiKeyOf(c).ID {
		abort(c, &Error{Code: CodeForbidden, Message: "only the API key the deposit address was quoted with may disable it"})
		return
	}
	a, err := s.Store.DisableDepositAddress(c.Request.Context(), id, time.Now())
	if err != nil {
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the deposit address could not be disabled; retry shortly", cause: err})
		return
	}
	s.Logger.Info("deposit address disabled", "depositAddressId", id, "apiKeyId", creator)
	c.JSON(http.StatusOK, s.depositAddressView(a))
}

// adminDisableDepositAddress is the operator's disabling of any deposit address, audited.
func (s *Server) adminDisableDepositAddress(c *gin.Context) {
	var b adminChange
	if !readAdminBody(c, &b, &b) {
		return
	}
	id := c.Param("depositAddressId")
	if !intent.IsHash32(id) {
		abort(c, errDepositAddressNotFound)
		return
	}
	by := b.actor(c)
	a, err := s.Store.DisableDepositAddressAsAdmin(c.Request.Context(), strings.ToLower(id), time.Now(), by)
	s.adminChanged(c, err, CodeDepositAddressNotFound, http.StatusOK, "deposit_address.disable", by,
		func() any { return s.depositAddressView(a) })
}

// depositAddressView is an address as the endpoints answer it, its addresses in their chain
// family's canonical form (the store keeps them in lower case).
func (s *Server) depositAddressView(a *intent.DepositAddress) depositAddressJSON {
	on := func(addr string) string { return s.addressOn(a.ChainID, addr) }
	out := depositAddressJSON{depositAddressV1JSON: depositAddressV1JSON{DepositAddress: on(a.Address), Type: string(a.Type),
		RequestID: a.RequestID, ChainID: a.ChainID, CreatedAt: a.CreatedAt.UTC().Format(time.RFC3339Nano)},
		ID: a.ID, Depositor: on(a.Depositor), OrderID: a.OrderID}
	if a.Currency != "" {
		cur := on(a.Currency)
		out.Currency = &cur
	}
	if a.RefundTo != "" {
		r := on(a.RefundTo)
		out.RefundTo = &r
	}
	if a.RecoveryAddress != "" {
		r := on(a.RecoveryAddress)
		out.RecoveryAddress = &r
	}
	if a.DisabledAt != nil {
		at := a.DisabledAt.UTC().Format(time.RFC3339Nano)
		out.DisabledAt = &at
	}
	return out
}

// addressOn is addr in the canonical form of chainID's family, or as stored when the registry
// does not have the chain (any more).
func (s *Server) addressOn(chainID uint64, addr string) string {
	if s.Chains != nil {
		if ch, err := s.Chains.Get(chainID); err == nil {
			if c, ok := ch.Notation().CanonicalAddress(addr); ok {
				return c
			}
		}
	}
	return addr
}

func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

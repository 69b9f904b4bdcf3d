package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/store"
)

// POST /authorize: the authorize step of a withdrawal from the perps exchange (docs/api.md,
// "POST /authorize"). The client signs the step's NonceMapping message and posts the step's body
// with the signature as the query parameter `signature`; the API recomputes the message from the
// body, recovers its signer, and binds the nonce of the depositor's transfer to the order, so
// that the transfer the deposit step sends with that nonce is tied to the request.

// authorizeBodyLimit bounds POST /authorize's body: seven short fields, and the referrer the SDK
// adds.
const authorizeBodyLimit = 8 << 10

// maxJSONInteger is the largest integer a JSON number carries exactly in every client (2^53 − 1):
// nonces are milliseconds, chain ids far smaller.
const maxJSONInteger = 1<<53 - 1

// authorizeBody is POST /authorize's body as the step's post.body writes it (perps.AuthorizeBody;
// the document's authorizeBodyJSON). The numbers are read by hand, so that each has its own
// message; unknown fields (the SDK's referrer) are ignored.
type authorizeBody struct {
	Type             string          `json:"type"`
	WalletChainID    json.RawMessage `json:"walletChainId"`
	Wallet           string          `json:"wallet"`
	Depositor        string          `json:"depositor"`
	Nonce            json.RawMessage `json:"nonce"`
	ID               string          `json:"id"`
	SignatureChainID json.RawMessage `json:"signatureChainId"`
}

// positiveInteger reads a JSON number that is a positive integer of at most 2^53 − 1, written
// without sign, fraction, exponent or leading zeros.
func positiveInteger(raw json.RawMessage, name string) (uint64, *Error) {
	s := string(raw)
	n, err := strconv.ParseUint(s, 10, 64)
	if len(raw) == 0 || err != nil || n == 0 || n > maxJSONInteger || strconv.FormatUint(n, 10) != s {
		return 0, invalidInput(name + " must be a positive integer (a JSON number up to 2^53 - 1)")
	}
	return n, nil
}

// authorize serves POST /authorize. It counts the call against the (key, wallet) bucket and the
// key's ceiling first (the middleware leaves the route alone: only the body names the wallet),
// then validates the body, checks the signature and binds the nonce.
func (s *Server) authorize(c *gin.Context) {
	var b authorizeBody
	decodeErr := decodeAuthorizeBody(c, &b)
	if s.Limits != nil {
		wallet := ""
		if intent.IsAddress(b.Wallet) { // it becomes part of a Redis key: only an address
			wallet = strings.ToLower(b.Wallet)
		}
		caller := s.callerOf(c)
		caller.Wallet = wallet
		if !s.limit(c, caller, ratelimit.Authorize) {
			return
		}
	}
	if decodeErr != nil {
		abort(c, decodeErr)
		return
	}
	m, sig, e := s.nonceMappingOf(c, &b)
	if e != nil {
		abort(c, e)
		return
	}
	ctx := c.Request.Context()
	ref, err := s.Store.RequestByOrderID(ctx, strings.ToLower(m.OrderID.Hex()))
	switch {
	case errors.Is(err, store.ErrNotFound):
		abort(c, &Error{Code: CodeRequestNotFound, Message: "id names no request's order"})
		return
	case err != nil:
		abort(c, storeFailure(err, "the request could not be read"))
		return
	case ref.Origin != perps.ChainID:
		abort(c, invalidInput(fmt.Sprintf("the order is not a withdrawal from chain %d: its origin is chain %d", perps.ChainID, ref.Origin)))
		return
	case !strings.EqualFold(ref.User, m.Wallet.Hex()):
		abort(c, &Error{Code: CodeForbidden, Message: "wallet is not the request's user"})
		return
	}
	bound, err := s.Store.BindPerpsNonce(ctx, store.PerpsNonceMapping{OrderID: ref.OrderID, RequestID: ref.ID,
		Wallet: m.Wallet.Hex(), Depositor: m.Depositor.Hex(), Nonce: m.Nonce, SignatureChainID: m.SignatureChainID, Signature: sig})
	var conflict *store.NonceMappingConflict
	switch {
	case errors.As(err, &conflict):
		abort(c, nonceConflict(ref.OrderID, m, conflict.Stored))
		return
	case err != nil:
		abort(c, storeFailure(err, "the nonce mapping could not be stored"))
		return
	}
	c.JSON(http.StatusOK, authorizedJSON{Message: "Nonce mapping stored", RequestID: bound.RequestID, OrderID: bound.OrderID,
		Wallet: bound.Wallet, Depositor: bound.Depositor, Nonce: bound.Nonce, SignatureChainID: bound.SignatureChainID})
}

// decodeAuthorizeBody reads the body into b; an error is the 400 to answer once the call has
// been counted (b keeps what could be read, for its wallet).
func decodeAuthorizeBody(c *gin.Context, b *authorizeBody) *Error {
	const shape = "{type: \"nonce-mapping\", walletChainId, wallet, depositor, nonce, id, signatureChainId}"
	dec := json.NewDecoder(c.Request.Body) // bounded to authorizeBodyLimit (bound)
	if err := dec.Decode(b); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return invalidInput(fmt.Sprintf("body larger than %d bytes", authorizeBodyLimit))
		}
		return invalidInput("body must be " + shape)
	}
	if dec.More() {
		return invalidInput("body must be a single JSON object " + shape)
	}
	return nil
}

// nonceMappingOf is the message the body says was signed, once every field and the signature
// are well formed and the signature is the wallet's over it.
func (s *Server) nonceMappingOf(c *gin.Context, b *authorizeBody) (perps.NonceMapping, string, *Error) {
	var m perps.NonceMapping
	if b.Type != perps.AuthorizeType {
		return m, "", invalidInput(`type must be "` + perps.AuthorizeType + `"`)
	}
	walletChain, e := positiveInteger(b.WalletChainID, "walletChainId")
	if e != nil {
		return m, "", e
	}
	if walletChain != perps.ChainID {
		return m, "", invalidInput(fmt.Sprintf("walletChainId must be %d, the perps exchange", perps.ChainID))
	}
	for name, a := range map[string]string{"wallet": b.Wallet, "depositor": b.Depositor} {
		if !intent.IsAddress(a) || !intent.ChecksumValid(a) {
			return m, "", invalidInput(name + " must be a 0x-prefixed 20-byte address")
		}
	}
	if !intent.IsHash32(b.ID) {
		return m, "", invalidInput("id must be the order id, 0x and 32 bytes of hex")
	}
	if m.Nonce, e = positiveInteger(b.Nonce, "nonce"); e != nil {
		return m, "", e
	}
	if m.SignatureChainID, e = positiveInteger(b.SignatureChainID, "signatureChainId"); e != nil {
		return m, "", e
	}
	m.Wallet, m.Depositor, m.OrderID = common.HexToAddress(b.Wallet), common.HexToAddress(b.Depositor), common.HexToHash(b.ID)
	raw := c.Query("signature")
	if raw == "" {
		return m, "", invalidInput("the query parameter signature is required: the signature of the step's sign data")
	}
	sig, err := perps.ParseSignature(raw)
	if err != nil {
		return m, "", &Error{Code: CodeInvalidSignature, Message: "signature must be 0x and 65 bytes of hex"}
	}
	signer, err := perps.VerifyNonceMapping(s.perpsExchange().NonceMappingTypedData(m), sig)
	if err != nil || signer != m.Wallet {
		return m, "", &Error{Code: CodeInvalidSignature, Message: "the signature is not the wallet's over the NonceMapping message this body " +
			"describes (signed on chain signatureChainId): the body must carry what was signed", cause: err}
	}
	return m, strings.ToLower(raw), nil
}

// nonceConflict is the 409 for a binding that contradicts the one stored.
func nonceConflict(orderID string, m perps.NonceMapping, stored store.PerpsNonceMapping) *Error {
	if stored.OrderID == orderID {
		return &Error{Code: CodeNonceMappingConflict,
			Message: fmt.Sprintf("the order is already bound to nonce %d of %s; a withdrawal's transfer must use that nonce", stored.Nonce, stored.Depositor)}
	}
	return &Error{Code: CodeNonceMappingConflict,
		Message: fmt.Sprintf("nonce %d of %s is already bound to another order; sign the withdrawal with a new nonce", m.Nonce, strings.ToLower(m.Depositor.Hex()))}
}

// storeFailure is the answer to a database error: 503 when it could not be reached, else 500.
func storeFailure(err error, what string) *Error {
	if errors.Is(err, intent.ErrUnavailable) {
		return &Error{Code: CodeServiceUnavailable, Message: what + "; retry shortly", cause: err}
	}
	return &Error{Code: CodeUnknownError, Message: "internal error", cause: err}
}

// perpsExchange is the naming of the exchange whose withdrawals POST /authorize binds: the one
// the quotes' steps were written under (the registry's chain entry, chains.Chain.Exchange), so
// that the message verified is the message signed; Server.Perps when the registry has no such
// chain.
func (s *Server) perpsExchange() perps.Exchange {
	if s.Chains != nil {
		if ch, err := s.Chains.Get(perps.ChainID); err == nil && ch.Exchange != "" {
			return perps.Exchange{Word: ch.Exchange}
		}
	}
	return s.Perps
}

package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/intent"
)

// txBodyLimit bounds the bodies of the transaction hints; a hint is a few hundred bytes, a
// same-chain transaction's JSON a few kilobytes.
const txBodyLimit = 64 << 10

// chainIDParam is a chain id as clients send it in a transaction hint: a JSON number or a
// decimal string (the SDK sends chainId.toString()). Either way a positive integer, written
// without sign, leading zeros, fraction or exponent.
type chainIDParam uint64

// UnmarshalJSON implements json.Unmarshaler.
func (c *chainIDParam) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 || strconv.FormatUint(n, 10) != s {
		return errors.New("chainId must be a positive integer, as a number or a decimal string")
	}
	*c = chainIDParam(n)
	return nil
}

// indexBody is the body of POST /transactions/index. requestId is optional (the SDK's types
// list it); the deposit's order id already names the request, so it is only logged.
type indexBody struct {
	ChainID   chainIDParam `json:"chainId"`
	TxHash    string       `json:"txHash"`
	RequestID string       `json:"requestId"`
}

// singleBody is the body of POST /transactions/single: tx is the transaction as a JSON-encoded
// string, as the SDK sends it for a same-chain request.
type singleBody struct {
	RequestID string       `json:"requestId"`
	ChainID   chainIDParam `json:"chainId"`
	Tx        string       `json:"tx"`
}

// singleTx is what POST /transactions/single reads of its tx: the hash. The SDK reports a
// replaced transaction with the new hash as replacementTxHash instead of txHash.
type singleTx struct {
	TxHash            string `json:"txHash"`
	ReplacementTxHash string `json:"replacementTxHash"`
}

// indexTransaction serves POST /transactions/index: a client's hint that a deposit was sent.
func (s *Server) indexTransaction(c *gin.Context) {
	var b indexBody
	if msg := bindHint(c, &b, "{chainId: number or decimal string, txHash: string, requestId?: string}"); msg != "" {
		abort(c, invalidInput(msg))
		return
	}
	if b.RequestID != "" && !intent.IsHash32(b.RequestID) {
		abort(c, invalidInput("requestId must be a 0x-prefixed 32-byte hash"))
		return
	}
	n, ok := s.indexHash(c, uint64(b.ChainID), b.TxHash, b.RequestID)
	if ok {
		c.JSON(http.StatusOK, indexedJSON{Message: "indexed", Deposits: n})
	}
}

// indexSingle serves POST /transactions/single: the SDK's hint for a same-chain request. It
// indexes the transaction's hash exactly as POST /transactions/index does (a same-chain
// request deposits into the depository like any other) and answers {message}.
func (s *Server) indexSingle(c *gin.Context) {
	var b singleBody
	if msg := bindHint(c, &b, "{requestId: string, chainId: number or decimal string, tx: JSON-encoded transaction string}"); msg != "" {
		abort(c, invalidInput(msg))
		return
	}
	if !intent.IsHash32(b.RequestID) {
		abort(c, invalidInput("requestId must be a 0x-prefixed 32-byte hash"))
		return
	}
	var tx singleTx
	if b.Tx == "" || json.Unmarshal([]byte(b.Tx), &tx) != nil {
		abort(c, invalidInput("tx must be the transaction as a JSON-encoded string, with its txHash"))
		return
	}
	hash := tx.TxHash
	if hash == "" {
		hash = tx.ReplacementTxHash
	}
	if _, ok := s.indexHash(c, uint64(b.ChainID), hash, b.RequestID); ok {
		c.JSON(http.StatusOK, messageJSON{Message: "indexed"})
	}
}

// errUnsupportedChain answers a hint for a chain the engine does not serve: unknown, or
// disabled in the chain file.
var errUnsupportedChain = &Error{Code: CodeUnsupportedChain, Message: "chainId is not a supported chain"}

// bindHint decodes a hint's body into v; a non-empty result is the 400 message.
func bindHint(c *gin.Context, v any, shape string) string {
	dec := json.NewDecoder(c.Request.Body) // bounded to txBodyLimit (bound)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fmt.Sprintf("body larger than %d bytes", txBodyLimit)
		}
		return "body must be " + shape
	}
	if dec.More() {
		return "body must be a single JSON object " + shape
	}
	return ""
}

// indexHash routes the deposits of one reported transaction. When it returns false it has
// answered: 400 for a bad transaction id (as the chain's family writes them: a 0x-prefixed
// 32-byte hash on EVM chains) or an unknown or disabled chain, 202 for a transaction not mined
// yet, 503 when the chain could not be read.
func (s *Server) indexHash(c *gin.Context, chainID uint64, txHash, requestID string) (int, bool) {
	if chainID == 0 {
		abort(c, invalidInput("chainId is required"))
		return 0, false
	}
	ch, err := s.Chains.Get(chainID)
	if err != nil || ch.Disabled {
		// A disabled chain's deposits are not served: routed, they started workflows that
		// waited until they timed out.
		abort(c, errUnsupportedChain)
		return 0, false
	}
	tx, err := ch.Notation().ParseTxID(txHash)
	if err != nil {
		abort(c, invalidInput("txHash "+err.Error()))
		return 0, false
	}
	n, err := s.Indexer.IndexTransaction(c.Request.Context(), chainID, tx)
	switch {
	case errors.Is(err, door.ErrNotMined):
		c.JSON(http.StatusAccepted, messageJSON{Message: "transaction is not mined yet; it will be detected when it is"})
	case errors.Is(err, chains.ErrUnknownChain):
		abort(c, errUnsupportedChain)
	case err != nil:
		s.Logger.Warn("transaction index failed", "chainId", chainID, "tx", txHash, "requestId", requestID, "error", err)
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "could not index the transaction now; it will be detected on chain", cause: err})
	default:
		return n, true
	}
	return 0, false
}

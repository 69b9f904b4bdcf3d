package api

import (
	"errors"
	"net/http"
	"regexp"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/deposits"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// hash32 matches a 0x-prefixed 32-byte hex value: requestIds and transaction hashes.
var hash32 = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

type statusJSON struct {
	Status             intent.Status           `json:"status"`
	InTxHashes         []string                `json:"inTxHashes"`
	TxHashes           []string                `json:"txHashes"`
	UpdatedAt          int64                   `json:"updatedAt"`
	OriginChainID      uint64                  `json:"originChainId"`
	DestinationChainID uint64                  `json:"destinationChainId"`
	FailReason         intent.FailReason       `json:"failReason"`
	RefundFailReason   intent.RefundFailReason `json:"refundFailReason"`
	CreatedAt          int64                   `json:"createdAt"`
}

// intentStatus serves GET /intents/status/v3 from one read-model row.
func (s *Server) intentStatus(c *gin.Context) {
	id := c.Query("requestId")
	if id == "" {
		c.JSON(http.StatusBadRequest, gin.H{"message": "requestId is required"})
		return
	}
	if !hash32.MatchString(id) {
		c.JSON(http.StatusNotFound, gin.H{"message": "request not found"})
		return
	}
	row, err := s.Store.Status(c.Request.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		c.JSON(http.StatusNotFound, gin.H{"message": "request not found"})
		return
	}
	if err != nil {
		s.Logger.Error("status read failed", "error", err)
		c.JSON(http.StatusServiceUnavailable, gin.H{"message": "status is temporarily unavailable"})
		return
	}
	out := statusJSON{Status: row.Status, InTxHashes: row.InTxHashes, TxHashes: row.TxHashes, UpdatedAt: row.UpdatedAt.UnixMilli(),
		OriginChainID: row.OriginChainID, DestinationChainID: row.DestinationChainID, FailReason: row.FailReason,
		RefundFailReason: row.RefundFailReason, CreatedAt: row.CreatedAt.UnixMilli()}
	// The spec: N/A on non-failure statuses, the recorded reason or UNKNOWN on failure and refund.
	switch row.Status {
	case intent.StatusFailure, intent.StatusRefund:
		if out.FailReason == intent.FailReasonNA || out.FailReason == "" {
			out.FailReason = intent.FailReasonUnknown
		}
	default:
		out.FailReason = intent.FailReasonNA
	}
	if out.RefundFailReason == "" {
		out.RefundFailReason = intent.RefundFailReasonNA
	}
	if out.InTxHashes == nil {
		out.InTxHashes = []string{}
	}
	if out.TxHashes == nil {
		out.TxHashes = []string{}
	}
	c.JSON(http.StatusOK, out)
}

type indexBody struct {
	ChainID uint64 `json:"chainId"`
	TxHash  string `json:"txHash"`
}

// indexTransaction serves POST /transactions/index: a client's hint that a deposit was sent.
func (s *Server) indexTransaction(c *gin.Context) {
	var b indexBody
	if err := c.ShouldBindJSON(&b); err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"message": "body must be {chainId: number, txHash: string}"})
		return
	}
	if !hash32.MatchString(b.TxHash) {
		c.JSON(http.StatusBadRequest, gin.H{"message": "txHash must be a 0x-prefixed 32-byte hash"})
		return
	}
	if _, err := s.Chains.Registry().Get(b.ChainID); err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"message": "chainId is not a supported chain"})
		return
	}
	n, err := s.Indexer.IndexTransaction(c.Request.Context(), b.ChainID, common.HexToHash(b.TxHash))
	switch {
	case errors.Is(err, deposits.ErrNotMined):
		c.JSON(http.StatusAccepted, gin.H{"message": "transaction is not mined yet; it will be detected when it is"})
	case errors.Is(err, chains.ErrUnknownChain):
		c.JSON(http.StatusBadRequest, gin.H{"message": "chainId is not a supported chain"})
	case err != nil:
		s.Logger.Warn("transaction index failed", "chainId", b.ChainID, "tx", b.TxHash, "error", err)
		c.JSON(http.StatusServiceUnavailable, gin.H{"message": "could not index the transaction now; it will be detected on chain"})
	default:
		c.JSON(http.StatusOK, gin.H{"message": "indexed", "deposits": n})
	}
}

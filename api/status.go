package api

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// statusV3JSON is the answer of GET /intents/status/v3.
type statusV3JSON struct {
	Status             intent.Status           `json:"status"`
	InTxHashes         []string                `json:"inTxHashes"`
	TxHashes           []string                `json:"txHashes"`
	UpdatedAt          int64                   `json:"updatedAt"`
	OriginChainID      uint64                  `json:"originChainId"`
	DestinationChainID uint64                  `json:"destinationChainId"`
	FailReason         intent.FailReason       `json:"failReason"`
	RefundFailReason   intent.RefundFailReason `json:"refundFailReason"`
	QuoteCreatedAt     int64                   `json:"quoteCreatedAt"`
}

// statusV1JSON is the answer of the legacy GET /intents/status. `details` is in the SDK's
// types but this build has nothing to put there, so it is omitted.
type statusV1JSON struct {
	Status             string   `json:"status"`
	Details            string   `json:"details,omitempty"`
	InTxHashes         []string `json:"inTxHashes"`
	TxHashes           []string `json:"txHashes"`
	Time               int64    `json:"time"`
	OriginChainID      uint64   `json:"originChainId"`
	DestinationChainID uint64   `json:"destinationChainId"`
}

// statusV2JSON is the answer of GET /intents/status/v2: v1's fields, its own status
// vocabulary, and the quote's creation time.
type statusV2JSON struct {
	statusV1JSON
	QuoteCreatedAt int64 `json:"quoteCreatedAt"`
}

// statusView renders a read-model row as one version of the status endpoint.
type statusView func(row *store.StatusRow) any

// statusV3 is GET /intents/status/v3: failReason is N/A except on failure and refund, where
// it is the recorded reason or UNKNOWN, and refundFailReason N/A when none was recorded (the
// spec's rules, kept in package intent).
func statusV3(row *store.StatusRow) any {
	return statusV3JSON{Status: row.Status, InTxHashes: nonNil(row.InTxHashes), TxHashes: nonNil(row.TxHashes),
		UpdatedAt: row.UpdatedAt.UnixMilli(), OriginChainID: row.OriginChainID, DestinationChainID: row.DestinationChainID,
		FailReason: row.FailReason.ForStatus(row.Status), RefundFailReason: row.RefundFailReason.OrNA(),
		QuoteCreatedAt: row.CreatedAt.UnixMilli()}
}

// statusV2 is GET /intents/status/v2 (statuses mapped by intent.Status.V2).
func statusV2(row *store.StatusRow) any {
	v1 := statusV1(row).(statusV1JSON)
	v1.Status = row.Status.V2()
	return statusV2JSON{statusV1JSON: v1, QuoteCreatedAt: row.CreatedAt.UnixMilli()}
}

// statusV1 is the legacy GET /intents/status (statuses mapped by intent.Status.V1).
func statusV1(row *store.StatusRow) any {
	return statusV1JSON{Status: row.Status.V1(), InTxHashes: nonNil(row.InTxHashes), TxHashes: nonNil(row.TxHashes),
		Time: row.UpdatedAt.UnixMilli(), OriginChainID: row.OriginChainID, DestinationChainID: row.DestinationChainID}
}

// nonNil makes an empty hash list a JSON [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// intentStatus serves one version of the status endpoint from one read-model row; the
// versions differ only in how view renders it.
func (s *Server) intentStatus(view statusView) gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.Query("requestId")
		if id == "" {
			abort(c, &Error{Code: CodeInvalidInput, Message: "requestId is required"})
			return
		}
		if !intent.IsHash32(id) {
			abort(c, errRequestNotFound)
			return
		}
		row, err := s.Store.Status(c.Request.Context(), id)
		if errors.Is(err, store.ErrNotFound) {
			abort(c, errRequestNotFound)
			return
		}
		if err != nil {
			s.Logger.Error("status read failed", "error", err)
			abort(c, &Error{Code: CodeServiceUnavailable, Message: "status is temporarily unavailable", cause: err})
			return
		}
		c.JSON(http.StatusOK, view(row))
	}
}

package api

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// withdrawalsQuery is GET /withdrawals/status's parameter.
type withdrawalsQuery struct {
	ID string `query:"id,required" doc:"a requestId: this engine has no withdrawal jobs of their own, a withdrawal is the return of a request's deposit"`
}

var withdrawalsParams = schemas.MustQuery(withdrawalsQuery{})

// withdrawalStatusJSON is GET /withdrawals/status's answer, in the public SDK's shape.
type withdrawalStatusJSON struct {
	Status      string            `json:"status" enum:"processing,executed,failed"`
	Transaction *withdrawalTxJSON `json:"transaction" doc:"the transaction that returned the deposit (executed only)"`
	Withdrawal  *withdrawalJSON   `json:"withdrawal" doc:"the deposit being returned, once one was seen"`
	Reason      *string           `json:"reason" doc:"why the status is what it is, for people"`
}

type withdrawalTxJSON struct {
	ChainID uint64 `json:"chainId"`
	TxHash  string `json:"txHash" pattern:"^0x[0-9a-fA-F]{64}$"`
}

type withdrawalJSON struct {
	RequestID string `json:"requestId"`
	ChainID   uint64 `json:"chainId"`
	Currency  string `json:"currency"`
	Amount    string `json:"amount" pattern:"^[0-9]+$"`
	Depositor string `json:"depositor"`
	Recipient string `json:"recipient" doc:"where a refund goes (refundTo); a manual refund may name another"`
}

// withdrawalStatus serves GET /withdrawals/status. The public service's withdrawals are jobs that
// move a stuck deposit back to its owner (POST /withdrawals/request, not offered here); in this
// engine a deposit that cannot be filled is refunded, automatically or by an operator's manual
// refund, so the id is the request's id and the status is that of the return of its deposit:
// executed once a refund landed, processing while the request is in flight or its deposit
// waits in the depository for an operator, failed when there is nothing to return.
func (s *Server) withdrawalStatus(c *gin.Context) {
	var q withdrawalsQuery
	if err := withdrawalsParams.Bind(c.Request.URL.Query(), &q); err != nil {
		abort(c, invalidInput(err.Error()))
		return
	}
	if !intent.IsHash32(q.ID) {
		abort(c, errRequestNotFound)
		return
	}
	rec, err := s.Store.Record(c.Request.Context(), q.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		abort(c, errRequestNotFound)
		return
	case err != nil:
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the request could not be read; retry shortly", cause: err})
		return
	}
	c.JSON(http.StatusOK, withdrawalOf(rec))
}

// withdrawalOf is the withdrawal status of a request record.
func withdrawalOf(rec *intent.Record) withdrawalStatusJSON {
	out := withdrawalStatusJSON{Status: "failed"}
	reason := func(r string) { out.Reason = &r }
	if d := rec.Protocol.Deposit; d != nil && d.Origin != nil {
		o := d.Origin
		out.Withdrawal = &withdrawalJSON{RequestID: rec.ID, ChainID: o.ChainID, Currency: o.Currency, Amount: o.Amount,
			Depositor: o.Depositor, Recipient: rec.RefundTo}
	}
	var refunds []intent.SettlementTx
	if st := rec.Protocol.Settlement; st != nil {
		refunds = st.Destination.Refunds
	}
	switch {
	case len(refunds) > 0:
		last := refunds[len(refunds)-1]
		out.Status, out.Transaction = "executed", &withdrawalTxJSON{ChainID: last.ChainID, TxHash: last.TransactionID}
	case rec.Protocol.IsWithdrawable:
		out.Status = "processing"
		reason("the deposit is held in the depository until an operator refunds it")
	case rec.Status == intent.StatusSuccess:
		reason("the request was filled: nothing to return")
	case rec.Status == intent.StatusFailure || rec.Status == intent.StatusRefund:
		reason("no deposit is held for this request")
	default:
		out.Status = "processing"
		reason("the request is in flight: it is filled, or its deposit refunded, without a withdrawal")
	}
	return out
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/metrics"
)

// InsertQuote stores a quote and its request row in one transaction. A database it could not
// reach is intent.ErrUnavailable (see unavailable).
func (s *Store) InsertQuote(ctx context.Context, q intent.NewQuote) error {
	rec, err := encodeRecord(&q.Record)
	if err != nil {
		return err
	}
	order, err := json.Marshal(q.OrderData)
	if err != nil {
		return err
	}
	quote, err := json.Marshal(q.Execution)
	if err != nil {
		return err
	}
	var apiKeyID any
	if q.APIKeyID != "" {
		apiKeyID = q.APIKeyID
	}
	// One statement, so one round trip: both rows land or neither does.
	if _, err := s.pool.Exec(ctx, `WITH r AS (
			INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id, order_id, api_key_id, record, volume_usd)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id)
		INSERT INTO quotes (request_id, order_id, order_data, quote, expires_at) SELECT r.id, $7, $11, $12, $13 FROM r`,
		q.Record.ID, string(q.Record.Status), q.Record.User, q.Record.Recipient, int64(q.Origin), int64(q.Dest),
		q.OrderID, apiKeyID, rec, q.VolumeUSD, order, quote, q.ExpiresAt); err != nil {
		return fmt.Errorf("insert quote: %w", unavailable(err))
	}
	return nil
}

// IntegratorVolume30d is the USD volume of the successful requests of an integrator's keys over
// the last 30 days, the revenue share's tier measure (the spec's trailing 30-day aggregate).
func (s *Store) IntegratorVolume30d(ctx context.Context, integratorID string) (decimal.Decimal, error) {
	var v decimal.Decimal
	if !isUUID(integratorID) {
		return v, nil
	}
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(sum(r.volume_usd), 0)::text FROM requests r
		JOIN api_keys k ON k.id = r.api_key_id
		WHERE k.integrator_id = $1 AND r.status = 'success' AND r.created_at > now() - interval '30 days'`, integratorID).Scan(&v)
	return v, err
}

// StoredQuote is a quote read back for execution.
type StoredQuote struct {
	RequestID string
	OrderID   string
	OrderData intent.OrderData
	Execution intent.Execution
	ExpiresAt time.Time
	APIKeyID  string
}

// QuoteByOrderID finds the quote whose order id a deposit names.
func (s *Store) QuoteByOrderID(ctx context.Context, orderID string) (*StoredQuote, error) {
	return s.quote(ctx, `WHERE q.order_id = $1`, orderID)
}

// QuoteByRequestID finds a quote by its requestId.
func (s *Store) QuoteByRequestID(ctx context.Context, requestID string) (*StoredQuote, error) {
	return s.quote(ctx, `WHERE q.request_id = $1`, requestID)
}

func (s *Store) quote(ctx context.Context, where string, arg any) (*StoredQuote, error) {
	var q StoredQuote
	var order, exec []byte
	err := s.pool.QueryRow(ctx, `SELECT q.request_id, q.order_id, q.order_data, q.quote, q.expires_at,
		coalesce(r.api_key_id::text, '') FROM quotes q JOIN requests r ON r.id = q.request_id `+where, arg).
		Scan(&q.RequestID, &q.OrderID, &order, &exec, &q.ExpiresAt, &q.APIKeyID)
	if err != nil {
		return nil, notFound(err)
	}
	if err := json.Unmarshal(order, &q.OrderData); err != nil {
		return nil, fmt.Errorf("order data of %s: %w", q.RequestID, err)
	}
	if err := json.Unmarshal(exec, &q.Execution); err != nil {
		return nil, fmt.Errorf("execution of %s: %w", q.RequestID, err)
	}
	return &q, nil
}

// StatusRow is what GET /intents/status/v3 serves: one indexed row, no JSON digging.
type StatusRow struct {
	Status             intent.Status
	InTxHashes         []string
	TxHashes           []string
	UpdatedAt          time.Time
	OriginChainID      uint64
	DestinationChainID uint64
	FailReason         intent.FailReason
	RefundFailReason   intent.RefundFailReason
	CreatedAt          time.Time
}

// Status reads a request's status row: one indexed read, shared with the concurrent reads of
// other requests when the API is busy (statusBatch).
func (s *Store) Status(ctx context.Context, requestID string) (*StatusRow, error) {
	return s.status.get(ctx, requestID)
}

// HasDeposit reports whether the request's workflow has recorded d as its deposit (the chain,
// transaction and log of the event): the workflow writes it in the read model the moment it
// takes the deposit.
func (s *Store) HasDeposit(ctx context.Context, requestID string, d intent.Deposit) (bool, error) {
	var has bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM request_transactions
		WHERE request_id = $1 AND direction = $2 AND chain_id = $3 AND lower(tx_hash) = lower($4) AND log_index = $5)`,
		requestID, intent.TxIn, int64(d.ChainID), d.TxHash, int(d.LogIndex)).Scan(&has)
	return has, err
}

// Record reads a request's full v3 record.
func (s *Store) Record(ctx context.Context, requestID string) (*intent.Record, error) {
	var raw []byte
	if err := s.pool.QueryRow(ctx, `SELECT record FROM requests WHERE id = $1`, requestID).Scan(&raw); err != nil {
		return nil, notFound(err)
	}
	var rec intent.Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

// ApplyTransition writes a transition to the read model and an outbox row for
// request.status.updated in one transaction. It is idempotent and ordered: a transition with a
// version not newer than the stored one changes nothing (a retried write or a late replay).
// Transactions are recorded even then, because they are facts, not state. Transitions written
// at the same time share their transaction (transitionbatch.go); when ctx ends first the write
// may still commit, which a retry finds applied.
func (s *Store) ApplyTransition(ctx context.Context, t intent.Transition) (applied bool, err error) {
	if !t.Status.Valid() {
		return false, fmt.Errorf("invalid status %q", t.Status)
	}
	if t.FailReason == "" {
		t.FailReason = intent.FailReasonNA
	}
	t.RefundFailReason = t.RefundFailReason.OrNA()
	a := &transitionAsk{t: t, done: make(chan struct{})}
	if err := s.transitions.Ask(ctx, a, a.done); err != nil {
		return false, err
	}
	return a.applied, a.err
}

// requestRow is what a transition reads of its request, under the row's lock, and writes back.
type requestRow struct {
	raw          []byte
	version      int64
	in, out      []string
	origin, dest int64
	keyID        *string
	depositSeen  *time.Time
}

// applyTransition queues the writes of t on row (read under its lock in this transaction, and
// updated in memory so that a second transition of the request in the same transaction starts
// from the first's result) and returns whether t's status applied and what it tells the metrics.
func applyTransition(row *requestRow, t intent.Transition, writes *pgx.Batch) (applied bool, seen observation, err error) {
	var rec intent.Record
	if err := decodeRecord(row.raw, &rec); err != nil {
		return false, seen, err
	}
	in, out := slices.Clone(row.in), slices.Clone(row.out)
	prevStatus, prevRefundFail := rec.Status, rec.Data.RefundFailReason
	// A transition that fails takes back what it queued, so the transaction's other writes stand.
	mark := len(writes.QueuedQueries)
	fail := func(err error) (bool, observation, error) {
		writes.QueuedQueries = writes.QueuedQueries[:mark]
		return false, observation{}, err
	}
	for _, x := range t.Txs {
		// Upserted by the item's key: a later fact (mined, its fee, its block) completes an
		// earlier write; a pending write never takes back a mined status.
		writes.Queue(`INSERT INTO request_transactions
				(request_id, direction, chain_id, tx_hash, log_index, block_number, status, kind)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
				ON CONFLICT (request_id, direction, chain_id, tx_hash, log_index) DO UPDATE SET
					block_number = COALESCE(NULLIF(EXCLUDED.block_number, 0), request_transactions.block_number),
					status = CASE WHEN EXCLUDED.status = 'pending' THEN request_transactions.status ELSE EXCLUDED.status END`,
			t.RequestID, x.Direction, int64(x.ChainID), x.Hash, x.LogIndex, int64(x.Block), string(txStatus(x.Status)),
			string(txKind(x)))
		rec.UpsertTx(x)
		if x.Direction == intent.TxOut {
			out = appendNew(out, x.Hash)
		} else {
			in = appendNew(in, x.Hash)
		}
	}
	version := row.version
	if t.Version > version {
		applied = true
		rec.Status, rec.Data.FailReason, rec.Data.RefundFailReason = t.Status, t.FailReason, t.RefundFailReason
		version = t.Version
	}
	rec.ApplyFacts(t)
	if prev, err := time.Parse(time.RFC3339Nano, rec.UpdatedAt); err != nil || t.At.After(prev) {
		rec.UpdatedAt = t.At.UTC().Format(time.RFC3339Nano)
	}
	body, err := encodeRecord(&rec)
	if err != nil {
		return fail(err)
	}
	depositSeen := row.depositSeen
	if depositSeen == nil && len(incoming(t)) > 0 {
		at := t.At
		depositSeen = &at
	}
	writes.Queue(`UPDATE requests SET status = $2, fail_reason = $3, refund_fail_reason = $4,
		version = $5, updated_at = GREATEST(updated_at, $6), record = $7, in_tx_hashes = $8, out_tx_hashes = $9,
		deposit_seen_at = COALESCE(deposit_seen_at, $10) WHERE id = $1`,
		t.RequestID, string(rec.Status), string(rec.Data.FailReason), string(rec.Data.RefundFailReason),
		version, t.At, body, orEmpty(in), orEmpty(out), depositSeen)
	if applied {
		seen = observe(&rec, t.At, depositSeen)
		seen.changed = prevStatus != rec.Status
		seen.newRefundFailReason = prevRefundFail != rec.Data.RefundFailReason
		ev := intent.NewStatusEvent(t.RequestID, rec.Status, rec.Data.FailReason, rec.Data.RefundFailReason, in, out,
			t.At.UnixMilli(), uint64(row.origin), uint64(row.dest))
		if rec.Data.Referrer != "" {
			ev.Referrer = &rec.Data.Referrer
		}
		ev.DepositAddress = rec.DepositAddress.Event()
		if err := queueEvent(writes, ev, row.keyID); err != nil {
			return fail(err)
		}
	}
	row.raw, row.version, row.in, row.out, row.depositSeen = body, version, in, out, depositSeen
	return applied, seen, nil
}

// appendNew appends h to hashes unless it is there.
func appendNew(hashes []string, h string) []string {
	if slices.Contains(hashes, h) {
		return hashes
	}
	return append(hashes, h)
}

// orEmpty is hashes, or an empty array for none (the columns are NOT NULL).
func orEmpty(hashes []string) []string {
	if hashes == nil {
		return []string{}
	}
	return hashes
}

// observation is what a committed transition tells the metrics (internal/metrics).
type observation struct {
	status              intent.Status
	fail                intent.FailReason
	refundFail          intent.RefundFailReason
	broadcast, mined    float64 // seconds since the deposit was seen; 0: not this transition's
	changed             bool    // the status is not the one before
	newRefundFailReason bool
}

// observe reads the metrics of a transition at from the record it wrote and the time the
// engine first wrote its deposit: a submitted transition is the fill's broadcast, a success
// the fill seen mined.
func observe(rec *intent.Record, at time.Time, depositSeen *time.Time) observation {
	o := observation{status: rec.Status, fail: rec.Data.FailReason.ForStatus(rec.Status), refundFail: rec.Data.RefundFailReason}
	if depositSeen == nil || at.Before(*depositSeen) {
		return o
	}
	switch rec.Status {
	case intent.StatusSubmitted:
		o.broadcast = at.Sub(*depositSeen).Seconds()
	case intent.StatusSuccess:
		o.mined = at.Sub(*depositSeen).Seconds()
	}
	return o
}

// incoming is the incoming transactions of a transition.
func incoming(t intent.Transition) []intent.Tx {
	var out []intent.Tx
	for _, x := range t.Txs {
		if x.Direction == intent.TxIn {
			out = append(out, x)
		}
	}
	return out
}

func (o observation) record() {
	if o.changed {
		metrics.Transitions.WithLabelValues(string(o.status), string(o.fail)).Inc()
		if o.status == intent.StatusRefund {
			metrics.Refunds.WithLabelValues(string(o.fail)).Inc()
		}
	}
	if o.newRefundFailReason && o.refundFail != "" && o.refundFail != intent.RefundFailReasonNA {
		metrics.RefundFailures.WithLabelValues(string(o.refundFail)).Inc()
	}
	if o.broadcast > 0 {
		metrics.FillLatency.WithLabelValues("broadcast").Observe(o.broadcast)
	}
	if o.mined > 0 {
		metrics.FillLatency.WithLabelValues("mined").Observe(o.mined)
	}
}

// txStatus is a transaction item's status: success unless the transition says otherwise.
func txStatus(s intent.TxStatus) intent.TxStatus {
	if s == "" {
		return intent.TxSuccess
	}
	return s
}

// txKind is a transaction's kind: a deposit when incoming, a fill when outgoing, unless named.
func txKind(x intent.Tx) intent.TxKind {
	switch {
	case x.Kind != "":
		return x.Kind
	case x.Direction == intent.TxIn:
		return intent.TxKindDeposit
	default:
		return intent.TxKindFill
	}
}

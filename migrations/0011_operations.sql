-- +goose Up
-- The operational gauges (store.Gauges, docs/operations.md): refunds waiting for an operator and
-- dead webhook deliveries are counted on every scrape, so each gets a small partial index
-- instead of a scan of its table.
CREATE INDEX requests_awaiting_operator_idx ON requests (status)
    WHERE refund_fail_reason IN ('MANUAL_REFUND_REQUIRED', 'REFUND_RECIPIENT_IS_BLOCKED');
CREATE INDEX webhook_deliveries_dead_idx ON webhook_deliveries (id) WHERE state = 'dead';

-- When the engine first wrote a deposit for the request: the start of the fill latency it
-- reports (intentd_fill_latency_seconds: deposit seen -> fill broadcast -> fill mined, in the
-- engine's clock, never a chain's).
ALTER TABLE requests ADD COLUMN deposit_seen_at timestamptz;

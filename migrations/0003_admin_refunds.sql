-- +goose Up
-- Manual admin refunds (docs/operations.md, "Manual admin refunds"): the audit trail of every
-- refund support staff asked for through `intentd admin refund` or
-- POST /admin/requests/{requestId}/refund, and the solver transaction kind the refund is
-- signed and stored under before it is broadcast.

-- One row per accepted adminRefund update, keyed by the Temporal update id so the retried
-- activity that writes it inserts it once. tx_hash, chain_id, amount and completed_at are
-- filled in when the refund transaction is mined.
CREATE TABLE admin_refunds (
    id           text PRIMARY KEY,                 -- the Temporal update id
    request_id   text        NOT NULL REFERENCES requests (id),
    operator     text        NOT NULL,             -- who asked (as they named themselves)
    reason       text        NOT NULL,
    recipient    text        NOT NULL DEFAULT '',  -- the recipient asked for; '' = the default
    requested_at timestamptz NOT NULL DEFAULT now(),
    tx_hash      text,
    chain_id     bigint,
    amount       text,                             -- base units of the refunded currency
    completed_at timestamptz
);
CREATE INDEX admin_refunds_request_idx ON admin_refunds (request_id, requested_at);

-- 0001 declared the kind check as an unnamed column constraint, so Postgres named it
-- solver_transactions_kind_check; a manual refund is signed and stored like the others.
ALTER TABLE solver_transactions
    DROP CONSTRAINT solver_transactions_kind_check,
    ADD CONSTRAINT solver_transactions_kind_check CHECK (kind IN ('fill', 'refund', 'manual_refund'));

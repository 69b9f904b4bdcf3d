-- +goose Up
-- Refunds the engine does not make by itself (docs/operations.md, "Money safety"): a deposit no
-- order can take is refunded automatically only in a currency its chain lists, and only within
-- a budget per depositor and chain; the others wait for an operator's manual admin refund.

-- One row per refund request held for an operator, written by its workflow when it decides
-- (store.ClaimRefund): why, and the deposit, so an operator sees what is held without opening
-- each workflow.
CREATE TABLE refund_holds (
    request_id text PRIMARY KEY REFERENCES requests (id),
    reason     text        NOT NULL CHECK (reason IN ('UNLISTED_CURRENCY', 'REFUND_BUDGET_EXCEEDED')),
    chain_id   bigint      NOT NULL,
    depositor  text        NOT NULL,  -- lower case
    currency   text        NOT NULL,  -- lower case
    amount     text        NOT NULL,  -- base units of the currency
    held_at    timestamptz NOT NULL
);
CREATE INDEX refund_holds_depositor_idx ON refund_holds (chain_id, depositor, held_at);

-- The orphan refund budget (ORPHAN_REFUND_BUDGET): one row per refund request of a deposit no
-- order can take that was let through to its automatic refund, counted per depositor and chain
-- over the budget's window. Keyed by the request, so a retried claim finds its own row and the
-- decision never changes.
CREATE TABLE orphan_refund_claims (
    request_id text PRIMARY KEY REFERENCES requests (id),
    chain_id   bigint      NOT NULL,
    depositor  text        NOT NULL,  -- lower case
    claimed_at timestamptz NOT NULL
);
CREATE INDEX orphan_refund_claims_depositor_idx ON orphan_refund_claims (chain_id, depositor, claimed_at);

-- A held refund is counted by intentd_refunds_held, not by intentd_refunds_awaiting_operator
-- (store.Gauges): anyone can make junk deposits, and they must not page anyone.

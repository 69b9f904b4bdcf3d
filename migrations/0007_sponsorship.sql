-- +goose Up
-- Sponsorship paid by the integrator (docs/operations.md, "Sponsorship and app fees"): the
-- reservation each sponsored request holds from before its
-- fill is signed until the fill lands (charged) or the request is refunded or fails (released),
-- a ledger row for every movement of a balance, and the app fees owed to their recipients once a
-- fill lands.

-- The balance itself is the integrator's sponsor_balance_usd (0005): what it may still sponsor,
-- reservations of fills in flight already taken off. It can never go below zero.
ALTER TABLE integrators ADD CONSTRAINT integrators_sponsor_balance_nonnegative CHECK (sponsor_balance_usd >= 0);

-- One reservation per sponsored request: reserved, then charged or released; declined when the
-- balance did not cover it (nothing was taken, and the request is refunded).
CREATE TABLE sponsorship_reservations (
    request_id    text PRIMARY KEY REFERENCES requests (id),
    integrator_id uuid        NOT NULL REFERENCES integrators (id),
    amount_usd    numeric     NOT NULL CHECK (amount_usd > 0),
    status        text        NOT NULL CHECK (status IN ('reserved', 'charged', 'released', 'declined')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sponsorship_reservations_open_idx ON sponsorship_reservations (integrator_id) WHERE status = 'reserved';

-- Every movement of a sponsorship balance. amount_usd is what moved; delta_usd what it changed
-- the available balance by (topup +, adjust +/-, reserve -, release +, charge 0: a charge spends
-- what its reservation already took off); balance_usd the balance after it. So an integrator's
-- balance_usd is the sum of its rows' delta_usd, and what it has spent the sum of its charges.
CREATE TABLE sponsorship_ledger (
    id            bigserial PRIMARY KEY,
    integrator_id uuid        NOT NULL REFERENCES integrators (id),
    request_id    text REFERENCES requests (id),  -- the sponsored request; NULL for top-ups and adjustments
    kind          text        NOT NULL CHECK (kind IN ('topup', 'adjust', 'reserve', 'charge', 'release')),
    amount_usd    numeric     NOT NULL CHECK (amount_usd >= 0),
    delta_usd     numeric     NOT NULL,
    balance_usd   numeric     NOT NULL CHECK (balance_usd >= 0),
    note          text        NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now()
);
-- A request moves each kind once: a retried activity cannot move a balance twice.
CREATE UNIQUE INDEX sponsorship_ledger_request_kind_idx ON sponsorship_ledger (request_id, kind) WHERE request_id IS NOT NULL;
CREATE INDEX sponsorship_ledger_integrator_idx ON sponsorship_ledger (integrator_id, id);
-- Balances moved before the ledger existed open it, so every integrator's balance is the sum of
-- its rows from the start.
INSERT INTO sponsorship_ledger (integrator_id, kind, amount_usd, delta_usd, balance_usd, note)
SELECT id, 'adjust', sponsor_balance_usd, sponsor_balance_usd, sponsor_balance_usd, 'opening balance'
FROM integrators WHERE sponsor_balance_usd <> 0;

-- App fees owed to their recipients once a request's fill has landed, in the smallest unit of the
-- fee currency (the request's input currency); paid out off-chain, then marked paid.
CREATE TABLE app_fees_owed (
    request_id text        NOT NULL REFERENCES requests (id),
    idx        integer     NOT NULL,  -- the entry of the request's appFees
    recipient  text        NOT NULL,
    chain_id   bigint      NOT NULL,
    currency   text        NOT NULL,
    amount     numeric(78) NOT NULL CHECK (amount >= 0),
    status     text        NOT NULL DEFAULT 'owed' CHECK (status IN ('owed', 'paid')),
    created_at timestamptz NOT NULL DEFAULT now(),
    paid_at    timestamptz,
    PRIMARY KEY (request_id, idx)
);
CREATE INDEX app_fees_owed_recipient_idx ON app_fees_owed (lower(recipient), status);

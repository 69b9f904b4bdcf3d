-- +goose Up
-- The first schema: the request read model, its transactions, API keys (hashed), quotes with
-- their order data, per-chain block cursors, solver nonces and signed solver transactions, and the
-- outbox for request.status.updated events.

CREATE TABLE api_keys (
    id          uuid PRIMARY KEY,
    name        text        NOT NULL,
    key_hash    bytea       NOT NULL UNIQUE,  -- SHA-256 of the key; the key itself is never stored
    key_prefix  text        NOT NULL,         -- first characters, to recognise a key in the dashboard
    integrator  text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE TABLE requests (
    id                   text PRIMARY KEY,     -- requestId
    status               text        NOT NULL,
    "user"               text        NOT NULL,
    recipient            text        NOT NULL,
    origin_chain_id      bigint      NOT NULL,
    destination_chain_id bigint      NOT NULL,
    order_id             text        NOT NULL UNIQUE,
    deposit_address      text,
    api_key_id           uuid REFERENCES api_keys (id),
    fail_reason          text        NOT NULL DEFAULT 'N/A',
    refund_fail_reason   text        NOT NULL DEFAULT 'N/A',
    in_tx_hashes         text[]      NOT NULL DEFAULT '{}',
    out_tx_hashes        text[]      NOT NULL DEFAULT '{}',
    version              bigint      NOT NULL DEFAULT 0, -- monotonic: older transitions never overwrite newer ones
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    record               jsonb       NOT NULL          -- the full v3 record
);
CREATE INDEX requests_user_idx ON requests (lower("user"), created_at DESC);
CREATE INDEX requests_recipient_idx ON requests (lower(recipient), created_at DESC);
CREATE INDEX requests_status_idx ON requests (status, created_at DESC);
CREATE INDEX requests_origin_idx ON requests (origin_chain_id, created_at DESC);
CREATE INDEX requests_destination_idx ON requests (destination_chain_id, created_at DESC);
CREATE INDEX requests_created_idx ON requests (created_at DESC, id);
CREATE INDEX requests_updated_idx ON requests (updated_at DESC, id);
CREATE INDEX requests_deposit_address_idx ON requests (deposit_address) WHERE deposit_address IS NOT NULL;
CREATE INDEX requests_api_key_idx ON requests (api_key_id, created_at DESC) WHERE api_key_id IS NOT NULL;

CREATE TABLE request_transactions (
    request_id   text        NOT NULL REFERENCES requests (id),
    direction    text        NOT NULL CHECK (direction IN ('in', 'out')),
    chain_id     bigint      NOT NULL,
    tx_hash      text        NOT NULL,
    log_index    integer     NOT NULL DEFAULT -1,
    block_number bigint,
    status       text        NOT NULL DEFAULT 'success',
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (request_id, direction, chain_id, tx_hash, log_index)
);
CREATE INDEX request_transactions_hash_idx ON request_transactions (lower(tx_hash));

CREATE TABLE quotes (
    request_id  text PRIMARY KEY REFERENCES requests (id),
    order_id    text        NOT NULL UNIQUE,
    order_data  jsonb       NOT NULL,  -- protocol.v2.orderData
    quote       jsonb       NOT NULL,  -- what the engine needs to execute: amounts, currencies, fees
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);

CREATE TABLE chain_cursors (
    chain_id     bigint PRIMARY KEY,
    genesis_hash text        NOT NULL,  -- a different genesis means a new chain: the cursor restarts
    block_number bigint      NOT NULL,  -- last block fully scanned
    block_hash   text        NOT NULL,  -- its hash: when the chain no longer has it, the scan steps back
    updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE solver_nonces (
    chain_id   bigint NOT NULL,
    address    text   NOT NULL,
    next_nonce bigint NOT NULL,
    PRIMARY KEY (chain_id, address)
);

-- Every solver transaction is signed and stored here before it is broadcast, so a retried
-- activity re-broadcasts the same transaction instead of paying again.
CREATE TABLE solver_transactions (
    request_id  text        NOT NULL REFERENCES requests (id),
    kind        text        NOT NULL CHECK (kind IN ('fill', 'refund')),
    attempt     integer     NOT NULL DEFAULT 0, -- gas bumps replace with the same nonce
    chain_id    bigint      NOT NULL,
    from_address text       NOT NULL,
    nonce       bigint      NOT NULL,
    tx_hash     text        NOT NULL UNIQUE,
    raw_tx      bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (request_id, kind, attempt)
);
CREATE UNIQUE INDEX solver_transactions_nonce_idx ON solver_transactions (chain_id, lower(from_address), nonce, attempt);

CREATE TABLE outbox (
    id           bigserial PRIMARY KEY,
    topic        text        NOT NULL,
    request_id   text        NOT NULL,
    payload      jsonb       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz
);
CREATE INDEX outbox_pending_idx ON outbox (id) WHERE delivered_at IS NULL;

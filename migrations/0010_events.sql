-- +goose Up
-- Status events (docs/events.md): per-key webhooks fed from the outbox, with a delivery log, and
-- the outbox made the source of the websocket stream.
--
-- Each outbox row now carries the event exactly as clients receive it (`payload`, built in the
-- transaction of the transition) and the API key of the request, so the dispatcher fans events
-- out to webhooks without reading the request again. Rows written before this migration hold
-- an older payload, and no webhook could have been configured for them: they are marked
-- delivered, and pruned with the rest.
ALTER TABLE outbox ADD COLUMN api_key_id uuid;
UPDATE outbox SET delivered_at = now() WHERE delivered_at IS NULL;
CREATE INDEX outbox_delivered_idx ON outbox (delivered_at) WHERE delivered_at IS NOT NULL;
CREATE INDEX outbox_request_idx ON outbox (request_id, id);

-- One webhook endpoint per API key. The signing secret and the custom headers (which often carry
-- a receiver's bearer token) are kept sealed (AES-256-GCM under WEBHOOK_SECRETS_KEY, which the
-- database never sees): the dispatcher must sign with the secret, so it cannot be hashed like
-- the key itself. After a rotation the previous secret also signs, in its
-- own header, until previous_expires_at.
CREATE TABLE webhooks (
    api_key_id          uuid PRIMARY KEY REFERENCES api_keys (id),
    url                 text        NOT NULL,
    enabled             boolean     NOT NULL DEFAULT true,
    header_names        text[]      NOT NULL DEFAULT '{}',  -- the custom headers' names, to show
    headers             bytea,                              -- sealed JSON name -> value, sent with every delivery
    secret              bytea       NOT NULL,               -- sealed
    secret_prefix       text        NOT NULL,               -- first characters, to recognise the secret
    previous_secret     bytea,                              -- sealed; signs too until previous_expires_at
    previous_expires_at timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

-- One row per event per webhook: the body exactly as it is signed and sent, its state and the
-- next attempt. A request's deliveries (all to its key's webhook) go out in id order: a pending
-- delivery waits while an older one of the same request is pending. A dispatcher holds a delivery by
-- a lease (lease_until), so a killed dispatcher's deliveries are taken over when it runs out.
CREATE TABLE webhook_deliveries (
    id               bigserial PRIMARY KEY,
    outbox_id        bigint      NOT NULL,
    api_key_id       uuid        NOT NULL REFERENCES api_keys (id),
    request_id       text        NOT NULL,
    event            text        NOT NULL,
    body             bytea       NOT NULL,
    state            text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts         integer     NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    lease_until      timestamptz,
    lease_owner      text,
    last_status_code integer,
    last_error       text,
    last_latency_ms  integer,
    resend_of        bigint,     -- a manual re-send names the delivery it repeats
    created_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz
);
-- A claim walks each key's pending deliveries in the order they come due (due_idx), keeps the
-- oldest pending one of each request (queue_idx: a request's deliveries all go to its key) and
-- counts the key's leased ones (leased_idx).
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (api_key_id, next_attempt_at, id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries (request_id, id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (api_key_id) WHERE state = 'pending' AND lease_until IS NOT NULL;
CREATE INDEX webhook_deliveries_key_idx ON webhook_deliveries (api_key_id, id DESC);
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL;

-- Every attempt of a delivery: when, how it ended and how long the receiver took.
CREATE TABLE webhook_attempts (
    delivery_id bigint      NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt     integer     NOT NULL,
    started_at  timestamptz NOT NULL,
    status_code integer,      -- null: no answer (timeout, refused, blocked address)
    error       text,
    latency_ms  integer     NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);

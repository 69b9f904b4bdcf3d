-- +goose Up
-- Usage metrics (GET /metrics/usage, docs/api.md): every API call counted by key, minute,
-- endpoint (the route pattern), HTTP status and errorCode. The API aggregates in memory and
-- adds its counts here in batches (package usage), never on the request path.

-- One row per (key, minute, endpoint, status, errorCode). Anonymous calls are stored under the
-- nil UUID, which no key has: operators see unauthenticated traffic per endpoint, and no
-- integrator is ever shown it. No foreign key to api_keys: a batch must never fail on a key,
-- and keys are revoked, not deleted. Rows older than 14 days are pruned by the API process.
-- The primary key serves the endpoint's query (keys, then a minute range).
CREATE TABLE api_usage (
    api_key_id uuid        NOT NULL,
    minute     timestamptz NOT NULL,   -- the start of the minute the calls ended in (UTC)
    endpoint   text        NOT NULL,   -- the route pattern, e.g. /intents/status/v3; '*' for paths the API does not serve
    status     smallint    NOT NULL,   -- the HTTP status answered
    error_code text        NOT NULL,   -- the errorCode answered; '' when none
    count      bigint      NOT NULL CHECK (count > 0),
    PRIMARY KEY (api_key_id, minute, endpoint, status, error_code)
);
-- Pruning deletes by age across every key.
CREATE INDEX api_usage_minute_idx ON api_usage (minute);

-- The batches already added, by the id each flush carries: a flush retried after an error
-- that hid its commit (a connection lost on COMMIT) finds its id here and adds nothing twice.
-- Pruned after a day (a batch is retried within seconds).
CREATE TABLE api_usage_batches (
    id         uuid PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_usage_batches_applied_idx ON api_usage_batches (applied_at);

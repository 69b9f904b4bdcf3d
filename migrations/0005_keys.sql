-- +goose Up
-- Integrators and their API keys (docs/operations.md, "API keys and integrators"), and the
-- audit trail of every admin change to them.
--
-- An integrator is the business that owns keys: the revenue share's profile (business
-- verification, payout address) moves here from the keys (0002), and the sponsorship wallet and
-- balance the integrator's keys sponsor fees from are new. A key gains its integrator, a label
-- (its old `name`), an environment, a rate-limit tier with optional limits of its own, and when
-- it was last used.

CREATE TABLE integrators (
    id                  uuid PRIMARY KEY,
    name                text        NOT NULL,
    business_verified   boolean     NOT NULL DEFAULT false,
    payout_address      text        NOT NULL DEFAULT '',  -- EVM address revenue-share payouts go to; '' = none
    sponsor_wallet      text        NOT NULL DEFAULT '',  -- where sponsorship is paid from; '' = none
    sponsor_chain_id    bigint      NOT NULL DEFAULT 0,   -- the wallet's chain; 0 = none
    sponsor_balance_usd numeric     NOT NULL DEFAULT 0,   -- what the integrator may still sponsor, in USD
    created_at          timestamptz NOT NULL DEFAULT now()
);

-- Every existing key becomes owned by an integrator. Keys that named the same integrator with
-- the same revenue-share profile share one; a key with no integrator name gets one of its own
-- (named after the key), so keys whose owners were never recorded never see each other.
ALTER TABLE api_keys ADD COLUMN integrator_id uuid REFERENCES integrators (id);

CREATE TEMPORARY TABLE key_owners ON COMMIT DROP AS
SELECT k.id AS key_id,
       CASE WHEN k.integrator = '' THEN k.name ELSE k.integrator END AS name,
       k.business_verified, k.payout_address,
       CASE WHEN k.integrator = '' THEN k.id::text ELSE '' END AS solo,
       k.created_at
FROM api_keys k;

CREATE TEMPORARY TABLE owner_ids ON COMMIT DROP AS
SELECT gen_random_uuid() AS id, name, business_verified, payout_address, solo, min(created_at) AS created_at
FROM key_owners
GROUP BY name, business_verified, payout_address, solo;

INSERT INTO integrators (id, name, business_verified, payout_address, created_at)
SELECT id, name, business_verified, payout_address, created_at FROM owner_ids;

UPDATE api_keys k SET integrator_id = w.id
FROM key_owners o JOIN owner_ids w ON (w.name, w.business_verified, w.payout_address, w.solo)
                                     = (o.name, o.business_verified, o.payout_address, o.solo)
WHERE o.key_id = k.id;

ALTER TABLE api_keys
    ALTER COLUMN integrator_id SET NOT NULL,
    DROP COLUMN integrator,
    DROP COLUMN business_verified,
    DROP COLUMN payout_address,
    ADD COLUMN environment  text        NOT NULL DEFAULT 'production',
    ADD COLUMN tier         text        NOT NULL DEFAULT 'default' CHECK (tier IN ('default', 'elevated', 'custom')),
    ADD COLUMN limits       jsonb       NOT NULL DEFAULT '{}',  -- bucket name -> {count, period (ns)}
    ADD COLUMN unlimited    boolean     NOT NULL DEFAULT false, -- the development key only
    ADD COLUMN last_used_at timestamptz;
ALTER TABLE api_keys RENAME COLUMN name TO label;
CREATE INDEX api_keys_integrator_idx ON api_keys (integrator_id, created_at);

-- One row per admin change (CLI or admin HTTP API), written in the transaction of the change.
-- before/after are the changed object as the admin API shows it: never a key, a key's hash or
-- a token.
CREATE TABLE admin_audit (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,  -- who, as they named themselves
    via         text        NOT NULL,  -- 'cli', 'http' or 'dev'
    remote      text        NOT NULL DEFAULT '',  -- the HTTP caller's address
    action      text        NOT NULL,  -- e.g. 'key.create', 'integrator.sponsorship.top_up'
    target_type text        NOT NULL,  -- 'key' or 'integrator'
    target_id   uuid        NOT NULL,
    reason      text        NOT NULL DEFAULT '',
    before      jsonb,
    after       jsonb
);
CREATE INDEX admin_audit_target_idx ON admin_audit (target_type, target_id, at);
CREATE INDEX admin_audit_at_idx ON admin_audit (at);

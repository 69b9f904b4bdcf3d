-- +goose Up
-- The perps exchange family's payments (chains/perps, docs/perps.md): a request's fill (or
-- refund) on the exchange is one signed sendAsset action, kept here before it is sent, and sent
-- again as kept by a retry. The exchange applies an action at most once per signer and nonce, so
-- what makes the payment once is that one (request, kind) keeps one action and one nonce: a
-- second worker signing the same payment keeps nothing and sends the kept one. Nonces are
-- millisecond times as the exchange wants them, unique per signer.
CREATE TABLE perps_payments (
    request_id text        NOT NULL REFERENCES requests (id),
    kind       text        NOT NULL CHECK (kind IN ('fill', 'refund', 'manual_refund')),
    chain_id   bigint      NOT NULL,
    signer     text        NOT NULL,
    nonce      bigint      NOT NULL CHECK (nonce > 0),
    -- the action as sent (the exchange's JSON) and its EIP-712 signature
    action     jsonb       NOT NULL,
    signature  text        NOT NULL,
    -- the action's id: the EIP-712 digest the signature signs (0x and 64 hex digits)
    tx_hash    text        NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (request_id, kind),
    UNIQUE (signer, nonce)
);

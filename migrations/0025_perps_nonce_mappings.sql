-- +goose Up
-- POST /authorize (the perps exchange, chain 1337): a withdrawal from the exchange is funded by a
-- transfer on the exchange, which carries no order id, only its sender's nonce. The user signs a
-- NonceMapping message binding that nonce to the order and posts it; this is the binding, one per
-- order, and a nonce of one depositor names at most one order. The engine's deposit matcher finds
-- the order of a transfer by (depositor, nonce); a transfer with another nonce is an orphan.
CREATE TABLE perps_nonce_mappings (
    order_id           text PRIMARY KEY,      -- the request's order id (requests.order_id), the message's id
    request_id         text        NOT NULL REFERENCES requests (id),
    wallet             text        NOT NULL,  -- the message's signer, lower-case hex
    depositor          text        NOT NULL,  -- the exchange account whose transfer carries the nonce, lower-case hex
    nonce              bigint      NOT NULL CHECK (nonce > 0),
    signature_chain_id bigint      NOT NULL CHECK (signature_chain_id > 0),
    signature          text        NOT NULL,  -- 0x, 65 bytes of hex, as posted
    created_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (depositor, nonce)
);

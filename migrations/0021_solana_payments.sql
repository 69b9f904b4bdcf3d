-- +goose Up
-- The Solana family's payments (chains/solana, docs/chains.md "Solana payouts: exactly once by
-- blockhash expiry"): each attempt of a request's fill or refund is signed once, with a recent
-- blockhash, and kept here before it is broadcast; a retry broadcasts the kept bytes again. A
-- Solana transaction has no nonce: what keeps two attempts from both landing is the blockhash's
-- expiry, so each attempt keeps its blockhash and the last block height at which it may land,
-- and attempt n+1 is signed only once attempt n can never land (the chain is past that height
-- and has not seen its signature).
CREATE TABLE solana_payments (
    request_id              text        NOT NULL REFERENCES requests (id),
    kind                    text        NOT NULL CHECK (kind IN ('fill', 'refund', 'manual_refund')),
    attempt                 integer     NOT NULL CHECK (attempt >= 0),
    chain_id                bigint      NOT NULL,
    signature               text        NOT NULL UNIQUE,
    raw_tx                  bytea       NOT NULL,
    blockhash               text        NOT NULL,
    last_valid_block_height bigint      NOT NULL,
    created_at              timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (request_id, kind, attempt)
);

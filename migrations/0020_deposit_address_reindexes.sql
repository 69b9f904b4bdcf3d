-- +goose Up
-- The reindex's cooldown (POST /transactions/deposit-address/reindex: 429 when an address was
-- reindexed on a chain within the last minute), shared by every API process: the last reindex
-- admitted per address and chain (store.AdmitDepositAddressReindex).
CREATE TABLE deposit_address_reindexes (
    address_id text        NOT NULL REFERENCES deposit_addresses (id),
    chain_id   bigint      NOT NULL,
    at         timestamptz NOT NULL,
    PRIMARY KEY (address_id, chain_id)
);


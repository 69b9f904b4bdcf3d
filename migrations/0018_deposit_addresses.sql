-- +goose Up
-- Deposit addresses (docs/deposit-addresses.md): a counterfactual address per quote
-- (DepositAddressFactory.computeDepositAddress(orderId, depositor), the same on every EVM chain)
-- to which a user pays with a plain transfer; the engine sees the transfer, sweeps the address
-- into the Depository under the order id and runs the intent.

-- One row per issued address, written with its quote.
CREATE TABLE deposit_addresses (
    id               text PRIMARY KEY,            -- depositAddressId (0x + 32 bytes hex)
    address          text        NOT NULL UNIQUE, -- lower case
    chain_id         bigint      NOT NULL,        -- the chain it was issued for (the quote's origin)
    type             text        NOT NULL CHECK (type IN ('strict', 'open')),
    order_id         text        NOT NULL,        -- the salt's order id: every sweep deposits under it
    depositor        text        NOT NULL,        -- the salt's depositor (lower case)
    request_id       text        NOT NULL,        -- the quote-time request
    currency         text        NOT NULL,        -- the quoted origin currency (lower case)
    refund_to        text,                        -- NULL: no automatic refund (open without refundTo)
    recovery_address text,
    -- route is what a requote for a later deposit needs (destination, recipient, trade type,
    -- the API key's fees): the quote request as the engine validated it.
    route            jsonb       NOT NULL,
    created_at       timestamptz NOT NULL,
    disabled_at      timestamptz
);
CREATE INDEX deposit_addresses_request_idx ON deposit_addresses (request_id);
CREATE INDEX deposit_addresses_watched_idx ON deposit_addresses (chain_id) WHERE disabled_at IS NULL;

-- One row per payment seen arriving at an address (an ERC-20 Transfer log, or a native
-- transfer: log_index -1), and what became of it: the request it funds and the sweep that
-- moved it into the Depository. Keyed by the payment, so a rescan finds its row.
CREATE TABLE deposit_address_transfers (
    chain_id     bigint      NOT NULL,
    tx_hash      text        NOT NULL,           -- lower case
    log_index    integer     NOT NULL,           -- -1 for a native transfer
    address_id   text        NOT NULL REFERENCES deposit_addresses (id),
    block_number bigint      NOT NULL,
    sender       text        NOT NULL,           -- lower case
    currency     text        NOT NULL,           -- lower case; the zero address for native
    amount       text        NOT NULL,           -- base units
    request_id   text,                           -- the request it funds, once routed
    sweep_tx     text,                           -- the sweep transaction that moved it, once sent
    seen_at      timestamptz NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, log_index)
);
CREATE INDEX deposit_address_transfers_address_idx ON deposit_address_transfers (address_id, seen_at);
CREATE INDEX deposit_address_transfers_request_idx ON deposit_address_transfers (request_id) WHERE request_id IS NOT NULL;

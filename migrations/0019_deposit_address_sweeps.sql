-- +goose Up
-- Watching and sweeping deposit addresses (docs/deposit-addresses.md, "Watching and sweeping").

-- A request funded by a deposit address has the solver sweep the address into the depository:
-- a solver transaction of its own kind, signed once per request at a nonce allocated like a
-- fill's, kept before it is broadcast.
ALTER TABLE solver_transactions
    DROP CONSTRAINT solver_transactions_kind_check,
    ADD CONSTRAINT solver_transactions_kind_check CHECK (kind IN ('fill', 'refund', 'manual_refund', 'sweep'));

-- The scanner loads the watched addresses once and then, every pass, those issued since
-- (store.WatchedDepositAddresses): by creation time, among the addresses not disabled.
CREATE INDEX deposit_addresses_watched_created_idx ON deposit_addresses (created_at) WHERE disabled_at IS NULL;

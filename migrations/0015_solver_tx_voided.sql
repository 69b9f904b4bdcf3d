-- +goose Up
-- A chain that comes back with another genesis is a new chain (a restarted devnet; docs/operations.md,
-- "Restarting"). The solver transactions signed for the old one are voided, not deleted: they stay
-- the record of what was signed, but they no longer commit inventory, are never broadcast or
-- replaced again, and their nonces are free, since the new chain's solver nonces start again from
-- what the chain says. The uniqueness of a nonce's attempts and of a hash holds among the
-- transactions that are not voided.
ALTER TABLE solver_transactions ADD COLUMN voided boolean NOT NULL DEFAULT false;
DROP INDEX solver_transactions_nonce_idx;
CREATE UNIQUE INDEX solver_transactions_nonce_idx ON solver_transactions (chain_id, lower(from_address), nonce, attempt)
    WHERE NOT voided;
ALTER TABLE solver_transactions DROP CONSTRAINT solver_transactions_tx_hash_key;
CREATE UNIQUE INDEX solver_transactions_tx_hash_idx ON solver_transactions (tx_hash) WHERE NOT voided;

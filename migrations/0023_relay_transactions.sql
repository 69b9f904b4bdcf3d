-- +goose Up
-- Gasless requests (issue 37, docs/gasless.md): the engine relays a user's signed call, the
-- relayer (a key of its own, not the solver's) paying its gas. The relayed transaction is kept
-- like a fill: a row of solver_transactions of its own kind, signed once per request at a nonce
-- of the relayer's address allocated like the solver's, kept before it is broadcast.
ALTER TABLE solver_transactions
    DROP CONSTRAINT solver_transactions_kind_check,
    ADD CONSTRAINT solver_transactions_kind_check CHECK (kind IN ('fill', 'refund', 'manual_refund', 'sweep', 'relay'));

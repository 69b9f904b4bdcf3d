-- +goose Up
-- Solver inventory under load (docs/operations.md, SOLVER_BALANCE_TOO_LOW): what each solver
-- transaction can take from the solver's balances on its chain until it is mined, so that a fill
-- is signed only when the solver's balance, less what its transactions not yet mined commit,
-- covers it. pays_amount is paid out of the solver's balance of pays_currency (0x address, the
-- zero address for the native currency) in its smallest unit: a fill's amount, 0 for a refund
-- (the depository pays it) or a cancellation. max_gas_cost is gas limit x fee cap in wei, the
-- most the attempt can cost in gas. Rows written before this migration carry no commitment
-- (NULL) and count as committing nothing.
ALTER TABLE solver_transactions
    ADD COLUMN pays_currency text,
    ADD COLUMN pays_amount   numeric(78) CHECK (pays_amount >= 0),
    ADD COLUMN max_gas_cost  numeric(78) CHECK (max_gas_cost >= 0);

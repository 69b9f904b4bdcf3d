-- +goose Up
-- Fill replacements (docs/operations.md, "Fills that are not included"): a fill that is not
-- included is replaced with the same nonce and a higher fee, and after the last bump cancelled
-- (a zero-value transaction to the solver itself at that nonce), so a refund is only made once
-- the fill can no longer land. Each replacement is a new attempt of the request's transaction
-- of that kind, with the same nonce; purpose says whether it pays or cancels.
ALTER TABLE solver_transactions
    ADD COLUMN purpose text NOT NULL DEFAULT 'pay' CHECK (purpose IN ('pay', 'cancel'));

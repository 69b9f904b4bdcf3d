-- +goose Up
-- The exposure cap (docs/operations.md, "Confirmations by value and the exposure cap"): the USD
-- value the engine has filled, or is filling, against deposits that are not yet final, per origin
-- chain. A deposit attested below its chain's full confirmations (a small deposit, by its value's
-- tier) holds a row from its attestation until it is final; the sum of a chain's rows is bounded
-- by the chain's cap, shared by every worker.
--
-- A row ends by itself: it counts only while the chain's head is below final_block (the block at
-- which the deposit has the chain's full confirmations), so a crashed worker's reservation ends
-- when its deposit is final, with nobody to release it. Rows whose deposit_block is more than the
-- reset depth above the head are of a chain that was reset (a devnet started again), as the
-- scanner judges its cursor, and count neither. Rows that no longer count are deleted by the
-- workers' exposure gauges (store.PruneExposure); a request that ends without paying anything
-- deletes its own (store.ReleaseExposure). One row per request: a reservation asked again answers
-- what the first decided.
CREATE TABLE deposit_exposure (
    request_id    text        PRIMARY KEY,
    chain_id      bigint      NOT NULL,
    usd           numeric     NOT NULL CHECK (usd >= 0),
    deposit_block bigint      NOT NULL,
    final_block   bigint      NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deposit_exposure_chain_idx ON deposit_exposure (chain_id, final_block);

-- reserve_deposit_exposure takes p_usd of chain p_chain's exposure for request p_request, if the
-- rows that count at head p_head leave room for it under p_cap, in one round trip. Reservations of
-- a chain queue on a transaction-scoped advisory lock, and each statement after it reads what the
-- holders before it committed, so two workers never both take the last room. It answers whether
-- the request holds a reservation (a request that already holds one holds it still), the chain's
-- exposure counted (with the new reservation when one was taken) and the lowest final_block of the
-- rows counted: the block at which the exposure next drops by itself (NULL when none counts).
-- +goose StatementBegin
CREATE FUNCTION reserve_deposit_exposure(p_request text, p_chain bigint, p_usd numeric, p_deposit_block bigint,
    p_final_block bigint, p_head bigint, p_cap numeric, p_reset_depth bigint)
RETURNS TABLE (reserved boolean, exposure numeric, next_final bigint) LANGUAGE plpgsql AS $$
DECLARE
    held    numeric;
    nxt     bigint;
    already boolean;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('deposit-exposure:' || p_chain, 0));
    SELECT true INTO already FROM deposit_exposure WHERE request_id = p_request;
    SELECT coalesce(sum(e.usd), 0), min(e.final_block) INTO held, nxt FROM deposit_exposure e
        WHERE e.chain_id = p_chain AND e.final_block > p_head AND e.deposit_block <= p_head + p_reset_depth;
    IF coalesce(already, false) THEN
        RETURN QUERY SELECT true, held, nxt;
        RETURN;
    END IF;
    IF held + p_usd > p_cap THEN
        RETURN QUERY SELECT false, held, nxt;
        RETURN;
    END IF;
    INSERT INTO deposit_exposure (request_id, chain_id, usd, deposit_block, final_block)
        VALUES (p_request, p_chain, p_usd, p_deposit_block, p_final_block);
    RETURN QUERY SELECT true, held + p_usd, least(nxt, p_final_block);
END $$;
-- +goose StatementEnd

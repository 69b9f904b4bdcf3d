-- +goose Up
-- What each transaction of a request is, so that the request records can be searched by deposit,
-- fill or refund hash (GET /requests/v3 depositTxHash, fillTxHash, refundTxHash): 'deposit' for
-- the user's deposits (direction in), 'fill' and 'refund' (or 'manual_refund') for what the
-- solver sent (direction out). Rows written before this column are classified by direction and,
-- for outgoing ones, by whether their request was refunded.
ALTER TABLE request_transactions ADD COLUMN kind text;
UPDATE request_transactions t SET kind = CASE
    WHEN t.direction = 'in' THEN 'deposit'
    WHEN EXISTS (SELECT 1 FROM requests r WHERE r.id = t.request_id AND r.status = 'refund') THEN 'refund'
    ELSE 'fill' END;
ALTER TABLE request_transactions ALTER COLUMN kind SET NOT NULL;
ALTER TABLE request_transactions ADD CONSTRAINT request_transactions_kind_check
    CHECK (kind IN ('deposit', 'fill', 'refund', 'manual_refund'));
CREATE INDEX request_transactions_kind_hash_idx ON request_transactions (kind, lower(tx_hash));

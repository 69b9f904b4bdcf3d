-- +goose Up
-- GET /requests/v3 and /requests/v2 (records/, store/records.go): the record fields they filter
-- on, as columns generated from the stored record so they can be indexed and always agree with
-- it, and the indexes behind the filters and the keyset pages. Every page is ordered by
-- (sort column, id) in one direction, so each index ends with id.
ALTER TABLE requests
    ADD COLUMN referrer              text   GENERATED ALWAYS AS (NULLIF(record -> 'data' ->> 'referrer', '')) STORED,
    ADD COLUMN request_type          text   GENERATED ALWAYS AS (record ->> 'requestType') STORED,
    ADD COLUMN currency_in_chain_id  bigint GENERATED ALWAYS AS ((record -> 'data' -> 'currencyIn' -> 'currency' ->> 'chainId')::bigint) STORED,
    ADD COLUMN currency_in_address   text   GENERATED ALWAYS AS (lower(record -> 'data' -> 'currencyIn' -> 'currency' ->> 'address')) STORED,
    ADD COLUMN currency_in_symbol    text   GENERATED ALWAYS AS (lower(record -> 'data' -> 'currencyIn' -> 'currency' ->> 'symbol')) STORED,
    ADD COLUMN currency_out_chain_id bigint GENERATED ALWAYS AS ((record -> 'data' -> 'currencyOut' -> 'currency' ->> 'chainId')::bigint) STORED,
    ADD COLUMN currency_out_address  text   GENERATED ALWAYS AS (lower(record -> 'data' -> 'currencyOut' -> 'currency' ->> 'address')) STORED,
    ADD COLUMN currency_out_symbol   text   GENERATED ALWAYS AS (lower(record -> 'data' -> 'currencyOut' -> 'currency' ->> 'symbol')) STORED,
    ADD COLUMN parent_request_id     text   GENERATED ALWAYS AS (record -> 'duplicateDeposits' ->> 'parentRequestId') STORED;

DROP INDEX requests_user_idx;
DROP INDEX requests_recipient_idx;
DROP INDEX requests_api_key_idx;
CREATE INDEX requests_user_idx ON requests (lower("user"), created_at DESC, id DESC);
CREATE INDEX requests_recipient_idx ON requests (lower(recipient), created_at DESC, id DESC);
CREATE INDEX requests_api_key_idx ON requests (api_key_id, created_at DESC, id DESC) WHERE api_key_id IS NOT NULL;
CREATE INDEX requests_amount_idx ON requests (volume_usd DESC, id DESC);
CREATE INDEX requests_referrer_idx ON requests (referrer, created_at DESC, id DESC) WHERE referrer IS NOT NULL;
CREATE INDEX requests_parent_idx ON requests (parent_request_id) WHERE parent_request_id IS NOT NULL;
CREATE INDEX requests_lower_deposit_address_idx ON requests (lower(deposit_address), created_at DESC, id DESC) WHERE deposit_address IS NOT NULL;
CREATE INDEX request_transactions_deposit_block_idx ON request_transactions (block_number) WHERE kind = 'deposit';

-- The planner needs the statistics of the new expression indexes at once (lower("user"), ...),
-- or it guesses a user's share of the requests and may scan by date instead.
ANALYZE requests;

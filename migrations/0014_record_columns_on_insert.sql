-- +goose Up
-- The columns of requests that GET /requests/v3 and /requests/v2 filter on (0009) were generated
-- from the record, and Postgres computes every stored generated column again at every UPDATE of
-- the row: at each transition of a request (four or more per intent) it parsed the nine
-- expressions afresh and ran them on the 12 kB record, about a tenth of Postgres's CPU under a
-- burst (BENCHMARKS.md). What they read is fixed when the request is written (its referrer,
-- type and currencies) or changed by one statement (duplicateDeposits, store.InsertRefundRequest,
-- which sets parent_request_id with it), so they become plain columns, filled from the record
-- by a trigger on INSERT only. DROP EXPRESSION keeps the values already stored.
ALTER TABLE requests
    ALTER COLUMN referrer DROP EXPRESSION,
    ALTER COLUMN request_type DROP EXPRESSION,
    ALTER COLUMN currency_in_chain_id DROP EXPRESSION,
    ALTER COLUMN currency_in_address DROP EXPRESSION,
    ALTER COLUMN currency_in_symbol DROP EXPRESSION,
    ALTER COLUMN currency_out_chain_id DROP EXPRESSION,
    ALTER COLUMN currency_out_address DROP EXPRESSION,
    ALTER COLUMN currency_out_symbol DROP EXPRESSION,
    ALTER COLUMN parent_request_id DROP EXPRESSION;

-- +goose StatementBegin
CREATE FUNCTION requests_record_columns() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.referrer              := NULLIF(NEW.record -> 'data' ->> 'referrer', '');
    NEW.request_type          := NEW.record ->> 'requestType';
    NEW.currency_in_chain_id  := (NEW.record -> 'data' -> 'currencyIn' -> 'currency' ->> 'chainId')::bigint;
    NEW.currency_in_address   := lower(NEW.record -> 'data' -> 'currencyIn' -> 'currency' ->> 'address');
    NEW.currency_in_symbol    := lower(NEW.record -> 'data' -> 'currencyIn' -> 'currency' ->> 'symbol');
    NEW.currency_out_chain_id := (NEW.record -> 'data' -> 'currencyOut' -> 'currency' ->> 'chainId')::bigint;
    NEW.currency_out_address  := lower(NEW.record -> 'data' -> 'currencyOut' -> 'currency' ->> 'address');
    NEW.currency_out_symbol   := lower(NEW.record -> 'data' -> 'currencyOut' -> 'currency' ->> 'symbol');
    NEW.parent_request_id     := NEW.record -> 'duplicateDeposits' ->> 'parentRequestId';
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER requests_record_columns BEFORE INSERT ON requests
    FOR EACH ROW EXECUTE FUNCTION requests_record_columns();

-- +goose Up
-- The currency columns GET /requests/v3 filters on (0014) are lower-cased so that an EVM
-- address matches whatever its case. A Solana-type chain's mint is base58, where case is part of
-- the address: it is kept as written, and compared exactly. Only a 0x-hex address is
-- lower-cased now.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION requests_record_columns() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    cin  text := NEW.record -> 'data' -> 'currencyIn' -> 'currency' ->> 'address';
    cout text := NEW.record -> 'data' -> 'currencyOut' -> 'currency' ->> 'address';
BEGIN
    NEW.referrer              := NULLIF(NEW.record -> 'data' ->> 'referrer', '');
    NEW.request_type          := NEW.record ->> 'requestType';
    NEW.currency_in_chain_id  := (NEW.record -> 'data' -> 'currencyIn' -> 'currency' ->> 'chainId')::bigint;
    NEW.currency_in_address   := CASE WHEN left(cin, 2) = '0x' THEN lower(cin) ELSE cin END;
    NEW.currency_in_symbol    := lower(NEW.record -> 'data' -> 'currencyIn' -> 'currency' ->> 'symbol');
    NEW.currency_out_chain_id := (NEW.record -> 'data' -> 'currencyOut' -> 'currency' ->> 'chainId')::bigint;
    NEW.currency_out_address  := CASE WHEN left(cout, 2) = '0x' THEN lower(cout) ELSE cout END;
    NEW.currency_out_symbol   := lower(NEW.record -> 'data' -> 'currencyOut' -> 'currency' ->> 'symbol');
    NEW.parent_request_id     := NEW.record -> 'duplicateDeposits' ->> 'parentRequestId';
    RETURN NEW;
END $$;
-- +goose StatementEnd

UPDATE requests SET currency_in_address = record -> 'data' -> 'currencyIn' -> 'currency' ->> 'address'
    WHERE left(record -> 'data' -> 'currencyIn' -> 'currency' ->> 'address', 2) <> '0x';
UPDATE requests SET currency_out_address = record -> 'data' -> 'currencyOut' -> 'currency' ->> 'address'
    WHERE left(record -> 'data' -> 'currencyOut' -> 'currency' ->> 'address', 2) <> '0x';

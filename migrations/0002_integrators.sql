-- +goose Up
-- Integrator profiles for the platform fee's revenue share, and the volume it is tiered by.
-- Eligibility (spec, Fee model): an API key in the quote, business verification completed,
-- trailing 30-day volume above USD 10,000,000 and an EVM payout address.

ALTER TABLE api_keys
    ADD COLUMN business_verified boolean NOT NULL DEFAULT false,
    ADD COLUMN payout_address    text    NOT NULL DEFAULT '';

-- The USD value of the request's input at quote time; a key's trailing volume is the sum over
-- its successful requests.
ALTER TABLE requests ADD COLUMN volume_usd numeric NOT NULL DEFAULT 0;
CREATE INDEX requests_api_key_volume_idx ON requests (api_key_id, created_at DESC) WHERE status = 'success';

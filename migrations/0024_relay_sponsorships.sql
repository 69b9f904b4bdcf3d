-- +goose Up
-- Gasless execution (POST /execute, docs/gasless.md): the relayer pays the gas of a user's
-- relayed call, and the integrator whose key executed it backs that gas with its sponsorship
-- balance. Before the relayer signs, the most the transaction can cost (gas ceiling × fee cap,
-- valued in USD) is reserved; once it is mined, what it actually cost is charged (or, when the
-- user paid the origin gas in the quote's fee and the deposit arrived as quoted, nothing) and
-- the rest given back. One row per request, apart from the fill's sponsorship reservation.
CREATE TABLE relay_sponsorships (
    request_id    text PRIMARY KEY REFERENCES requests (id),
    integrator_id uuid        NOT NULL REFERENCES integrators (id),
    reserved_usd  numeric     NOT NULL CHECK (reserved_usd > 0),
    charged_usd   numeric     CHECK (charged_usd >= 0 AND charged_usd <= reserved_usd),
    -- the relayed transaction's gas as mined (wei), when charged
    fee_wei       numeric,
    status        text        NOT NULL CHECK (status IN ('reserved', 'charged', 'released', 'declined')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- The ledger's kinds for it: relay_reserve takes the reservation off the balance (delta -), and
-- relay_charge spends what the transaction cost and gives the rest back in one row (amount the
-- charge, delta + the unspent rest), relay_release gives all of it back.
ALTER TABLE sponsorship_ledger
    DROP CONSTRAINT sponsorship_ledger_kind_check,
    ADD CONSTRAINT sponsorship_ledger_kind_check
        CHECK (kind IN ('topup', 'adjust', 'reserve', 'charge', 'release', 'relay_reserve', 'relay_charge', 'relay_release'));

-- +goose Up
-- A request's record (about 12 kB of JSON once filled) is rewritten at each of its transitions,
-- four or more per intent, and at that size Postgres compresses it into its TOAST table every
-- time. lz4 compresses it about twice as fast as the default pglz for the same size (an UPDATE of
-- the record measured at 75 µs against 145 µs a row, BENCHMARKS.md). It applies to the values
-- written from now on; a server built without lz4 keeps pglz.
-- +goose StatementBegin
DO $$
BEGIN
    ALTER TABLE requests ALTER COLUMN record SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
    RAISE NOTICE 'lz4 is not available on this server: records stay compressed with pglz';
END $$;
-- +goose StatementEnd

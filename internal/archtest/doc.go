// Package archtest holds the tests that guard the engine's boundaries: which packages may
// import which (the deterministic workflow code never reaches the database, HTTP servers or raw
// chain clients; the API reaches workflows only through the door; quote and usage know
// neither HTTP nor Postgres). It has no code of its own; `make test` runs it with every other
// test.
package archtest

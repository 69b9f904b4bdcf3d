# intentd: the cross-chain intent engine. `make run` starts the whole system on the embedded
# default; `make test` runs every test. See README.md.

GO      ?= go
BIN     := bin/intentd

.PHONY: run build test test-short vet fuzz contracts devnet dev clean help

help:
	@echo "make run        build and start the whole system (devnet + engine); Ctrl-C stops it"
	@echo "make test       run every test (real Postgres, in-process Temporal, devnet chains, oracle)"
	@echo "make build      build bin/intentd"
	@echo "make vet        go vet ./..."
	@echo "make fuzz       run each fuzz target for FUZZTIME (default 1m)"
	@echo "make contracts  recompile the Solidity contracts and regenerate the Go bindings (needs npm)"
	@echo "make devnet     run only the local chains;  make dev  run only the engine"

run:
	@scripts/run.sh

build:
	@echo "==> building $(BIN) (the first build on a new machine compiles the Temporal server and go-ethereum: several minutes)"
	@$(GO) build -v -o $(BIN) ./cmd/intentd 2>&1 | awk '{ n++; printf "    [%4d] %s\n", n, $$0 }' | grep -E '\[ *[0-9]*[05]0\]|intentd' || true
	@test -x $(BIN) && echo "==> built $(BIN)"

test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

test-short:
	$(GO) test -count=1 -short ./...

# test-reliability: 50 intents per scenario with the worker as a separate process, killed with
# SIGKILL, Postgres crashed and restarted, 30% of chain RPC calls failed or delayed; see
# docs/reliability.md. RELIABILITY_SEED=n replaces the seeds, RELIABILITY_LOG_DIR=dir keeps the
# logs. `make test` runs the short form (TestReliabilityShort).
RELIABILITY_RUN ?= TestReliability(WorkerKills|RPCFaults|PostgresRestart|PostgresOutage|AllFaults)$$
.PHONY: test-reliability
test-reliability:
	$(GO) test -tags reliability -count=1 -v -timeout 30m -run '$(RELIABILITY_RUN)' ./reliability/

vet:
	$(GO) vet ./...

FUZZTIME ?= 1m
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseAmount$$' -fuzztime $(FUZZTIME) ./intent/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeQuote$$' -fuzztime $(FUZZTIME) ./quote/

contracts:
	contracts/build.sh

devnet: build
	$(BIN) devnet

dev: build
	$(BIN) dev

clean:
	rm -rf bin

# bench-quote: quote latency under load (bench/quoteload) against a fresh `intentd dev` on the
# devnet; bench/run-quote.sh starts and always stops both. See BENCHMARKS.md. Pass other
# quoteload flags with BENCH_ARGS, e.g. BENCH_ARGS="-rate 200 -clients 64 -duration 30s".
BENCH_ARGS ?= -clients 64 -duration 30s -scenario eth-bridge
.PHONY: bench-quote
bench-quote:
	@BENCH_ARGS="$(BENCH_ARGS)" bench/run-quote.sh

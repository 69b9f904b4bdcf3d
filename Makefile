# intentd: the cross-chain intent engine. `make run` starts the whole system on the embedded
# default; `make test` runs every test. See README.md.

GO      ?= go

# Every build and test runs with the same flags, so `make run` and `make test` share one build
# cache: Gin without MessagePack (unused), and cgo wherever a C compiler is (Go's own default,
# resolved once here): go-ethereum then signs and recovers secp256k1 signatures with the
# libsecp256k1 it bundles as C source (nothing to install), about four times faster than its
# pure-Go fallback, which a machine without a C compiler gets. CGO_ENABLED=0 forces the fallback.
CGO_ENABLED ?=
ifeq ($(CGO_ENABLED),)
CGO_ENABLED := $(shell $(GO) env CGO_ENABLED)
endif
export CGO_ENABLED
export GOFLAGS := $(strip $(filter-out -tags=nomsgpack,$(GOFLAGS)) -tags=nomsgpack)

.PHONY: run build test test-short vet lint fuzz contracts devnet dev clean help

help:
	@echo "make run        build and start the whole system (devnet + engine); Ctrl-C stops it"
	@echo "make test       run every test (real Postgres, in-process Temporal, devnet chains, oracle, the public SDK)"
	@echo "make build      build bin/intentd (production) and bin/intentd-dev (chains + embedded stack)"
	@echo "make vet        go vet ./..."
	@echo "make lint       staticcheck, errcheck, the Temporal determinism check and the import rules (part of make test)"
	@echo "make fuzz       run each fuzz target for FUZZTIME (default 1m)"
	@echo "make contracts  recompile the Solidity contracts and regenerate the Go bindings (needs npm)"
	@echo "make devnet     run only the local chains (EVM and Solana);  make dev  run only the engine"
	@echo "make web        rebuild the embedded browser assets (web/dist: the API reference's viewer) after a change to web/"
	@echo "make screenshots  save the browser cases' screenshots into docs/screenshots"

run: solana-deps
	@scripts/run.sh

build:
	@scripts/build.sh ./cmd/intentd ./cmd/intentd-dev

test: e2e-deps solana-deps web-deps lint
	$(GO) test -count=1 -timeout 20m ./...

# lint: go vet, staticcheck, errcheck (every error returned is handled, or dropped on purpose as
# `_ = f()`; .errcheck-excludes lists the few calls dropped everywhere: reports written to a
# terminal, bodies closed after reading) and the Temporal SDK's workflowcheck (determinism of the
# workflow code), all three pinned in tools/go.mod (a module of its own, so the engine's go.mod
# does not carry them) and fetched from the Go module proxy on first use; the import rules are a
# test (internal/archtest) and run with the other tests.
TOOL := $(GO) tool -modfile=tools/go.mod
lint:
	$(GO) vet ./...
	$(TOOL) staticcheck ./...
	$(TOOL) errcheck -exclude .errcheck-excludes ./...
	$(TOOL) workflowcheck ./workflows/...

# e2e-deps installs the SDK suite's Node packages (e2e/package-lock.json, pinned) once, and again
# whenever the lockfile changes, and Debian's chromium for its browser case (scripts/chromium.sh:
# apt-get once, as root; nothing to do when /usr/bin/chromium is there).
.PHONY: e2e-deps
e2e-deps: e2e/node_modules/.installed
	@scripts/chromium.sh
e2e/node_modules/.installed: e2e/package.json e2e/package-lock.json
	cd e2e && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# solana-deps installs the local Solana chain's Node packages (devnet/svm/package-lock.json,
# pinned: litesvm with its native Linux build, @solana/kit) once, and again whenever the lockfile
# changes; `intentd-dev devnet` runs devnet/svm/server.mjs with them (devnet/svm).
.PHONY: solana-deps
solana-deps: devnet/svm/node_modules/.installed
devnet/svm/node_modules/.installed: devnet/svm/package.json devnet/svm/package-lock.json
	cd devnet/svm && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# web-deps installs the browser assets' Node packages (web/package-lock.json, pinned: esbuild and
# the OpenAPI viewer, swagger-ui-dist) once, and again whenever the lockfile changes. Only `make
# web` and web's test (the committed web/dist is the build of the sources) need them: `go build`
# embeds the committed web/dist. SCARF_ANALYTICS=false keeps swagger-ui-dist's dependency
# @scarf/scarf from reporting the install (web/package.json turns it off as well).
.PHONY: web-deps web
web-deps: web/node_modules/.installed
web/node_modules/.installed: web/package.json web/package-lock.json
	cd web && SCARF_ANALYTICS=false npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# web rebuilds web/dist (web/build.mjs, esbuild) from web/src and the pinned packages; commit the
# result with the change that made it.
web: web-deps
	cd web && node build.mjs

# screenshots runs the browser cases with INTENTD_SCREENSHOTS set, so that they save their pages'
# screenshots into docs/screenshots (a plain test run saves them to a temporary directory).
.PHONY: screenshots
screenshots: e2e-deps solana-deps web-deps
	INTENTD_SCREENSHOTS=$(CURDIR)/docs/screenshots E2E_FILES="documentation.test.mjs" $(GO) test -count=1 -run TestPublicSDK ./e2e/
	INTENTD_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run 'TestDashboard$$' ./e2e/

test-short: solana-deps
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

devnet: solana-deps
	@scripts/build.sh ./cmd/intentd-dev
	bin/intentd-dev devnet

dev:
	@scripts/build.sh ./cmd/intentd-dev
	bin/intentd-dev dev

clean:
	rm -rf bin

# bench-quote: quote latency under load (bench/quoteload) against a fresh `intentd-dev dev` on the
# devnet; bench/run-quote.sh starts and always stops both. See BENCHMARKS.md. Pass other
# quoteload flags with BENCH_ARGS, e.g. BENCH_ARGS="-rate 200 -clients 64 -duration 30s".
BENCH_ARGS ?= -clients 64 -duration 30s -scenario eth-bridge
.PHONY: bench-quote
bench-quote:
	@BENCH_ARGS="$(BENCH_ARGS)" bench/run-quote.sh

# bench-records: the request records' read paths at one million seeded requests
# (bench/recordload) against `intentd-dev dev`; bench/run-records.sh seeds once, then measures.
# See BENCHMARKS.md.
.PHONY: bench-records
bench-records:
	@bench/run-records.sh

# bench-status: GET /intents/status/v3 at one million requests under wrk, against the engine's API
# and a bare Gin + pgx server in the same run (bench/run-status.sh). See BENCHMARKS.md.
.PHONY: bench-status
bench-status:
	@bench/run-status.sh

# bench-webhooks: webhook delivery at volume (bench/webhookfanout): 10,000 status events of 100
# API keys' requests written through the transition write while one dispatcher delivers them to
# receivers in the same process; WEBHOOK_BENCH_EVENTS, WEBHOOK_BENCH_KEYS and
# WEBHOOK_BENCH_DISPATCHERS change the load. See BENCHMARKS.md.
.PHONY: bench-webhooks
bench-webhooks:
	$(GO) test -tags bench -count=1 -v -timeout 20m -run TestWebhookFanOut ./bench/webhookfanout/

# bench-intents: whole intents through a fresh `intentd-dev dev` (bench/intentload): 10 wallets x 120
# ETH bridges at 50 a second by default (INTENTS_WALLETS, INTENTS_PER_WALLET, INTENTS_RATE,
# INTENTS_ROUTE, INTENTLOAD_ARGS), each outcome checked on chain and the run against the targets
# (INTENTS_TARGETS: 50/s steady, success p99 5 s, engine share p99 300 ms). INTENTS_ROUTE=
# solana-origin (SOL -> ETH) or solana-dest (ETH -> SOL) runs the local Solana chain too (hence
# solana-deps). See BENCHMARKS.md.
.PHONY: bench-intents
bench-intents: solana-deps
	@bench/run-intents.sh

# bench-intents-scale: the same load against the production shape: Temporal as its own process on
# Postgres (`intentd-dev temporal`), `intentd-dev dev` for the API, the oracles and the
# dispatcher, and WORKERS `intentd worker` processes (default 1), each capped at WORKER_CPU cores
# when set (bench/cap-workers.sh: a cgroup per worker, as root). See BENCHMARKS.md, "Scale-out".
.PHONY: bench-intents-scale
bench-intents-scale:
	@bench/run-intents-scale.sh

# bench-engine: the engine's share of an intent's latency (bench/engineshare): deposit's block ->
# fill broadcast, and the part beyond the oracle's confirmations, over ENGINESHARE_INTENTS
# intents (default 100), ENGINESHARE_CONCURRENCY at a time (default 1). See BENCHMARKS.md.
# bench-ws: the websocket stream's delivery latency (bench/wsload): WSLOAD_INTENTS intents in flight
# (default 1000), each followed by its own connection to GET /ws, from the read-model write to the
# subscriber's socket. See BENCHMARKS.md.
.PHONY: bench-ws
bench-ws:
	$(GO) test -tags bench -count=1 -v -timeout 20m -run TestWebsocketDeliveryLatency ./bench/wsload/

.PHONY: bench-engine
bench-engine:
	$(GO) test -tags bench -count=1 -v -timeout 40m -run TestEngineShare ./bench/engineshare/

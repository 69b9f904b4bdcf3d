#!/usr/bin/env bash
# Open-loop quote latency of one intentd-dev binary on a fresh private Postgres cluster, for
# comparing builds back to back (BENCHMARKS.md): bench/run-quote.sh with INTENTD_BIN,
# and one 15 s run per rate, 64 clients. Usage:
#   bench/compare-quote.sh <intentd-dev binary> [rate ...]      (default rates: 100 150 200)
# Example, the baseline against the current build:
#   git worktree add /tmp/base d45a191 && (cd /tmp/base && go build -o /tmp/intentd-base ./cmd/intentd-dev) # ./cmd/intentd before the split
#   scripts/build.sh ./cmd/intentd-dev
#   bench/compare-quote.sh bin/intentd-dev 100 150 200 200 200
#   bench/compare-quote.sh /tmp/intentd-base 100 150 200 200 200
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1
shift
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(100 150 200)
runs=""
for r in "${rates[@]}"; do
  runs+="${runs:+;}-rate $r -clients 64 -duration 15s -warmup 3s -scenario eth-bridge"
done
INTENTD_BIN=$bin BENCH_RUNS=$runs exec bench/run-quote.sh

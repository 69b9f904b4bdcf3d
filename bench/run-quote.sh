#!/usr/bin/env bash
# make bench-quote: bench/quoteload with BENCH_ARGS (default: -clients 64 -duration 30s -scenario
# eth-bridge) against a fresh `intentd-dev dev` on the devnet, started and always stopped by
# bench/with-dev.sh. See BENCHMARKS.md.
#
#   make bench-quote
#   make bench-quote BENCH_ARGS="-rate 200 -clients 64 -duration 30s -scenario eth-bridge"
#
# BENCH_RUNS holds several quoteload argument sets separated by ';', run in turn against the same
# engine (default: BENCH_ARGS); INTENTD_BIN measures that binary (bench/compare-quote.sh). Exit
# status: quoteload's (1 if more than 1% of the requests failed).
set -euo pipefail
cd "$(dirname "$0")/.."
# Build the load generator now, so that nothing compiles while the API is measured.
go build -o bin/quoteload ./bench/quoteload
BENCH_RUNS=${BENCH_RUNS:-${BENCH_ARGS:-"-clients 64 -duration 30s -scenario eth-bridge"}}
export BENCH_RUNS
# shellcheck disable=SC2016 # expanded by the inner shell
exec bench/with-dev.sh bash -c '
  rc=0
  IFS=";" read -r -a runs <<< "$BENCH_RUNS"
  for args in "${runs[@]}"; do
    echo "==> quoteload $args"
    # The arguments are split into words on purpose.
    bin/quoteload -url "$API" $args || rc=$?
  done
  exit "$rc"'

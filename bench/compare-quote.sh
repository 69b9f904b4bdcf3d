#!/usr/bin/env bash
# Open-loop quote latency of one intentd binary on a fresh private Postgres cluster, for
# comparing builds back to back (BENCHMARKS.md). Needs the devnet running (bin/intentd devnet)
# and nothing else on :8080. Usage:
#   bench/compare-quote.sh <intentd binary> <label> [rate ...]      (default rates: 100 100 150 200)
# Example, the baseline against the current build:
#   git worktree add /tmp/base d45a191 && (cd /tmp/base && go build -o /tmp/intentd-base ./cmd/intentd)
#   go build -o bin/intentd ./cmd/intentd && bench/compare-quote.sh bin/intentd rewrite && bench/compare-quote.sh /tmp/intentd-base baseline
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1 label=$2
shift 2
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(100 100 150 200)
curl -sf -o /dev/null -X POST -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' \
  http://127.0.0.1:8545 || { echo "start the devnet first: bin/intentd devnet" >&2; exit 2; }
go build -o bin/quoteload ./bench/quoteload
rm -rf .data/pg .data/temporal.db*
"$bin" dev > .data/compare-dev.log 2>&1 &
pid=$!
trap 'kill -INT $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do curl -sf -o /dev/null http://127.0.0.1:8080/lives && break; sleep 1; done
for r in "${rates[@]}"; do
  printf '%s, %s req/s: ' "$label" "$r"
  INTENTD_API_KEY=$(cat .data/dev-api-key) bin/quoteload -rate "$r" -clients 64 -duration 15s -warmup 3s 2>&1 | grep 'latency ms' | head -1
done

#!/usr/bin/env bash
# bench/with-dev.sh CMD [ARG...]: build intentd-dev, start the local chains (unless something
# already serves 8545) and a fresh `intentd-dev dev` in the background, wait for the API, then run
# CMD with API (the API's base URL), DATA_DIR and INTENTD_API_KEY (the dev key, never printed) in
# its environment. Whatever this script started is stopped on exit, by PID, however it exits. The
# benchmarks that need a running engine use it: bench/run-quote.sh (make bench-quote) and
# bench/run-records.sh (make bench-records).
#
# DATA_DIR (default .data) is intentd-dev's: the private Postgres cluster, temporal.db, the dev
# API key; the logs go there too (bench-dev.log, bench-devnet.log). INTENTD_BIN runs that binary
# instead of building bin/intentd-dev. Exit status: CMD's.
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -gt 0 ] || { echo "usage: bench/with-dev.sh CMD [ARG...]" >&2; exit 2; }
API=http://127.0.0.1:8080
DATA_DIR=${DATA_DIR:-.data}
export API DATA_DIR
READY_TIMEOUT=${BENCH_READY_TIMEOUT:-120}

# shellcheck source=bench/proc.sh
. bench/proc.sh

dev_pid=""
devnet_pid=""
cleanup() {
  [ -n "$dev_pid" ] && stop "$dev_pid" "intentd-dev dev"
  [ -n "$devnet_pid" ] && stop "$devnet_pid" "intentd-dev devnet"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# scripts/build.sh stops on a failed build, so an old binary is never measured.
if [ -z "${INTENTD_BIN:-}" ]; then
  scripts/build.sh ./cmd/intentd-dev
  INTENTD_BIN=bin/intentd-dev
fi
mkdir -p "$DATA_DIR"

if port_open 8080; then
  echo "bench: something already listens on 127.0.0.1:8080; stop it first (the benchmark starts its own intentd-dev dev)" >&2
  exit 1
fi

if port_open 8545; then
  echo "==> chains: something already serves 127.0.0.1:8545; using it"
else
  echo "==> chains: starting 'intentd-dev devnet' (log in $DATA_DIR/bench-devnet.log)"
  # The EVM chains alone unless BENCH_SOLANA=true (make bench-intents' solana-* routes): the
  # Solana chain's process would share the two cores with what is measured.
  DEVNET_SOLANA=${BENCH_SOLANA:-false} "$INTENTD_BIN" devnet > "$DATA_DIR/bench-devnet.log" 2>&1 &
  devnet_pid=$!
  for _ in $(seq 1 300); do
    port_open 8546 && break
    kill -0 "$devnet_pid" 2>/dev/null || { echo "devnet failed to start:" >&2; cat "$DATA_DIR/bench-devnet.log" >&2; exit 1; }
    sleep 0.2
  done
  port_open 8546 || { echo "devnet did not open 8546 in 60 s:" >&2; tail -n 50 "$DATA_DIR/bench-devnet.log" >&2; exit 1; }
  if [ "${BENCH_SOLANA:-false}" = true ]; then
    for _ in $(seq 1 300); do
      port_open 8899 && break
      kill -0 "$devnet_pid" 2>/dev/null || { echo "devnet failed to start:" >&2; cat "$DATA_DIR/bench-devnet.log" >&2; exit 1; }
      sleep 0.2
    done
    port_open 8899 || { echo "devnet did not open the Solana chain's 8899 in 60 s:" >&2; tail -n 50 "$DATA_DIR/bench-devnet.log" >&2; exit 1; }
  fi
fi

echo "==> engine: starting 'intentd-dev dev' (log in $DATA_DIR/bench-dev.log)"
DEVNET_SOLANA=${BENCH_SOLANA:-false} LOG_LEVEL=${LOG_LEVEL:-info} "$INTENTD_BIN" dev > "$DATA_DIR/bench-dev.log" 2>&1 &
dev_pid=$!

echo "==> waiting for $API/lives (up to ${READY_TIMEOUT}s)"
deadline=$((SECONDS + READY_TIMEOUT))
until curl -fsS -o /dev/null --max-time 2 "$API/lives" 2>/dev/null; do
  if ! kill -0 "$dev_pid" 2>/dev/null; then
    echo "bench: intentd-dev dev exited before the API answered; last lines of $DATA_DIR/bench-dev.log:" >&2
    tail -n 50 "$DATA_DIR/bench-dev.log" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "bench: the API did not answer in ${READY_TIMEOUT}s; last lines of $DATA_DIR/bench-dev.log:" >&2
    tail -n 50 "$DATA_DIR/bench-dev.log" >&2
    exit 1
  fi
  sleep 0.5
done
echo "==> API is up"

if [ -z "${INTENTD_API_KEY:-}" ] && [ -s "$DATA_DIR/dev-api-key" ]; then
  INTENTD_API_KEY=$(tr -d '[:space:]' < "$DATA_DIR/dev-api-key")
  export INTENTD_API_KEY
  echo "==> using the dev API key from $DATA_DIR/dev-api-key"
fi

rc=0
"$@" || rc=$?
exit "$rc"

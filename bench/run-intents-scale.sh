#!/usr/bin/env bash
# make bench-intents-scale: bench-intents (bench/run-intents.sh: the same wallets, intents, rate,
# route and checks) against the production shape on one machine:
#   - the Temporal server as a process of its own with its state on Postgres
#     (`TEMPORAL_PERSISTENCE=postgres intentd-dev temporal`, a private cluster in
#     $SCALE_DATA_DIR/pg, which the engine shares);
#   - `intentd-dev dev` for the API, the three oracles and the webhook dispatcher, on that
#     Temporal server (TEMPORAL_ADDRESS) and that Postgres (DATABASE_URL);
#   - WORKERS `intentd worker` processes (default 1), each configured from its environment only
#     (DEV_WORKERS), their logs and metrics (127.0.0.1:9101 and up) beside dev's; with
#     WORKER_CPU (cores, e.g. 0.15), each in a cgroup capped at that (bench/cap-workers.sh).
# Everything starts fresh and is stopped on exit. Figures: BENCHMARKS.md, "Scale-out".
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERS=${WORKERS:-1}
# The workers' scanners take a chain's blocks in turn and each starts the workflows of the
# deposits it routed eagerly; EAGER_START=false measures every start through the task queue.
SCALE_DATA_DIR=${SCALE_DATA_DIR:-.data/bench-scale}
scripts/build.sh ./cmd/intentd ./cmd/intentd-dev

# shellcheck source=bench/proc.sh
. bench/proc.sh
if port_open 7233; then
  echo "bench: something already listens on 127.0.0.1:7233; stop it first (this benchmark starts its own Temporal server)" >&2
  exit 1
fi
rm -rf "$SCALE_DATA_DIR"
mkdir -p "$SCALE_DATA_DIR"

temporal_pid=""
cleanup() { [ -z "$temporal_pid" ] || stop "$temporal_pid" "the Temporal server"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "==> temporal: starting 'intentd-dev temporal' on Postgres (log in $SCALE_DATA_DIR/temporal.log)"
DATA_DIR=$SCALE_DATA_DIR TEMPORAL_PERSISTENCE=postgres DATABASE_URL='' bin/intentd-dev temporal > "$SCALE_DATA_DIR/temporal.log" 2>&1 &
temporal_pid=$!
for _ in $(seq 1 600); do
  grep -q "temporal: ready" "$SCALE_DATA_DIR/temporal.log" 2>/dev/null && break
  kill -0 "$temporal_pid" 2>/dev/null || { echo "the Temporal server exited:" >&2; tail -n 30 "$SCALE_DATA_DIR/temporal.log" >&2; exit 1; }
  sleep 0.2
done
grep -q "temporal: ready" "$SCALE_DATA_DIR/temporal.log" || { echo "the Temporal server did not start in 120 s" >&2; exit 1; }
[ -s "$SCALE_DATA_DIR/database-url" ] || { echo "the Temporal server wrote no $SCALE_DATA_DIR/database-url" >&2; exit 1; }

DATABASE_URL=$(tr -d '[:space:]' < "$SCALE_DATA_DIR/database-url")
export DATABASE_URL TEMPORAL_ADDRESS=127.0.0.1:7233 DEV_WORKERS=$WORKERS
echo "==> the engine: 'intentd-dev dev' with $WORKERS 'intentd worker' process(es)"
bench/run-intents.sh

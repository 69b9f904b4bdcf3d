#!/usr/bin/env bash
# make bench-intents: whole intents through a fresh `intentd-dev dev` on the devnet
# (bench/intentload): INTENTS_WALLETS wallets (default 10) x INTENTS_PER_WALLET intents (default
# 90) at INTENTS_RATE intents a second in all (default 60: above the 50/s the engine is to sustain,
# so that the steady rate measures the engine rather than the offer), route INTENTS_ROUTE (bridge, usdc or
# swap; default bridge). INTENTLOAD_ARGS adds flags. Every outcome is checked on chain; the run
# fails when an intent is lost, failed or paid wrongly. Figures: BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/intentload ./bench/intentload
export INTENTS_WALLETS=${INTENTS_WALLETS:-10} INTENTS_PER_WALLET=${INTENTS_PER_WALLET:-90} INTENTS_RATE=${INTENTS_RATE:-60} \
  INTENTS_ROUTE=${INTENTS_ROUTE:-bridge} INTENTLOAD_ARGS=${INTENTLOAD_ARGS:-}
export DATA_DIR=${DATA_DIR:-.data/bench-intents}
# A fresh engine each run: the measurement starts from empty task queues and an empty history.
rm -rf "$DATA_DIR"
# shellcheck disable=SC2016 # expanded by the inner shell
exec bench/with-dev.sh bash -c '
  set -euo pipefail
  echo "machine: $(nproc) CPUs, $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | xargs); load before: $(cut -d" " -f1-3 /proc/loadavg)"
  # WORKER_CPU caps each worker process at that many cores (bench/cap-workers.sh).
  [ -z "${WORKER_CPU:-}" ] || bench/cap-workers.sh "$WORKER_CPU"
  # A warm-up of a few intents pays for first connections and cold caches.
  bin/intentload -api "$API" -wallets 2 -intents 2 -route "$INTENTS_ROUTE" > /dev/null
  # The arguments are split into words on purpose.
  # shellcheck disable=SC2086
  bin/intentload -api "$API" -wallets "$INTENTS_WALLETS" -intents "$INTENTS_PER_WALLET" -rate "$INTENTS_RATE" \
    -route "$INTENTS_ROUTE" $INTENTLOAD_ARGS
  [ -z "${WORKER_CPU:-}" ] || bench/cap-workers.sh stats
  # The worker'"'"'s Temporal SDK metrics after the run (schedule-to-start latency per task type,
  # pollers, slots), kept beside the logs.
  curl -fsS --max-time 5 http://127.0.0.1:9100/metrics > "$DATA_DIR/metrics-after.txt" 2>/dev/null &&
    echo "worker metrics after the run: $DATA_DIR/metrics-after.txt" || true
  # Worker processes of their own (DEV_WORKERS, make bench-intents-scale) serve theirs from 9101.
  for i in $(seq 1 "${DEV_WORKERS:-0}"); do
    curl -fsS --max-time 5 "http://127.0.0.1:$((9100 + i))/metrics" > "$DATA_DIR/metrics-after-worker-$i.txt" 2>/dev/null &&
      echo "worker $i metrics after the run: $DATA_DIR/metrics-after-worker-$i.txt" || true
  done'

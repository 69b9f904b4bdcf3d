#!/usr/bin/env bash
# make bench-intents: whole intents through a fresh `intentd-dev dev` on the devnet
# (bench/intentload): INTENTS_WALLETS wallets (default 10) x INTENTS_PER_WALLET intents (default
# 120) at INTENTS_RATE intents a second in all (default 50: the rate the engine is to sustain on
# two cores), route INTENTS_ROUTE (bridge, usdc, swap, deposit-address, or the local Solana
# chain's solana-origin, SOL -> ETH, and solana-dest, ETH -> SOL, for which the devnet runs the
# Solana chain too; default bridge). INTENTLOAD_ARGS adds flags. Every outcome is checked on chain; the run fails when an intent is lost, failed or paid
# wrongly. The run is also checked against INTENTS_TARGETS, flags of bench/intentload (default:
# at least 50/s steady, or the offered rate when lower, deposit mined -> success p99 at most 5 s,
# the engine's share p99 at most 300 ms; empty: none), and prints each target met or MISSED.
# Figures: BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/intentload ./bench/intentload
export INTENTS_WALLETS=${INTENTS_WALLETS:-10} INTENTS_PER_WALLET=${INTENTS_PER_WALLET:-120} INTENTS_RATE=${INTENTS_RATE:-50} \
  INTENTS_ROUTE=${INTENTS_ROUTE:-bridge} INTENTLOAD_ARGS=${INTENTLOAD_ARGS:-} \
  INTENTS_TARGETS=${INTENTS_TARGETS--want-steady $(r=${INTENTS_RATE:-50}; r=${r%.*}; [ "$r" -gt 0 ] && [ "$r" -lt 50 ] && echo "$r" || echo 50) -want-success-p99 5s -want-engine-p99 300ms}
export DATA_DIR=${DATA_DIR:-.data/bench-intents}
# The solana-* routes need the local Solana chain (bench/with-dev.sh starts it with the devnet).
case "$INTENTS_ROUTE" in solana-*) export BENCH_SOLANA=true ;; esac
# A fresh engine each run: the measurement starts from empty task queues and an empty history.
rm -rf "$DATA_DIR"
# shellcheck disable=SC2016 # expanded by the inner shell
exec bench/with-dev.sh bash -c '
  set -euo pipefail
  echo "machine: $(nproc) CPUs, $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | xargs); load before: $(cut -d" " -f1-3 /proc/loadavg)"
  # WORKER_CPU caps each worker process at that many cores (bench/cap-workers.sh).
  [ -z "${WORKER_CPU:-}" ] || bench/cap-workers.sh "$WORKER_CPU"
  # A warm-up pays for first connections and cold caches: about one block of the load, every
  # wallet at the offered rate, so that the pools open the connections a block of fills needs
  # (the first full block of a fresh engine took 300 to 480 ms to its fills, the next 200 to 300).
  warm=$(( (${INTENTS_RATE%.*} + INTENTS_WALLETS - 1) / INTENTS_WALLETS ))
  bin/intentload -api "$API" -wallets "$INTENTS_WALLETS" -intents "$(( warm > 0 ? warm : 1 ))" -rate "$INTENTS_RATE" \
    -route "$INTENTS_ROUTE" > /dev/null
  # The arguments are split into words on purpose.
  # shellcheck disable=SC2086
  bin/intentload -api "$API" -wallets "$INTENTS_WALLETS" -intents "$INTENTS_PER_WALLET" -rate "$INTENTS_RATE" \
    -route "$INTENTS_ROUTE" $INTENTS_TARGETS $INTENTLOAD_ARGS
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

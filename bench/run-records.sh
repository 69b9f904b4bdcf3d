#!/usr/bin/env bash
# make bench-records: the read paths of the request records at one million requests
# (BENCHMARKS.md, "Request records"). Starts `intentd-dev dev` with its own data directory
# (DATA_DIR, default .data/bench-records: the private Postgres cluster on 127.0.0.1:5433 keeps
# the seeded requests between runs), seeds it once with bench/recordload (REQUESTS, default
# 1,000,000), then runs the scenarios with RECORDLOAD_ARGS (default: -clients 32 -duration 20s).
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/recordload ./bench/recordload
DATA_DIR=${DATA_DIR:-.data/bench-records} REQUESTS=${REQUESTS:-1000000} \
  RECORDLOAD_ARGS=${RECORDLOAD_ARGS:-"-clients 32 -duration 20s"}
export DATA_DIR REQUESTS RECORDLOAD_ARGS
# shellcheck disable=SC2016 # expanded by the inner shell
exec bench/with-dev.sh bash -c '
  db="postgres://postgres@127.0.0.1:5433/intentd?sslmode=disable"
  bin/recordload seed -database-url "$db" -requests "$REQUESTS" -keys "$DATA_DIR/recordload-keys.json"
  # The arguments are split into words on purpose.
  bin/recordload run -database-url "$db" -url "$API" -keys "$DATA_DIR/recordload-keys.json" $RECORDLOAD_ARGS'

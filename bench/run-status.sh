#!/usr/bin/env bash
# make bench-status: GET /intents/status/v3 by requestId at one million requests, loaded by wrk
# (a C load generator: the Go one would take a core of the two for itself), against the
# engine's API and, in the same run, against bench/statusbaseline (a bare Gin + pgx lookup: the
# ceiling on this machine). Uses the database `make bench-records` seeds (DATA_DIR, default
# .data/bench-records; seeds it first when empty). WRK_ARGS (default -t2 -c32 -d20s) and
# STATUS_RUNS (default 3) set the load. Installs Debian's wrk when it is missing. BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "==> installing wrk (Debian package)"; apt-get install -y wrk >/dev/null; }
go build -o bin/recordload ./bench/recordload
go build -o bin/statusbaseline ./bench/statusbaseline
DATA_DIR=${DATA_DIR:-.data/bench-records} REQUESTS=${REQUESTS:-1000000} WRK_ARGS=${WRK_ARGS:-"-t2 -c32 -d20s"} \
  STATUS_RUNS=${STATUS_RUNS:-3}
export DATA_DIR REQUESTS WRK_ARGS STATUS_RUNS
# shellcheck disable=SC2016 # expanded by the inner shell
exec bench/with-dev.sh bash -c '
  set -euo pipefail
  db="postgres://postgres@127.0.0.1:5433/intentd?sslmode=disable"
  bin/recordload seed -database-url "$db" -requests "$REQUESTS" -keys "$DATA_DIR/recordload-keys.json"
  ids=$(mktemp); trap "rm -f $ids; kill \$base 2>/dev/null || true" EXIT
  psql "$db" -Atc "SELECT id FROM requests TABLESAMPLE SYSTEM (5) LIMIT 50000" > "$ids"
  bin/statusbaseline -database-url "$db" -addr 127.0.0.1:8090 & base=$!
  sleep 1
  echo "machine: $(nproc) CPUs, $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | xargs); load before: $(cut -d" " -f1-3 /proc/loadavg)"
  for run in $(seq 1 "$STATUS_RUNS"); do
    for target in "api $API $INTENTD_API_KEY" "baseline http://127.0.0.1:8090 -"; do
      set -- $target
      key=$3; [ "$key" = - ] && key=
      # The arguments are split into words on purpose.
      out=$(IDS_FILE=$ids INTENTD_API_KEY=$key wrk $WRK_ARGS --latency -s bench/status/status.lua "$2")
      echo "run $run $1: $(echo "$out" | awk "/Requests\/sec/ {print \$2 \" req/s\"} / 50%/ {print \"p50 \" \$2} / 99%/ {print \"p99 \" \$2} /Non-2xx/ {print \"non-2xx \" \$4}" | xargs), load $(cut -d" " -f1 /proc/loadavg)"
    done
  done'

#!/usr/bin/env bash
# bench/coldstart.sh — a first `make run` and `make test` as on a new machine, timed
# (BENCHMARKS.md, "First start"). It clones this repository into a scratch directory, points the
# Go module and build caches at empty directories, and measures:
#   1. cold `make run`: until the API, the Temporal Web UI and the oracle answer, and then until
#      the public SDK (e2e/) has taken deposits to success through it (ETH and USDC bridges, a
#      swap, a refund);
#   2. warm `make run` (same caches, .data kept): until serving again;
#   3. cold `make test` (module and build caches emptied again), then warm `make test`;
#   4. the binaries' sizes.
# Usage: bench/coldstart.sh [scratch dir]   (default /tmp/intentd-coldstart; it is deleted first)
# Needs ports 8080, 8233, 7233, 3000, 8545, 8546 and 5433 free. Prints one line per figure.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
scratch=${1:-/tmp/intentd-coldstart}
rm -rf "$scratch"
mkdir -p "$scratch"
git clone -q "$src" "$scratch/repo"
# make test reads ../shared (the specification) beside the clone, as CI does.
[ -d "$src/../shared" ] && ln -s "$src/../shared" "$scratch/shared"
export GOMODCACHE=$scratch/gomodcache GOCACHE=$scratch/gocache
cd "$scratch/repo"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in 8080 8233 7233 3000 8545 8546 5433; do
  if port_open "$p"; then echo "coldstart: port $p is taken; stop what serves it" >&2; exit 1; fi
done

run_pid=""
stop_run() {
  if [ -n "$run_pid" ]; then
    kill -INT -- "-$run_pid" 2>/dev/null || kill -INT "$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
    run_pid=""
  fi
  for _ in $(seq 1 60); do port_open 8080 || port_open 8545 || break; sleep 0.5; done
  # A make run interrupted before it stopped its private Postgres leaves the cluster running on
  # 5433: stop it (fast shutdown), so the next start and the machine's later runs find the port free.
  pkill -INT -f -- "-D $scratch/repo/.data/pg" 2>/dev/null || true
  for _ in $(seq 1 20); do port_open 5433 || break; sleep 0.5; done
}
trap stop_run EXIT

# serving: the API, the Web UI and the oracle answer.
serving() {
  curl -fsS -o /dev/null --max-time 2 http://127.0.0.1:8080/lives &&
    curl -fsS -o /dev/null --max-time 2 http://127.0.0.1:8233/ &&
    curl -fsS -o /dev/null --max-time 2 http://127.0.0.1:3000/lives/v1
}

# start_run LOG: `make run` in its own process group with its output stamped line by line into
# LOG; returns once serving, with the seconds it took in $took.
took=0
start_run() {
  local log=$1 t0=$SECONDS
  set -m
  (make run 2>&1 | while IFS= read -r line; do printf '%s %s\n' "$(date +%s)" "$line"; done >"$log") &
  run_pid=$!
  set +m
  until serving 2>/dev/null; do
    if ! kill -0 "$run_pid" 2>/dev/null; then echo "coldstart: make run exited:" >&2; tail -n 40 "$log" >&2; exit 1; fi
    sleep 0.5
  done
  took=$((SECONDS - t0))
}

echo "coldstart: clone at $scratch/repo (commit $(git rev-parse --short HEAD)), empty GOMODCACHE and GOCACHE, $(nproc) cores"
start_run "$scratch/run-cold.log"
echo "cold make run: serving after ${took} s"
# The SDK's packages are installed outside the timed window.
(cd e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
t1=$SECONDS
INTENTD_API_KEY=$(tr -d '[:space:]' < .data/dev-api-key) INTENTD_API_URL=http://127.0.0.1:8080 INTENTD_RPC_31337=http://127.0.0.1:8545 INTENTD_RPC_31338=http://127.0.0.1:8546 \
  INTENTD_USDC=0x3F88d0F5403139753a203e6F36BFaE0CeAE3bF42 INTENTD_DEPOSITORY=0xB9733560ecF2E4E9C9d8c21B6b34B7A4f25277AA \
  node --test --test-reporter=dot e2e/sdk.test.mjs >"$scratch/sdk.log" 2>&1 || { echo "coldstart: the SDK suite failed:" >&2; cat "$scratch/sdk.log" >&2; exit 1; }
echo "cold make run: the SDK suite (4 intents to their end, 1 quote error) passed against it in $((SECONDS - t1)) s"
sleep 1
# The longest silence in make run's output before it served (its lines are stamped as they come).
gap=$(awk '/intentd-dev dev is running/ { exit } { if (NR > 1 && $1 - prev > max) max = $1 - prev; prev = $1 } END { print max + 0 }' "$scratch/run-cold.log")
echo "cold make run: longest silence in its output before serving: ${gap} s"
stop_run

start_run "$scratch/run-warm.log"
echo "warm make run (caches and .data kept): serving after ${took} s"
stop_run

ls -l bin/intentd-dev | awk '{printf "size: bin/intentd-dev %.1f MB\n", $5/1e6}'
make build >/dev/null
ls -l bin/intentd | awk '{printf "size: bin/intentd %.1f MB\n", $5/1e6}'

chmod -R u+w "$GOMODCACHE" && rm -rf "$GOMODCACHE" "$GOCACHE" e2e/node_modules
t2=$SECONDS
make test >"$scratch/test-cold.log" 2>&1 || { echo "coldstart: make test failed:" >&2; tail -n 60 "$scratch/test-cold.log" >&2; exit 1; }
echo "cold make test (empty module and build caches, npm ci included): $((SECONDS - t2)) s"
t3=$SECONDS
make test >"$scratch/test-warm.log" 2>&1 || { echo "coldstart: make test failed:" >&2; tail -n 60 "$scratch/test-warm.log" >&2; exit 1; }
echo "warm make test: $((SECONDS - t3)) s"

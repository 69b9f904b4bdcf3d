#!/usr/bin/env bash
# bench/cap-workers.sh CPUS: gives every running `intentd worker` process a CPU budget of its
# own, CPUS cores (0.3: 30 ms of CPU time in every 100 ms), as if each ran on a small machine of
# its own: on a machine of two cores one worker already takes what the rest of the system leaves,
# so a second one could only compete for the same cores. With the workers capped, the engine's
# throughput is bound by its workers, and adding one shows what a worker adds (make
# bench-intents-scale WORKER_CPU=0.3, BENCHMARKS.md "Scale-out"). A process is moved into a cgroup
# of its own (cgroup v1's cpu controller, or v2's cpu.max); the threads it starts later follow it.
# Needs root. `bench/cap-workers.sh stats` prints how often each cap held a worker back.
set -euo pipefail
v1=/sys/fs/cgroup/cpu
v2=/sys/fs/cgroup
group() {
  if [ -w "$v1" ] && [ -f "$v1/cpu.cfs_quota_us" ]; then echo "$v1/intentd-bench-worker-$1"
  elif [ -f "$v2/cgroup.controllers" ] && grep -qw cpu "$v2/cgroup.controllers" && [ -w "$v2" ]; then echo "$v2/intentd-bench-worker-$1"
  else return 1; fi
}

if [ "${1:-}" = stats ]; then
  for i in $(seq 1 16); do
    dir=$(group "$i") || exit 0
    [ -d "$dir" ] || break
    echo "worker $i cgroup: $(tr '\n' ' ' < "$dir/cpu.stat")"
  done
  exit 0
fi

cpus=${1:?usage: bench/cap-workers.sh CPUS | stats}
period=100000
quota=$(awk -v c="$cpus" 'BEGIN { printf "%d", c * 100000 }')
[ "$quota" -ge 1000 ] || { echo "cap-workers: $cpus cores is too small a budget" >&2; exit 2; }
# The groups of an earlier run (empty once its workers have exited) go, so the stats count
# this run only.
for i in $(seq 1 16); do
  dir=$(group "$i") || break
  [ ! -d "$dir" ] || rmdir "$dir" 2>/dev/null || true
done
pids=$(pgrep -f '(^|/)intentd worker$' || true)
[ -n "$pids" ] || { echo "cap-workers: no 'intentd worker' process runs" >&2; exit 1; }
i=0
for pid in $pids; do
  i=$((i + 1))
  dir=$(group "$i") || { echo "cap-workers: no writable cgroup cpu controller here (it needs root)" >&2; exit 1; }
  mkdir -p "$dir"
  if [ -f "$dir/cpu.cfs_quota_us" ]; then
    echo "$period" > "$dir/cpu.cfs_period_us"
    echo "$quota" > "$dir/cpu.cfs_quota_us"
  else
    echo "$quota $period" > "$dir/cpu.max"
  fi
  echo "$pid" > "$dir/cgroup.procs"
  echo "==> worker $i (pid $pid): at most $cpus of a core ($dir)"
done

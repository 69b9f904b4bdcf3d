# bench/proc.sh: helpers the benchmark launchers source (with-dev.sh, run-intents-scale.sh).

# port_open PORT: whether something listens on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# stop PID NAME: SIGINT (intentd-dev's commands shut down cleanly on it: dev and temporal stop
# their Postgres cluster and Temporal), then SIGKILL if it is still there after 30 s.
stop() {
  local pid=$1 name=$2
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  echo "==> stopping $name (pid $pid)"
  kill -INT "$pid" 2>/dev/null || true
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "==> $name did not stop in 30 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

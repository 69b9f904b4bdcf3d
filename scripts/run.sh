#!/usr/bin/env bash
# make run: build intentd-dev, start the local chains (unless something already serves 8545),
# then the whole engine. Ctrl-C stops everything this script started. State under .data/
# survives restarts; the chains live as long as their devnet process. Progress is printed at
# least every 5 seconds while building (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh ./cmd/intentd-dev
mkdir -p .data

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

devnet_pid=""
cleanup() {
  if [ -n "$devnet_pid" ]; then
    kill -INT "$devnet_pid" 2>/dev/null || true
    wait "$devnet_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

if port_open 8545; then
  echo "==> chains: something already serves 127.0.0.1:8545; using it (run 'bin/intentd-dev devnet' yourself to control it)"
else
  # The devnet starts the Solana chain (:8899, unless DEVNET_SOLANA=false) and the perps exchange
  # (:8337, unless DEVNET_EXCHANGE=false) before the EVM chains, so 8547 (chain 999, the last) open means all of them serve.
  echo "==> chains: starting 'intentd-dev devnet' (31337 on :8545, 31338 on :8546, 999 on :8547, Solana on :8899, the perps exchange on :8337); log in .data/devnet.log"
  bin/intentd-dev devnet >.data/devnet.log 2>&1 &
  devnet_pid=$!
  for _ in $(seq 1 100); do
    port_open 8547 && break
    kill -0 "$devnet_pid" 2>/dev/null || { echo "devnet failed to start:"; cat .data/devnet.log; exit 1; }
    sleep 0.2
  done
  sed -n '/^Contracts/,$p' .data/devnet.log
fi
bin/intentd-dev dev

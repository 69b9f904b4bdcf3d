#!/usr/bin/env bash
# Compiles the devnet contracts with the pinned solc from the npm registry and regenerates the
# committed artifacts (contracts/build) and go-ethereum bindings (chains/evm/bindings).
# Run through `make contracts`; tests never need npm because the outputs are committed.
set -euo pipefail
cd "$(dirname "$0")"
[ -x node_modules/.bin/solcjs ] || npm ci --no-audit --no-fund
rm -rf build && mkdir -p build
node_modules/.bin/solcjs --bin --abi --optimize --optimize-runs 200 --base-path . --include-path src -o build src/*.sol
cd build
for f in *.abi *.bin; do
  # solcjs names outputs src_File_sol_Contract.ext; keep Contract.ext
  mv "$f" "${f##*_sol_}"
done
rm -f SafeTransfer.abi SafeTransfer.bin
# An interface compiles to no code: it needs no artifact or binding of its own.
for bin in *.bin; do
  [ -s "$bin" ] || rm -f "$bin" "${bin%.bin}.abi"
done
cd ..
out=../chains/evm/bindings
mkdir -p "$out"
for abi in build/*.abi; do
  c=$(basename "$abi" .abi)
  go run github.com/ethereum/go-ethereum/cmd/abigen@v1.17.10 --v2 \
    --abi "build/$c.abi" --bin "build/$c.bin" --pkg bindings --type "$c" --out "$out/$(echo "$c" | tr 'A-Z' 'a-z').go"
done
echo "contracts: artifacts in contracts/build, bindings in chains/evm/bindings"

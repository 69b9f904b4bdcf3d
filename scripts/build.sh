#!/usr/bin/env bash
# build.sh PKG… — builds the given commands into bin/ and reports progress every 5 seconds from
# the first one: the modules fetched, then the packages compiled against the total (weighted by
# source size), each with an estimate of the time left. A first build on a new machine fetches
# and compiles everything; later ones reuse the module and build caches and take seconds.
#
# The flags are the project's (Makefile): cgo where a C compiler is (Go's default; go-ethereum's
# libsecp256k1) and -tags=nomsgpack (Gin without MessagePack, which nothing uses).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/build.sh ./cmd/NAME…" >&2; exit 2; }

GO=${GO:-go}
export CGO_ENABLED=${CGO_ENABLED:-$($GO env CGO_ENABLED)}
case " ${GOFLAGS:-} " in *nomsgpack*) ;; *) export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=nomsgpack" ;; esac

# Calibration for the first estimates, measured on 2 cores (BENCHMARKS.md, "First start"): source
# compiled per second and the time to fetch one module; the estimates follow the observed rates
# as soon as there are some.
RATE_BYTES=${BUILD_RATE_BYTES:-400000}
SEC_PER_MODULE=${BUILD_SEC_PER_MODULE:-0.25}
LINK_SECONDS=${BUILD_LINK_SECONDS:-20}
FIRST_BUILD_SECONDS=${BUILD_FIRST_SECONDS:-300}

work=$(mktemp -d)
ticker=""
cleanup() {
  [ -n "$ticker" ] && kill "$ticker" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

t0=$(date +%s)
clock() { local s=$(($(date +%s) - t0)); printf '%d:%02d' $((s / 60)) $((s % 60)); }
left() { # seconds -> "about 3m10s left"
  local s=${1%.*}
  [ "$s" -lt 1 ] && s=1
  if [ "$s" -ge 60 ]; then printf 'about %dm%02ds left' $((s / 60)) $((s % 60)); else printf 'about %ds left' "$s"; fi
}
say() { printf '    [%s] %s\n' "$(clock)" "$*"; }

# Phase 1: resolve the packages; the go command fetches the modules they are in. Each fetched
# module prints "go: downloading …".
expected=$(awk '/^require \(/{r=1;next} r&&/^\)/{r=0} r&&NF{n++} /^require [^(]/{n++} END{print n+0}' go.mod)
phase=$work/phase
echo modules >"$phase"
: >"$work/downloaded"
report() {
  case "$(cat "$phase")" in
  modules)
    local n; n=$(wc -l <"$work/downloaded")
    local s=$(($(date +%s) - t0))
    local est
    # What is left: the modules still to fetch, then a first build's compile and link.
    if [ "$n" -ge 5 ]; then est=$(awk -v s="$s" -v n="$n" -v e="$expected" -v f="$FIRST_BUILD_SECONDS" 'BEGIN{print ((e > n) ? (e-n)*s/n : 1) + f}')
    else est=$(awk -v e="$expected" -v k="$SEC_PER_MODULE" -v f="$FIRST_BUILD_SECONDS" 'BEGIN{print e*k + f}'); fi
    say "resolving packages: $n modules fetched (of at most $expected); $(left "$est") in all" ;;
  compile)
    . "$work/meta"
    local done_bytes
    done_bytes=$(awk 'NR==FNR{w[$1]=$2;next} ($1 in w){d+=w[$1]} END{print d+0}' "$work/weights" "$work/built")
    local n; n=$(wc -l <"$work/built")
    local s=$(($(date +%s) - $(cat "$work/compile_t0")))
    local est
    est=$(awk -v d="$done_bytes" -v t="$total_bytes" -v s="$s" -v r="$RATE_BYTES" -v l="$LINK_SECONDS" -v b="$nbin" \
      'BEGIN{ if (d > t*0.05 && s > 5) r = d/s; print (t-d)/r + l*b }')
    local pct; pct=$(awk -v d="$done_bytes" -v t="$total_bytes" 'BEGIN{printf "%d", (t > 0) ? 100*d/t : 100}')
    say "compiling: $n of $total packages ($pct% of the source); $(left "$est")" ;;
  link)
    . "$work/meta"
    say "linking $bins; $(left "$LINK_SECONDS")" ;;
  esac
}

echo "==> building $* into bin/ (CGO_ENABLED=$CGO_ENABLED, GOFLAGS=$GOFLAGS)"
say "resolving packages and fetching the modules they need"
(while sleep 5; do report; done) &
ticker=$!

# Weights: the bytes of Go source of every package that is not in the build cache yet.
if ! "$GO" list -deps -f '{{if .Stale}}{{.ImportPath}}{{range .GoFiles}} {{$.Dir}}/{{.}}{{end}}{{range .SFiles}} {{$.Dir}}/{{.}}{{end}}{{end}}' "$@" \
  >"$work/stale" 2> >(while IFS= read -r line; do
    case "$line" in "go: downloading "*) echo "$line" >>"$work/downloaded" ;; *) echo "$line" >&2 ;; esac
  done); then
  echo "build failed while resolving packages" >&2
  exit 1
fi
# One stat over every file (in batches), then summed per package.
awk '{for (i=2;i<=NF;i++) print $i "\t" $1} NF==1{print "-\t" $1}' "$work/stale" >"$work/files"
cut -f1 "$work/files" | grep -v '^-$' | xargs -r stat -c '%s %n' >"$work/sizes" 2>/dev/null || true
awk -F'\t' 'NR==FNR{split($0,a," "); sz[substr($0,length(a[1])+2)]=a[1]; next} {w[$2]+=sz[$1]+0} END{for (p in w) print p, w[p]+1}' \
  "$work/sizes" "$work/files" >"$work/weights"
total=$(wc -l <"$work/weights")
total_bytes=$(awk '{s+=$2} END{print s+0}' "$work/weights")
nbin=$#
bins=$(for p in "$@"; do printf 'bin/%s ' "$(basename "$p")"; done)
printf 'total=%s total_bytes=%s nbin=%s bins="%s"\n' "$total" "$total_bytes" "$nbin" "$bins" >"$work/meta"
say "$(wc -l <"$work/downloaded") modules fetched; $total packages to compile ($((total_bytes / 1000000)) MB of source)"

# Phase 2: compile and link. `go build -v` names each package as it compiles it.
: >"$work/built"
date +%s >"$work/compile_t0"
echo compile >"$phase"
mkdir -p bin
status=0
"$GO" build -v -o bin/ "$@" 2>&1 | while IFS= read -r line; do
  case "$line" in
  *" "* | *:* | "") echo "$line" ;; # the go command's own messages and compile errors
  *)
    echo "$line" >>"$work/built"
    if [ "$(wc -l <"$work/built")" -ge "$total" ]; then echo link >"$phase"; fi ;;
  esac
done || status=$?
kill "$ticker" 2>/dev/null || true
ticker=""
if [ "$status" -ne 0 ]; then
  echo "==> build failed after $(clock)" >&2
  exit 1
fi
say "built ${bins}in $(clock)"

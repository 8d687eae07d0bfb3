#!/usr/bin/env bash
# The core's wasm size at each given commit, built as `make build` builds it (cargo release for
# wasm32, scripts/wasm-opt.sh, wasm-bindgen), for "where did the bytes go" (docs/BENCHMARKS.md,
# "Cutting dist/main.js"). Each commit's sources are unpacked into $OUT (their files touched: git
# archive dates them at the commit, and cargo would reuse the last build); one target folder is
# shared, so dependencies build once. A named copy (wasm-opt -g) is kept per commit for twiggy.
#   bench/wasm-history.sh COMMIT...      prints "commit raw gzip subject", one line each
set -uo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${OUT:-/tmp/wasm-history}"
export CARGO_TARGET_DIR="$OUT/target"
for c in "$@"; do
  src="$OUT/src-$c" out="$OUT/out-$c"
  rm -rf "$src" && mkdir -p "$src" "$out"
  git -C "$REPO" archive "$c" | tar -x -C "$src"
  find "$src" -type f -exec touch {} +
  (cd "$src" && cargo build --release --target wasm32-unknown-unknown -q) || { echo "$c: build failed" >&2; continue; }
  wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/smarthole_agent.wasm"
  cp "$wasm" "$out/opt.wasm" && "$REPO/scripts/wasm-opt.sh" "$out/opt.wasm"
  cp "$wasm" "$out/named.wasm" && "$REPO/scripts/wasm-opt.sh" "$out/named.wasm" -g
  wasm-bindgen --target web --out-dir "$out" --remove-name-section --remove-producers-section "$out/opt.wasm"
  wasm-bindgen --target web --out-dir "$out" --remove-producers-section "$out/named.wasm"
  echo "$c $(stat -c %s "$out/opt_bg.wasm") $(gzip -9 -c "$out/opt_bg.wasm" | wc -c) $(git -C "$REPO" log -1 --format=%s "$c" | cut -c1-80)"
  rm -rf "$src"
done

#!/usr/bin/env bash
# Shrinks the core's wasm in place with binaryen's wasm-opt: the Makefile runs it on the cargo
# output before wasm-bindgen (Debian's binaryen 108 mixes up the externref table wasm-bindgen adds),
# bench/wasm-size.mjs on its copy with -g (names kept).
#   scripts/wasm-opt.sh FILE [more wasm-opt flags]
# -Os with inlining turned off: binaryen's inlining makes the file smaller but its gzip larger,
# and the gzip is what dist/main.js carries (docs/BENCHMARKS.md, "What the wasm is made of").
# The wasm features come from the file's target_features section.
set -euo pipefail
file="$1"
shift
exec wasm-opt -Os --always-inline-max-function-size 0 --flexible-inline-max-function-size 0 \
  --one-caller-inline-max-function-size 0 "$@" "$file" -o "$file"

#!/usr/bin/env bash
# Fuzzes every target in fuzz/ for SECONDS each (default 300): first the inputs that once
# crashed it (fuzz/regressions/<target>/, each a regression test), then new ones from its corpus
# (fuzz/corpus/, kept between runs, not committed). A crash stops the run with the input saved
# under fuzz/artifacts/<target>/: add it to fuzz/regressions/<target>/ with the fix.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-300}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# -s none: plain libFuzzer coverage without AddressSanitizer, which needs a nightly compiler;
# the code under test is safe Rust, and panics (failed assertions, and with -a debug assertions
# and integer overflow) are what the targets check.
FLAGS=(-s none -O -a)
say "building the fuzz targets"
cargo fuzz build "${FLAGS[@]}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for target in "${targets[@]}"; do
  if compgen -G "regressions/$target/*" >/dev/null; then
    say "fuzz $target: regression inputs"
    cargo fuzz run "${FLAGS[@]}" "$target" regressions/"$target"/* -- -runs=1 >"$log" 2>&1 || { cat "$log"; exit 1; }
  fi
  say "fuzz $target: ${seconds} s"
  mkdir -p "corpus/$target"
  dict=()
  [ -f "dicts/$target.dict" ] && dict=(-dict="dicts/$target.dict")
  # -timeout: an input that takes 10 s is a hang, reported as one.
  status=0
  cargo fuzz run "${FLAGS[@]}" "$target" "corpus/$target" -- -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 "${dict[@]}" >"$log" 2>&1 || status=$?
  grep -E '^Done|panicked|SUMMARY|ERROR' "$log" || true
  if [ "$status" -ne 0 ] || compgen -G "artifacts/$target/*" >/dev/null; then
    tail -40 "$log" >&2
    echo "fuzz $target failed (exit $status); inputs: $(ls artifacts/"$target"/ 2>/dev/null | tr '\n' ' ')" >&2
    exit 1
  fi
done

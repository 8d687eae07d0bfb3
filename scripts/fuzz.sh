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
# the code under test is safe Rust, and panics (failed assertions) are what the targets check.
say "building the fuzz targets"
cargo fuzz build -s none -O
for target in "${targets[@]}"; do
  if compgen -G "regressions/$target/*" >/dev/null; then
    say "fuzz $target: regression inputs"
    cargo fuzz run -s none -O "$target" regressions/"$target"/* -- -runs=1 >/dev/null 2>&1 \
      || { cargo fuzz run -s none -O "$target" regressions/"$target"/* -- -runs=1; exit 1; }
  fi
  say "fuzz $target: ${seconds} s"
  mkdir -p "corpus/$target"
  cargo fuzz run -s none -O "$target" "corpus/$target" -- -max_total_time="$seconds" -rss_limit_mb=2048 2>&1 \
    | grep -E '^Done|^#[0-9]+ +DONE|panicked|SUMMARY|ERROR|artifact' || true
  if compgen -G "artifacts/$target/crash-*" >/dev/null; then
    echo "fuzz $target found a crash: $(ls artifacts/"$target"/crash-*)" >&2
    exit 1
  fi
done

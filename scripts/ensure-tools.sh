#!/usr/bin/env bash
# Installs what the build and the tests need and is missing; skips what is already there.
#   scripts/ensure-tools.sh            Rust wasm target, wasm-bindgen-cli, binaryen's wasm-opt, npm packages
#   scripts/ensure-tools.sh model      … and the local model's Python venv
#   scripts/ensure-tools.sh chromium   … and Debian's chromium (browser tests)
#   scripts/ensure-tools.sh fuzz       … and cargo-fuzz (libFuzzer targets in fuzz/)
#   scripts/ensure-tools.sh twiggy     … and twiggy (make bench: what the wasm is made of)
#   scripts/ensure-tools.sh ripgrep    … and Debian's ripgrep (make bench: the search benchmark's reference)
#   scripts/ensure-tools.sh agents     … and the coding agents the ACP tests drive, pinned (scripts/ensure-agents.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen pin in Cargo.toml
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
# Installs Debian packages, refreshing the package lists once if they are stale.
debian_install() {
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null \
    || { $sudo apt-get update -q >/dev/null && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null; }
}

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the Rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q " ${WASM_BINDGEN_VERSION}\$"; then
  say "installing wasm-bindgen-cli ${WASM_BINDGEN_VERSION} (one time, several minutes; kept in ~/.cargo)"
  # The CLI's own lockfile pins a crate version the registry here no longer serves; fall back to
  # resolving its dependencies afresh (same CLI version either way).
  cargo install wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}" --locked 2>/dev/null \
    || cargo install wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}" --force
fi

if ! command -v wasm-opt >/dev/null 2>&1; then
  say "installing Debian's binaryen (wasm-opt shrinks the core's wasm: scripts/wasm-opt.sh)"
  debian_install binaryen
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages (cached in ~/.npm)"
  npm ci --no-audit --no-fund --loglevel=error
fi

for want in "$@"; do
  case "$want" in
    model) scripts/local-model.sh ensure ;;
    agents) scripts/ensure-agents.sh ;;
    fuzz)
      if ! cargo fuzz --version >/dev/null 2>&1; then
        say "installing cargo-fuzz (one time, a few minutes; kept in ~/.cargo)"
        cargo install cargo-fuzz --locked
      fi ;;
    twiggy)
      if ! twiggy --version >/dev/null 2>&1; then
        say "installing twiggy (one time, a few minutes; kept in ~/.cargo)"
        cargo install twiggy --locked 2>/dev/null || cargo install twiggy
      fi ;;
    chromium)
      if ! command -v chromium >/dev/null 2>&1; then
        say "installing Debian's chromium for the browser tests"
        debian_install chromium
      fi ;;
    ripgrep)
      if ! command -v rg >/dev/null 2>&1; then
        say "installing Debian's ripgrep (make bench: the search benchmark's reference scan)"
        debian_install ripgrep
      fi ;;
  esac
done

#!/usr/bin/env bash
# Every test, in layers (docs/ARCHITECTURE.md, "Tests"). Run through `make test`, which builds first.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
started=$SECONDS

step "rustfmt"
cargo fmt --check

step "no import cycle between the core's modules (its own test: tests/node/module-cycles.test.mjs)"
node scripts/module-cycles.mjs

step "the shim's layout: no import cycle between its TypeScript files, none over 400 lines (its own test: tests/node/shim-layout.test.mjs)"
node scripts/shim-layout.mjs

step "clippy (native and wasm32)"
cargo clippy --all-targets -- -D warnings
cargo clippy --lib --target wasm32-unknown-unknown -- -D warnings
# The fuzz targets use the core's internals: a change there shows here in seconds, not after the
# end-to-end tests when the fuzzing step builds them.
cargo check --quiet --manifest-path fuzz/Cargo.toml --bins

step "native tests (FakeHost, virtual time)"
cargo test --quiet

step "contract: the core's JSON against the shim's TypeScript declarations (its own test: tests/node/contract.test.mjs)"
node scripts/contract.mjs

step "dist/main.js within its ceiling: growth is a decision (scripts/bundle-ceiling.mjs)"
node scripts/bundle-ceiling.mjs

step "wasm-bindgen tests under Node (the JS boundary)"
cargo test --target wasm32-unknown-unknown --test wasm_boundary

step "TypeScript type check (against the obsidian types) and lint (eslint-plugin-obsidianmd)"
npx --no-install tsc --noEmit -p js-shim
npx --no-install eslint js-shim/src
# `make bench` runs these; a syntax error in one would otherwise show only there.
for script in bench/*.mjs scripts/*.mjs; do node --check "$script"; done

step "end-to-end tests in Node (scripted Anthropic server, local chat and embedding models, crash tests)"
MODEL_PORT=${SMARTHOLE_TEST_MODEL_PORT:-8092}
export SMARTHOLE_TEST_MODEL_URL
SMARTHOLE_TEST_MODEL_URL=$(scripts/local-model.sh start "$MODEL_PORT")
EMBEDDINGS_PORT=${SMARTHOLE_TEST_EMBEDDINGS_PORT:-8093}
export SMARTHOLE_TEST_EMBEDDINGS_URL
trap 'scripts/local-model.sh stop "$MODEL_PORT" >/dev/null 2>&1 || true; scripts/local-model.sh embeddings-stop "$EMBEDDINGS_PORT" >/dev/null 2>&1 || true' EXIT
SMARTHOLE_TEST_EMBEDDINGS_URL=$(scripts/local-model.sh embeddings-start "$EMBEDDINGS_PORT")
node --test --test-concurrency=1 tests/node/

step "fuzzing smoke run (every target: its regression inputs, then ${FUZZ_SECONDS:-30} s of new ones)"
scripts/fuzz.sh "${FUZZ_SECONDS:-30}"

step "browser tests (headless Chromium, the chat panel over the real core; screenshots in target/screenshots)"
node --test --test-concurrency=1 tests/browser/

printf '\n\033[1mall tests passed in %ss\033[0m\n' "$((SECONDS - started))"

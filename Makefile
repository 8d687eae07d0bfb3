# SmartHole Agent. `make demo` and `make test` work on a fresh machine: each installs what it
# needs (scripts/ensure-tools.sh) and skips what is there.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

WASM_OUT := target/wasm32-unknown-unknown/release/smarthole_agent.wasm
# The cargo output after scripts/wasm-opt.sh (before wasm-bindgen: Debian's binaryen 108 mixes up
# the externref table wasm-bindgen adds).
WASM_OPT_OUT := target/wasm-opt/smarthole_agent.wasm
CORE_SRC := $(shell find src -name '*.rs' -o -name '*.d.ts') Cargo.toml Cargo.lock
SHIM_SRC := $(shell find js-shim/src -name '*.ts') $(wildcard js-shim/*.mjs) styles.css manifest.json

.PHONY: help setup build test demo bench fuzz soak clean

help:
	@echo "make demo    run the agent on the sample vault (local model, or Claude with ANTHROPIC_API_KEY);"
	@echo "             MODE=browser serves the chat panel on 127.0.0.1 instead of the terminal chat"
	@echo "make test    every test: native, wasm under Node, end-to-end with real peers"
	@echo "make build   dist/ (the Obsidian plugin: main.js, manifest.json, styles.css), pkg/, js-shim/dist/"
	@echo "make bench   benchmarks → target/bench/results.json and docs/BENCHMARKS.md"
	@echo "make fuzz    every fuzz target for FUZZ_SECONDS each (default 300; make test runs 30)"
	@echo "make soak    crash torture (TORTURE_KILLS, default 200) and the soaks (SOAK_MESSAGES, default 10000): the built-in agent with faults, an ACP agent searching an indexed vault"

setup:
	@scripts/ensure-tools.sh

pkg/smarthole_agent_bg.wasm: $(CORE_SRC)
	cargo build --release --target wasm32-unknown-unknown
	mkdir -p $(dir $(WASM_OPT_OUT)) && cp $(WASM_OUT) $(WASM_OPT_OUT)
	scripts/wasm-opt.sh $(WASM_OPT_OUT)
	wasm-bindgen --target web --out-dir pkg --remove-name-section --remove-producers-section $(WASM_OPT_OUT)

js-shim/dist/headless.js: pkg/smarthole_agent_bg.wasm $(SHIM_SRC)
	node js-shim/build.mjs

build: setup
	@$(MAKE) --no-print-directory js-shim/dist/headless.js

test: setup
	@$(MAKE) --no-print-directory js-shim/dist/headless.js
	@scripts/ensure-tools.sh model chromium fuzz agents
	@scripts/test.sh

fuzz: setup
	@scripts/ensure-tools.sh fuzz
	@scripts/fuzz.sh $${FUZZ_SECONDS:-300}

soak: setup
	@$(MAKE) --no-print-directory js-shim/dist/headless.js
	node tests/torture/run.mjs --kills $${TORTURE_KILLS:-200} --messages $${SOAK_MESSAGES:-10000}

demo: setup
	@$(MAKE) --no-print-directory js-shim/dist/headless.js
	@MODE=$(MODE) scripts/demo.sh

bench: setup
	@$(MAKE) --no-print-directory js-shim/dist/headless.js
	@scripts/ensure-tools.sh chromium twiggy ripgrep
	node bench/run.mjs

clean:
	rm -rf target pkg js-shim/dist dist

#!/usr/bin/env bash
# `make demo`: the agent on the sample vault. On a terminal, an interactive chat; without one
# (a pipe, CI), one sample message, its answer streamed, then exit. With ANTHROPIC_API_KEY set it
# talks to Claude; otherwise to the local model (SmolLM2, offline; started and stopped here).
# `make demo MODE=browser`: the chat panel in your browser, served on 127.0.0.1, same core.
set -euo pipefail
cd "$(dirname "$0")/.."

VAULT=examples/sample-vault
SAMPLE="Hi! In two sentences: what can you help me with in my notes?"
args=(--vault "$VAULT")

if [ -n "${ANTHROPIC_API_KEY:-}" ]; then
  echo "demo: talking to Claude (${SMARTHOLE_DEMO_MODEL:-claude-sonnet-4-5}) with ANTHROPIC_API_KEY" >&2
  args+=(--api-key-env ANTHROPIC_API_KEY --model "${SMARTHOLE_DEMO_MODEL:-claude-sonnet-4-5}")
else
  PORT=${SMARTHOLE_DEMO_MODEL_PORT:-8091}
  if ! scripts/local-model.sh status "$PORT" >/dev/null 2>&1; then
    trap 'scripts/local-model.sh stop "$PORT" >/dev/null 2>&1 || true' EXIT
  fi
  if ! URL=$(scripts/local-model.sh start "$PORT"); then
    echo "demo: the offline model could not start (the reason is above)." >&2
    echo "      To talk to Claude instead: ANTHROPIC_API_KEY=<your key> make demo" >&2
    exit 1
  fi
  echo "demo: talking to the local model at $URL (SmolLM2-135M: small and offline, so expect a weak answer;" >&2
  echo "      set ANTHROPIC_API_KEY to talk to Claude)" >&2
  args+=(--llm-base-url "$URL" --model smollm2 --max-tokens 300)
fi

if [ "${MODE:-}" = browser ]; then
  server_args=(--vault "$VAULT" --port "${SMARTHOLE_DEMO_PORT:-8787}")
  if [ -n "${ANTHROPIC_API_KEY:-}" ]; then
    server_args+=(--llm-base-url https://api.anthropic.com --api-key-env ANTHROPIC_API_KEY)
    query="?model=${SMARTHOLE_DEMO_MODEL:-claude-sonnet-4-5}"
  else
    server_args+=(--llm-base-url "$URL")
    query="?model=smollm2&maxTokens=300"
  fi
  node js-shim/dist/panel-server.js "${server_args[@]}" | while read -r url; do
    echo "demo: the chat panel is at ${url}${query} (Ctrl-C to stop)"
  done
elif [ -t 0 ] && [ -t 1 ]; then
  node js-shim/dist/headless.js "${args[@]}"
else
  echo "you> $SAMPLE"
  printf '%s\n' "$SAMPLE" | node js-shim/dist/headless.js "${args[@]}"
fi

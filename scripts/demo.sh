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
# What this script started, stopped when it ends (a server already running is left running).
stops=()
trap 'for stop in "${stops[@]}"; do $stop >/dev/null 2>&1 || true; done' EXIT

if [ -n "${ANTHROPIC_API_KEY:-}" ]; then
  echo "demo: talking to Claude (${SMARTHOLE_DEMO_MODEL:-claude-sonnet-4-5}) with ANTHROPIC_API_KEY" >&2
  args+=(--api-key-env ANTHROPIC_API_KEY --model "${SMARTHOLE_DEMO_MODEL:-claude-sonnet-4-5}")
else
  PORT=${SMARTHOLE_DEMO_MODEL_PORT:-8091}
  if ! scripts/local-model.sh status "$PORT" >/dev/null 2>&1; then
    stops+=("scripts/local-model.sh stop $PORT")
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

# Search by meaning: the offline embedding model (all-MiniLM-L6-v2, English), started here too.
EMBEDDINGS_PORT=${SMARTHOLE_DEMO_EMBEDDINGS_PORT:-8093}
if ! scripts/local-model.sh embeddings-status "$EMBEDDINGS_PORT" >/dev/null 2>&1; then
  stops+=("scripts/local-model.sh embeddings-stop $EMBEDDINGS_PORT")
fi
if EMBEDDINGS_URL=$(scripts/local-model.sh embeddings-start "$EMBEDDINGS_PORT" | tail -1); then
  echo "demo: search by meaning with $(scripts/local-model.sh embeddings-model) at $EMBEDDINGS_URL" >&2
  args+=(--embeddings-base-url "$EMBEDDINGS_URL" --embeddings-model "$(scripts/local-model.sh embeddings-model)")
else
  echo "demo: the offline embedding model could not start (above): search by words only" >&2
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

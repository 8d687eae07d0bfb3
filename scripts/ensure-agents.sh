#!/usr/bin/env bash
# Installs the coding agents the offline ACP tests drive, pinned (tests/agents/<name>/package.json
# and its package-lock.json), each into its own folder outside the repo's node_modules:
#   ${SMARTHOLE_AGENTS_DIR:-~/.cache/smarthole-agent/agents}/<name>@<version>
# with npm (the npm cache in ~/.npm is reused). A folder whose lock matches is skipped.
# Measured on 2 cores (docs/ACP-AGENTS.md): claude-agent-acp 85 MB, gemini-cli 100 MB,
# opencode 354 MB, codex-acp 223 MB; each 5–16 s from a cold npm cache, a few s warm.
#   scripts/ensure-agents.sh                  the agents the tests run: claude-agent-acp gemini-cli opencode codex-acp
#   scripts/ensure-agents.sh NAME…            those
#   scripts/ensure-agents.sh --dir NAME       print where NAME is (installed or not)
set -euo pipefail
cd "$(dirname "$0")/.."

AGENTS_DIR="${SMARTHOLE_AGENTS_DIR:-$HOME/.cache/smarthole-agent/agents}"
DEFAULT_AGENTS=(claude-agent-acp gemini-cli opencode codex-acp)
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# The folder of agent $1: <name>@<the pinned version of its one dependency>.
agent_dir() {
  local version
  version=$(node -e 'const d = require(process.argv[1]).dependencies; console.log(Object.values(d)[0])' "$PWD/tests/agents/$1/package.json")
  printf '%s/%s@%s\n' "$AGENTS_DIR" "$1" "$version"
}

ensure_one() {
  local name=$1 dir pinned
  pinned="tests/agents/$name"
  [ -f "$pinned/package-lock.json" ] || { echo "no pinned agent $name (tests/agents/)" >&2; exit 2; }
  dir=$(agent_dir "$name")
  if [ -f "$dir/.installed" ] && cmp -s "$pinned/package-lock.json" "$dir/.installed"; then return; fi
  say "installing the $name agent for the ACP tests into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$pinned/package.json" "$pinned/package-lock.json" "$dir/"
  local start=$SECONDS
  # `npm install` with the lock, not `npm ci`: a lock npm writes here lists only this platform's
  # build of a program shipped per platform (opencode), and `npm ci` refuses it as out of sync.
  if ! (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >"$dir.log" 2>&1); then
    tail -20 "$dir.log" >&2
    echo "installing the $name agent failed (log: $dir.log)" >&2
    exit 1
  fi
  cp "$pinned/package-lock.json" "$dir/.installed"
  say "$name: $(du -sh "$dir" | cut -f1) in $((SECONDS - start)) s"
}

if [ "${1:-}" = "--dir" ]; then agent_dir "$2"; exit 0; fi
mkdir -p "$AGENTS_DIR"
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${DEFAULT_AGENTS[@]}")
# One installer at a time (several worktrees may run make test at once).
exec 9>"$AGENTS_DIR/.lock"
command -v flock >/dev/null 2>&1 && flock -w 600 9
for name in "${want[@]}"; do ensure_one "$name"; done

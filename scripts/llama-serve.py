#!/usr/bin/env python3
"""llama.cpp's own HTTP server (llama-server), run from the xllamacpp wheel.

xllamacpp embeds llama.cpp's server (the same /v1/messages handler as the llama-server
program) in a Python extension, prebuilt on PyPI for x86-64-v3 (AVX2, FMA, F16C, BMI2; no
AVX-512, no AMX) and for aarch64. This launcher takes the subset of llama-server's command
line that scripts/local-model.sh passes, so both ways of running the server (this wheel, or a
llama-server built from source for the local CPU) start with the same flags.

It prints the CPU features its CPU backend was compiled for ("CPU : SSE3 = 1 | …", llama.cpp's
own report) as its first log line, then serves until SIGTERM or SIGINT.
"""

import argparse
import os
import signal
import sys


def parse_args(argv):
    p = argparse.ArgumentParser(prog="llama-serve", description=__doc__.splitlines()[0])
    p.add_argument("-m", "--model", required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("-t", "--threads", type=int, default=1)
    p.add_argument("-tb", "--threads-batch", type=int, default=1)
    p.add_argument("-c", "--ctx-size", type=int, default=4096)
    p.add_argument("-np", "--parallel", type=int, default=1)
    p.add_argument("-b", "--batch-size", type=int, default=None)
    p.add_argument("-ub", "--ubatch-size", type=int, default=None)
    p.add_argument("--embedding", action="store_true",
                   help="serve /v1/embeddings (an embedding model; its pooling is read from the GGUF)")
    p.add_argument("--jinja", action="store_true")
    p.add_argument("--alias", default=None)
    p.add_argument("--no-webui", action="store_true")
    p.add_argument("--offline", action="store_true")
    p.add_argument("-lv", "--log-verbosity", type=int, default=None)
    p.add_argument("--log-colors", choices=["on", "off", "auto"], default="off")
    p.add_argument("--print-system-info", action="store_true",
                   help="print the CPU features the backend was built for, then exit")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    import xllamacpp  # after argparse, so --help works without loading 100 MB of native code

    print(xllamacpp.get_system_info().strip(), file=sys.stderr, flush=True)
    if args.print_system_info:
        return 0
    if not os.path.isfile(args.model):
        print(f"llama-serve: model file not found: {args.model}", file=sys.stderr)
        return 2

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.hostnames = [args.host]
    params.port = args.port
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads_batch
    params.n_ctx = args.ctx_size
    params.n_parallel = args.parallel
    params.use_jinja = args.jinja
    if args.batch_size is not None:
        params.n_batch = args.batch_size
    if args.ubatch_size is not None:
        params.n_ubatch = args.ubatch_size
    params.embedding = args.embedding
    if args.alias:
        params.model_alias = {args.alias}
    params.ui = not args.no_webui
    params.offline = args.offline
    if args.log_verbosity is not None:
        params.verbosity = args.log_verbosity
    params.use_color = args.log_colors == "on"

    # Block the signals first, so one that arrives while the model loads is not lost.
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as e:
        # llama.cpp has already logged the cause (for example "couldn't bind HTTP server socket").
        print(f"llama-serve: the server did not start: {e}", file=sys.stderr, flush=True)
        return 3
    print(f"llama-serve: listening on {server.listening_address}", file=sys.stderr, flush=True)
    signal.sigwait(stop)
    # The model's threads hold no state worth a clean shutdown; leave at once.
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

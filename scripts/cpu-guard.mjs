#!/usr/bin/env node
// Does the local model server's CPU code use only instructions this CPU has?
//
// A prebuilt llama.cpp compiled for its build machine dies with SIGILL elsewhere (the old pin held
// 25,000 AVX-512 instructions and AMX tiles). This guard reads the server binary's instructions
// (GNU objdump) and the CPU features the server says it was built for (llama.cpp's "CPU : AVX2 = 1
// | …" line), maps both to /proc/cpuinfo flags, and names every flag the CPU lacks.
//
//   node scripts/cpu-guard.mjs BINARY [--system-info LOGFILE] [--cpuinfo FILE] [--json]
//
// Exit 0: the CPU has everything; 1: it lacks something (listed); 2: the check could not run.
//
// The scan assumes code compiled for one instruction set, as both of our servers are (the wheel
// for x86-64-v3, the source build for this CPU). A backend that picks its instructions at run
// time holds code for CPUs it will never run on, and would need its variants scanned one by one.
// Instructions found only in run-time-dispatched helpers (crypto, rdrand, xsave) are not counted.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The flags of this CPU: the first `flags` (x86) or `Features` (Arm) line of /proc/cpuinfo. */
export function cpuFlags(cpuinfo) {
  const line = cpuinfo.split("\n").find((l) => /^(flags|Features)\s*:/.test(l));
  if (!line) throw new Error("no flags line in /proc/cpuinfo");
  return new Set(line.slice(line.indexOf(":") + 1).trim().split(/\s+/));
}

// llama.cpp's names in its "CPU : … = 1" report → /proc/cpuinfo flags. Names that are build
// options, not instructions (OPENMP, LLAMAFILE, REPACK), are absent.
const REPORTED = {
  SSE3: "pni", SSSE3: "ssse3", AVX: "avx", AVX_VNNI: "avx_vnni", AVX2: "avx2", F16C: "f16c",
  FMA: "fma", BMI2: "bmi2", AVX512: "avx512f", AVX512_VBMI: "avx512vbmi",
  AVX512_VNNI: "avx512_vnni", AVX512_BF16: "avx512_bf16", AMX_INT8: "amx_int8",
  NEON: "asimd", ARM_FMA: "asimd", FP16_VA: "asimdhp", MATMUL_INT8: "i8mm", SVE: "sve", SME: "sme",
  DOTPROD: "asimddp",
};

/** Flags llama.cpp says its CPU backend was compiled for, from its `CPU : X = 1 | …` line. */
export function reportedFlags(systemInfo) {
  const line = systemInfo.split("\n").find((l) => /\bCPU\s*:.*=\s*[01]/.test(l));
  if (!line) return null;
  const flags = new Map();
  for (const [, name, on] of line.matchAll(/([A-Z0-9_]+)\s*=\s*([01])/g)) {
    if (on === "1" && REPORTED[name]) flags.set(REPORTED[name], name);
  }
  return flags;
}

// Every CPU with AVX-512 but the discontinued Xeon Phi has these five; an EVEX-encoded
// instruction is counted as needing all of them rather than guessing its subset.
const AVX512_BASE = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"];
const AVX512_EXTRA = [
  [/^vp(dpbusds?|dpwssds?)$/, "avx512_vnni"],
  [/^v(dpbf16ps|cvtne2ps2bf16|cvtneps2bf16)$/, "avx512_bf16"],
  [/^vp(permb|ermi2b|ermt2b|multishiftqb)$/, "avx512vbmi"],
  [/^vp(compress|expand)[bw]$|^vpsh[lr]dv?[wdq]$/, "avx512_vbmi2"],
  [/^vpopcnt[bw]$|^vpshufbitqmb$/, "avx512_bitalg"],
  [/^vpopcnt[dq]$/, "avx512_vpopcntdq"],
  [/^vpmadd52[lh]uq$/, "avx512ifma"],
];
// Mnemonics only EVEX can encode (the operands may be plain xmm/ymm).
const EVEX_ONLY = /^v(pternlog|perm[it]2|pro[lr]v?[dq]$|pmov(us|s)?(db|dw|qb|qw|qd|wb)$|p?compress|p?expand|pabsq|pm(ax|in)[su]q|psravw|psraq|psravq|pmullq|cvt(t?p[sd]2u?qq|u?qq2p[sd]|t?p[sd]2udq|udq2p[sd]|usi2s[sd]|t?s[sd]2usi)|rcp14|rsqrt14|rndscale|scalef|getexp|getmant|fixupimm|range|reduce|fpclass|dbpsadbw|pconflict|plzcnt|movdq[au](8|16|32|64)$|align[dq]$|shuf[if](32x4|64x2)|broadcast[if](32x[248]|64x[24])|(extract|insert)[if](32x[48]|64x[24])|pbroadcastm|pmovm2|pmov[bwdq]2m|ptestn?m|pblendm|blendmp|permw$|pshufbitqmb|p[sh][lr]dv?[wdq]$)/;

const PREFIXES = new Set(["lock", "rep", "repz", "repnz", "repe", "repne", "notrack", "bnd", "data16", "addr32", "cs", "ds", "ss", "es", "fs", "gs", "{vex}", "{vex3}", "{evex}", "{disp8}", "{disp32}"]);

const LEGACY = [
  [/^(addsubp[sd]|h(add|sub)p[sd]|lddqu|movddup|movs[hl]dup|fisttp[sl]?l?)$/, "pni"],
  [/^(pshufb|palignr|ph(add|sub)(w|d|sw)|pmaddubsw|pmulhrsw|psign[bwd]|pabs[bwd])$/, "ssse3"],
  [/^(p?blendv(b|ps|pd)|pblendw|blendp[sd]|dpp[sd]|insertps|extractps|pextr[bdq]|pinsr[bdq]|pmax(sb|sd|uw|ud)|pmin(sb|sd|uw|ud)|pmov[sz]x(bw|bd|bq|wd|wq|dq)|pmul(dq|ld)|ptest|round[ps][sd]|packusdw|pcmpeqq|phminposuw|mpsadbw|movntdqa)$/, "sse4_1"],
  [/^(pcmpgtq|pcmp[ei]stri|pcmp[ei]strm|crc32[bwlq]?)$/, "sse4_2"],
  [/^popcnt[wlq]?$/, "popcnt"],
  [/^lzcnt[wlq]?$/, "abm"],
  [/^movbe[wlq]?$/, "movbe"],
  // tzcnt is left out: compilers emit it as `rep bsf`, which older CPUs run as bsf.
  [/^(andn|bextr|blsi|blsmsk|blsr)[lq]?$/, "bmi1"],
  [/^(bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx)[lq]?$/, "bmi2"],
  [/^(ldtilecfg|sttilecfg|tileloaddt?1?|tilestored|tilezero|tilerelease)$/, "amx_tile"],
  [/^tdpb(ss|su|us|uu)d$/, "amx_int8"],
  [/^tdpbf16ps$/, "amx_bf16"],
  [/^tdpfp16ps$/, "amx_fp16"],
];

const AVX2_ALWAYS = /^v(pbroadcast[bwdq]|broadcasti128|perm2i128|inserti128|extracti128|permq|permd|permpd|permps|p?gather|pmaskmov|ps[lr]lv[dq]|psravd|pblendd)/;
const AVX1_VP = /^vp(ermil|erm2f128|test|extrq|insrq|clmul)/;

/** The /proc/cpuinfo flags one line of `objdump -d --no-show-raw-insn` output needs (x86-64). */
export function flagsForInstruction(line) {
  const tab = line.indexOf("\t");
  if (tab < 0 || !/^\s*[0-9a-f]+:$/.test(line.slice(0, tab))) return [];
  const tokens = line.slice(tab + 1).trim().split(/\s+/);
  let vexPrefix = false;
  let i = 0;
  while (i < tokens.length && (PREFIXES.has(tokens[i]) || tokens[i].startsWith("rex"))) {
    if (tokens[i] === "{vex}" || tokens[i] === "{vex3}") vexPrefix = true;
    i++;
  }
  const mnemonic = tokens[i];
  if (!mnemonic) return [];
  const operands = tokens.slice(i + 1).join(" ");
  const out = [];
  for (const [re, flag] of LEGACY) if (re.test(mnemonic)) out.push(flag);
  if (out.length || mnemonic[0] !== "v" || /^ver[rw]$/.test(mnemonic)) return out;

  const evex = !vexPrefix && (/%zmm|%k[0-7]\b|%[xy]mm(1[6-9]|2\d|3[01])\b|\{1to\d+\}|\{(r[ndu]-)?sae\}/.test(operands) || EVEX_ONLY.test(mnemonic)
    || /^vp(dpbusds?|dpwssds?)$|^v(dpbf16ps|cvtne2ps2bf16)$/.test(mnemonic));
  if (evex) {
    out.push(...AVX512_BASE);
    for (const [re, flag] of AVX512_EXTRA) if (re.test(mnemonic)) out.push(flag);
    if (/^v(add|sub|mul|div|max|min|sqrt|fn?m(add|sub)|rcp|rsqrt|cmp|getexp|getmant|rndscale|reduce|scalef|fpclass|movsh|movw)[a-z0-9]*(ph|sh)$/.test(mnemonic)) out.push("avx512_fp16");
    return out;
  }
  out.push("avx");
  const ymm = operands.includes("%ymm");
  if (AVX2_ALWAYS.test(mnemonic) || (ymm && mnemonic.startsWith("vp") && !AVX1_VP.test(mnemonic))) out.push("avx2");
  if (/^vbroadcasts[sd]$/.test(mnemonic) && /^%xmm/.test(operands)) out.push("avx2");
  if (/^vfn?m(add|sub)(sub|add)?(132|213|231)[ps][sd]$/.test(mnemonic)) out.push("fma");
  if (/^vfn?m(add|sub)(sub|add)?[ps][sd]$/.test(mnemonic)) out.push("fma4");
  if (/^vcvt(ph2ps|ps2ph)$/.test(mnemonic)) out.push("f16c");
  if (/^vp(dpbusds?|dpwssds?)$/.test(mnemonic)) out.push("avx_vnni");
  if (/^vaes/.test(mnemonic) && ymm) out.push("vaes");
  if (/^vpclmul/.test(mnemonic) && ymm) out.push("vpclmulqdq");
  if (/^v?gf2p8/.test(mnemonic)) out.push("gfni");
  if (/^vcvtneps2bf16$/.test(mnemonic)) out.push("avx_ne_convert");
  return out;
}

/** Counts, per flag, the instructions that need it (with one example each), over objdump lines. */
export async function scanLines(lines) {
  const used = new Map();
  for await (const line of lines) {
    for (const flag of flagsForInstruction(line)) {
      const seen = used.get(flag);
      if (seen) seen.count++;
      else used.set(flag, { count: 1, example: line.slice(line.indexOf("\t") + 1).trim() });
    }
  }
  return used;
}

/** Disassembles BINARY's code with GNU objdump and scans it. */
export async function scanBinary(binary) {
  const child = spawn("objdump", ["-d", "--no-show-raw-insn", binary], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve, reject) => {
    child.on("error", (e) => reject(new Error(`objdump could not run (${e.message}); install binutils`)));
    child.on("close", resolve);
  });
  const used = await scanLines(createInterface({ input: child.stdout, crlfDelay: Infinity }));
  const code = await exited;
  if (code !== 0) throw new Error(`objdump -d ${binary} failed (exit ${code}): ${stderr.trim()}`);
  return used;
}

/** What the binary and the server's report ask for that this CPU lacks. */
export function missingFlags({ used, reported, flags }) {
  const missing = [];
  for (const [flag, { count, example }] of used ?? []) {
    if (!flags.has(flag)) missing.push({ flag, count, example, from: "instructions" });
  }
  for (const [flag, name] of reported ?? []) {
    if (!flags.has(flag) && !missing.some((m) => m.flag === flag)) missing.push({ flag, name, from: "server report" });
  }
  return missing;
}

async function main(argv) {
  const args = { cpuinfo: "/proc/cpuinfo" };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--system-info") args.systemInfo = argv[++i];
    else if (argv[i] === "--cpuinfo") args.cpuinfo = argv[++i];
    else if (argv[i] === "--json") args.json = true;
    else rest.push(argv[i]);
  }
  const [binary] = rest;
  if (!binary) {
    console.error("usage: cpu-guard.mjs BINARY [--system-info LOGFILE] [--cpuinfo FILE] [--json]");
    return 2;
  }
  const flags = cpuFlags(readFileSync(args.cpuinfo, "utf8"));
  const reported = args.systemInfo ? reportedFlags(readFileSync(args.systemInfo, "utf8")) : null;
  if (args.systemInfo && !reported) {
    console.error(`cpu-guard: ${args.systemInfo} has no "CPU : … = 1" line from llama.cpp`);
    return 2;
  }
  const arch = process.arch;
  const used = arch === "x64" ? await scanBinary(binary) : null;
  const missing = missingFlags({ used, reported, flags });
  if (args.json) {
    console.log(JSON.stringify({ binary, arch, used: used && Object.fromEntries(used), reported: reported && [...reported.keys()], missing }));
  } else {
    if (used) {
      const list = [...used].sort(([a], [b]) => a.localeCompare(b)).map(([f, { count }]) => `${f} ${count}`);
      console.log(`cpu-guard: ${binary} uses: ${list.join(", ") || "no extensions beyond x86-64"}`);
    } else {
      console.log(`cpu-guard: instruction scan covers x86-64 only; on ${arch} only the server's report is checked`);
    }
    if (reported) console.log(`cpu-guard: the server reports it was built for: ${[...reported.values()].join(" ")}`);
    for (const m of missing) {
      console.log(m.from === "instructions"
        ? `cpu-guard: this CPU lacks ${m.flag}, used by ${m.count} instructions (e.g. ${m.example})`
        : `cpu-guard: this CPU lacks ${m.flag}, which the server says it was built for (${m.name})`);
    }
    if (!missing.length) console.log("cpu-guard: this CPU has every instruction set the server uses");
  }
  return missing.length ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
    console.error(`cpu-guard: ${e.message}`);
    process.exit(2);
  });
}

// The CPU guard (scripts/cpu-guard.mjs): the local model's server must use only instructions the
// CPU it is installed on has. A prebuilt pinned for the wrong CPU dies with SIGILL and stops every
// test run on that machine; this catches it on the machine that installs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuFlags, flagsForInstruction, missingFlags, reportedFlags, scanLines } from "../../scripts/cpu-guard.mjs";

const GUARD = "scripts/cpu-guard.mjs";
const MODEL_URL = process.env.SMARTHOLE_TEST_MODEL_URL;
const x64 = process.arch === "x64";

const line = (insn) => `  4011d6:\t${insn}`;

test("each instruction maps to the CPU flags it needs", () => {
  const cases = [
    ["mov    %rdi,%rax", []],
    ["tzcnt  %eax,%eax", []], // runs as bsf on CPUs without BMI1
    ["pshufb %xmm1,%xmm0", ["ssse3"]],
    ["pmulld %xmm1,%xmm0", ["sse4_1"]],
    ["shlx   %rax,%rbx,%rcx", ["bmi2"]],
    ["lzcnt  %eax,%eax", ["abm"]],
    ["vaddps %ymm1,%ymm2,%ymm3", ["avx"]],
    ["vpermilps $0x1b,%ymm1,%ymm2", ["avx"]],
    ["vpaddd %ymm1,%ymm2,%ymm3", ["avx", "avx2"]],
    ["vpbroadcastd %xmm0,%xmm1", ["avx", "avx2"]],
    ["vfmadd231ps %ymm1,%ymm2,%ymm3", ["avx", "fma"]],
    ["vcvtph2ps %xmm0,%ymm1", ["avx", "f16c"]],
    ["{vex} vpdpbusd %ymm4,%ymm6,%ymm1", ["avx", "avx2", "avx_vnni"]],
    ["vpaddd %zmm1,%zmm2,%zmm3", ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]],
    ["vmovdqu32 %xmm1,%xmm2", ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]],
    ["vaddps %xmm17,%xmm2,%xmm3", ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]],
    ["vpdpbusd %zmm23,%zmm22,%zmm2", ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512_vnni"]],
    ["vdpbf16ps %zmm4,%zmm3,%zmm1", ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512_bf16"]],
    ["tileloadd (%rdx,%rax,1),%tmm0", ["amx_tile"]],
    ["tdpbssd %tmm0,%tmm2,%tmm4", ["amx_int8"]],
  ];
  for (const [insn, want] of cases) {
    assert.deepEqual(flagsForInstruction(line(insn)).sort(), [...want].sort(), insn);
  }
  assert.deepEqual(flagsForInstruction("Disassembly of section .text:"), []);
  assert.deepEqual(flagsForInstruction("0000000000001000 <f>:"), []);
});

test("the server's own report is read and checked against the CPU", async () => {
  const reported = reportedFlags("CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 1 | AMX_INT8 = 0 | OPENMP = 1 |");
  assert.deepEqual([...reported.keys()].sort(), ["avx", "avx2", "avx512f", "pni"]);
  assert.equal(reportedFlags("no report here"), null);
  const used = await scanLines([line("vpaddd %ymm1,%ymm2,%ymm3")]);
  const missing = missingFlags({ used, reported, flags: new Set(["pni", "avx", "avx2"]) });
  assert.deepEqual(missing.map((m) => [m.flag, m.from]), [["avx512f", "server report"]]);
  assert.deepEqual(cpuFlags("processor\t: 0\nflags\t\t: fpu sse2 avx2\n"), new Set(["fpu", "sse2", "avx2"]));
});

test("a binary with AVX-512 and AMX code fails the guard on a CPU without them, passes on one with them", { skip: !x64 && "x86-64 instructions" }, () => {
  const dir = mkdtempSync(join(tmpdir(), "cpu-guard-"));
  writeFileSync(join(dir, "k.s"), [
    ".text", ".globl kernel", "kernel:",
    "  vfmadd231ps %ymm1, %ymm2, %ymm3",
    "  vpaddd %zmm1, %zmm2, %zmm3",
    "  tileloadd (%rax,%rcx,1), %tmm0",
    "  ret", "",
  ].join("\n"));
  execFileSync("cc", ["-c", join(dir, "k.s"), "-o", join(dir, "k.o")]);
  const withoutAvx512 = join(dir, "cpuinfo-avx2");
  writeFileSync(withoutAvx512, "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma f16c\n");
  const withAll = join(dir, "cpuinfo-sapphire-rapids");
  writeFileSync(withAll, "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma f16c avx512f avx512cd avx512bw avx512dq avx512vl amx_tile\n");

  const bad = spawnSync("node", [GUARD, join(dir, "k.o"), "--cpuinfo", withoutAvx512], { encoding: "utf8" });
  assert.equal(bad.status, 1, bad.stdout + bad.stderr);
  assert.match(bad.stdout, /lacks avx512f, used by 1 instructions \(e\.g\. vpaddd %zmm1,%zmm2,%zmm3\)/);
  assert.match(bad.stdout, /lacks amx_tile, used by 1 instructions/);
  assert.doesNotMatch(bad.stdout, /lacks fma/);

  const good = spawnSync("node", [GUARD, join(dir, "k.o"), "--cpuinfo", withAll], { encoding: "utf8" });
  assert.equal(good.status, 0, good.stdout + good.stderr);
  assert.match(good.stdout, /this CPU has every instruction set the server uses/);
});

test("the installed local model server uses only instructions this CPU has", { skip: !MODEL_URL && "needs the server scripts/test.sh starts", timeout: 180_000 }, () => {
  const port = new URL(MODEL_URL).port;
  const [kind, binary] = execFileSync("scripts/local-model.sh", ["server"], { encoding: "utf8" }).trim().split(" ");
  const logFile = execFileSync("scripts/local-model.sh", ["logfile", port], { encoding: "utf8" }).trim();
  // The running server's start-up log carries llama.cpp's own report of what it was built for.
  assert.ok(reportedFlags(readFileSync(logFile, "utf8")), `the ${kind} server logged no "CPU : … = 1" line in ${logFile}`);
  const run = spawnSync("node", [GUARD, binary, "--system-info", logFile, "--json"], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const report = JSON.parse(run.stdout);
  assert.deepEqual(report.missing, []);
  assert.ok(report.reported.length > 0, "the server reported its CPU features");
  const flags = cpuFlags(readFileSync("/proc/cpuinfo", "utf8"));
  if (x64) {
    assert.ok(report.used.avx?.count > 1000, `the scan read the server's code (${Object.keys(report.used)})`);
    if (!flags.has("avx512f")) assert.equal(report.used.avx512f, undefined, "no zmm instruction on a CPU without AVX-512");
  }
});

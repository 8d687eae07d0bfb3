#!/usr/bin/env node
// The contract test (issue 13): the core's JSON against the TypeScript declarations the shim
// compiles against. Run by scripts/test.sh after the native tests; tested by
// tests/node/contract.test.mjs.
//
//   node scripts/contract.mjs [--samples FILE] [--core-types FILE] [--declarations DIR]
//
// 1. `cargo test --test contract` writes target/contract/samples.ts: one value of each shape the
//    core sends or reads, each `satisfies` its declaration (tests/contract.rs). Skipped with
//    --samples, which checks FILE instead.
// 2. The declarations are pkg/smarthole_agent.d.ts, which the shim's `smarthole-core` resolves to
//    and wasm-bindgen writes from the declaration files src/wasm/types/*.d.ts (emitted by
//    src/wasm/mod.rs); a stale one (a declaration file changed, no `make build` since) is an
//    error, not a silent pass. --core-types checks against FILE instead; --declarations reads
//    the declaration files from DIR (the test of the staleness check).
// 3. `tsc` on tests/contract/check.ts with those two: any drift is a type error.
//
// Exit 0 when the two sides agree, 1 when they do not (tsc's errors are printed), 2 when the
// declarations are stale or a step could not run.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function option(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : resolve(process.argv[at + 1] ?? "");
}

/** Non-empty lines, trimmed: wasm-bindgen re-indents the custom section. */
const lines = (text) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join("\n");

/** The declaration files the core's binding emits (src/wasm/types/*.d.ts), by name. */
function declarationSources() {
  const dir = option("--declarations") ?? join(root, "src/wasm/types");
  const names = readdirSync(dir).filter((name) => name.endsWith(".d.ts"));
  if (names.length === 0) throw new Error(`${dir} has no declaration file`);
  return names.map((name) => ({ name, text: readFileSync(join(dir, name), "utf8") }));
}

/** The declaration files whose text, as it is in the source now, the generated `dts` lacks. */
function staleDeclarations(dts) {
  const generated = lines(readFileSync(dts, "utf8"));
  return declarationSources()
    .filter(({ text }) => !generated.includes(lines(text)))
    .map(({ name }) => name);
}

function run(command, args) {
  const r = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

let samples = option("--samples");
const coreTypes = option("--core-types") ?? join(root, "pkg/smarthole_agent.d.ts");

if (!samples) {
  if (run("cargo", ["test", "--quiet", "--test", "contract"]) !== 0) {
    console.error("contract: the Rust half (tests/contract.rs) failed");
    process.exit(2);
  }
  samples = join(root, "target/contract/samples.ts");
}
const stale = option("--core-types") ? [] : staleDeclarations(coreTypes);
if (stale.length > 0) {
  console.error(`contract: pkg/smarthole_agent.d.ts is older than ${stale.join(", ")} of src/wasm/types/; run \`make build\``);
  process.exit(2);
}

// A tsconfig of our own so that both modules can be swapped; everything else comes from
// tests/contract/tsconfig.json.
const dir = mkdtempSync(join(tmpdir(), "contract-"));
let status;
try {
  const config = {
    extends: join(root, "tests/contract/tsconfig.json"),
    compilerOptions: { paths: { "smarthole-core": [coreTypes], "contract-samples": [samples] } },
    files: [join(root, "tests/contract/check.ts")],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config, null, 2));
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  status = run(process.execPath, [tsc, "-p", join(dir, "tsconfig.json"), "--pretty", "false"]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (status === 0) {
  console.log("contract: the core's JSON matches the shim's declarations");
} else {
  console.error("contract: the core's JSON and the shim's declarations disagree (errors above)");
}
process.exit(status === 0 ? 0 : 1);

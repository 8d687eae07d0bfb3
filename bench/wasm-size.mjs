// What the core's WebAssembly is made of: the bytes of `pkg/smarthole_agent_bg.wasm` by crate (and by
// module of the core), the largest functions, and the monomorphised generics that repeat most.
//
// The shipped file has no names (`make build` strips them), so this rebuilds the same file with its
// name section kept: wasm-bindgen over the same cargo output (the Makefile's command without
// --remove-name-section) after scripts/wasm-opt.sh with -g, into a temporary folder. Then `twiggy
// top` gives each item's own bytes.
// The name section itself is left out of every total: the shipped file does not carry it.
//
//   node bench/wasm-size.mjs            print the breakdown
//   node bench/wasm-size.mjs --write    … and put it in docs/BENCHMARKS.md in place of the old one
// `make bench` calls it (wasmSize(), wasmSizeSection()); it needs `twiggy` (scripts/ensure-tools.sh twiggy).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { spliceSection } from "./markdown.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CARGO_WASM = path.join(ROOT, "target/wasm32-unknown-unknown/release/smarthole_agent.wasm");
const SHIPPED = path.join(ROOT, "pkg/smarthole_agent_bg.wasm");
/** The command this section names as its source. */
export const WASM_SIZE_COMMAND = "node bench/wasm-size.mjs";

/** The crate (or, for the core, `smarthole_agent::module`) an item's bytes count for. */
function owner(name) {
  if (name.startsWith("data segment")) return "data: strings and tables (.rodata)";
  if (/^(import|export) /.test(name) || /^messageprocessor_|^__wbg|^__wbindgen|^__externref/.test(name)) {
    return "wasm-bindgen imports, exports and glue";
  }
  if (/^<&mut serde_json::de::Deserializer<R> as [^>]*>::deserialize_struct/.test(name)) {
    return "serde_json: deserialize_struct, one per type the core reads (derived Deserialize)";
  }
  // `<A as B>::f`: the crate of A when A is a path, else (a primitive or a generic T) the crate of B.
  const qualified = name.match(/^<+(?:&mut |&|dyn |\*const |\*mut |\[)*(.*?) as (?:&mut |&)?(.*)$/);
  const candidates = qualified ? [qualified[1], qualified[2]] : [name.replace(/^<+(?:&mut |&|dyn |\*const |\*mut |\[)*/, "")];
  for (const text of candidates) {
    const crate = text.match(/^([a-z_][a-z0-9_]*)(?:\[[0-9a-f]+\])?::/);
    if (!crate) continue;
    if (crate[1] !== "smarthole_agent") return crate[1];
    const module = text.match(/^smarthole_agent::([a-z_0-9]+)/);
    return `smarthole_agent::${module ? module[1] : "(root)"}`;
  }
  if (/section|magic|header|^type\[|^table\[|^elem\[|^global\[|^memory\[/.test(name)) return "wasm sections (types, tables, headers)";
  return "other (compiler builtins, unnamed)";
}

/** A function name without its hash and crate disambiguators, for reading. */
const readable = (name) => name.replace(/::h[0-9a-f]{16}$/, "").replace(/\[[0-9a-f]{16}\]/g, "");

/** `twiggy <args> <file>` as parsed JSON. */
function twiggy(args, file) {
  return JSON.parse(execFileSync("twiggy", [...args, "-f", "json", file], { encoding: "utf8", maxBuffer: 256 * 2 ** 20 }));
}

/** The shipped wasm rebuilt with names, in a temporary folder (removed by the caller). */
function namedCopy() {
  const dir = mkdtempSync(path.join(tmpdir(), "wasm-size-"));
  // The Makefile's steps: wasm-opt (keeping the names: -g), then wasm-bindgen.
  const optimised = path.join(dir, "opt", "smarthole_agent.wasm");
  mkdirSync(path.dirname(optimised));
  copyFileSync(CARGO_WASM, optimised);
  execFileSync(path.join(ROOT, "scripts/wasm-opt.sh"), [optimised, "-g"], { stdio: "inherit" });
  execFileSync("wasm-bindgen", ["--target", "web", "--out-dir", dir, "--remove-producers-section", optimised], { stdio: "inherit" });
  return { dir, file: path.join(dir, "smarthole_agent_bg.wasm") };
}

/** The breakdown as numbers (for target/bench/results.json and the section). */
export function wasmSize({ top = 15 } = {}) {
  if (!existsSync(CARGO_WASM) || !existsSync(SHIPPED)) throw new Error("no wasm build: run `make build` first");
  const { dir, file } = namedCopy();
  try {
    const items = twiggy(["top", "-n", "1000000"], file).filter((item) => !item.name.includes('"function names" subsection'));
    const total = items.reduce((sum, item) => sum + item.shallow_size, 0);
    const byOwner = new Map();
    for (const item of items) {
      const key = owner(item.name);
      const entry = byOwner.get(key) ?? { owner: key, bytes: 0, items: 0 };
      entry.bytes += item.shallow_size;
      entry.items += 1;
      byOwner.set(key, entry);
    }
    const owners = [...byOwner.values()].sort((a, b) => b.bytes - a.bytes);
    const functions = items
      .filter((item) => !item.name.startsWith("data segment"))
      .slice(0, top)
      .map((item) => ({ name: readable(item.name), bytes: item.shallow_size }));
    // Generic functions instantiated many times: twiggy's estimate of the bytes beyond the largest copy.
    const monos = twiggy(["monos", "-m", "1000", "-n", String(top)], file)
      .filter((row) => row.generic && !row.generic.startsWith("..."))
      .map((row) => ({
        name: readable(row.generic),
        copies: row.monomorphizations?.length ?? null,
        bytes: row.total_size,
        bloat: row.approximate_monomorphization_bloat_bytes,
      }))
      .slice(0, 8);
    const shipped = readFileSync(SHIPPED);
    return {
      wasm_size_breakdown: {
        shipped_bytes: shipped.length,
        shipped_gzip_bytes: gzipSync(shipped, { level: 9 }).length,
        named_bytes_without_names: total,
        named_file_bytes: statSync(file).size,
        items: items.length,
        owners,
        functions,
        monos,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The "What the wasm is made of" section of docs/BENCHMARKS.md. */
export function wasmSizeSection(r, { owners = 18 } = {}) {
  if (!r) return "";
  const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
  const pct = (b) => `${((100 * b) / r.named_bytes_without_names).toFixed(1)} %`;
  const shown = r.owners.slice(0, owners);
  const rest = r.owners.slice(owners);
  const restBytes = rest.reduce((sum, o) => sum + o.bytes, 0);
  const ownerRows = shown.map((o) => `| ${o.owner} | ${kb(o.bytes)} | ${pct(o.bytes)} | ${o.items} |`).join("\n");
  const restRow = rest.length ? `\n| ${rest.length} more (${rest.map((o) => o.owner).slice(0, 6).join(", ")}, …) | ${kb(restBytes)} | ${pct(restBytes)} | ${rest.reduce((s, o) => s + o.items, 0)} |` : "";
  const code = (s) => `\`${s.replace(/`/g, "'").replace(/\|/g, "\\|")}\``;
  const functionRows = r.functions.map((f, i) => `| ${i + 1} | ${code(f.name)} | ${kb(f.bytes)} |`).join("\n");
  const monoRows = r.monos.map((m) => `| ${code(m.name)} | ${m.copies ?? "—"} | ${kb(m.bytes)} | ${kb(m.bloat)} |`).join("\n");
  return `
## What the wasm is made of

\`${WASM_SIZE_COMMAND}\` (also run by \`make bench\`): the shipped \`pkg/smarthole_agent_bg.wasm\` (${kb(r.shipped_bytes)} raw,
${kb(r.shipped_gzip_bytes)} gzip) rebuilt with its name section kept, measured by \`twiggy top\` (each item's own bytes,
${r.items} items, ${kb(r.named_bytes_without_names)} without the name section). An item \`<A as B>::f\` counts for A's crate
when A is a path, else for B's; generic code counts where it is defined (names do not say which type it was
instantiated for), except serde_json's \`deserialize_struct\`, shown on its own row.

| crate (the core by module) | bytes | share | items |
|---|---|---|---|
${ownerRows}${restRow}

The largest functions (async functions are their \`{{closure}}\` state machines, with everything inlined into them):

| # | function | bytes |
|---|---|---|
${functionRows}

Generic functions instantiated most (\`twiggy monos\`; *beyond one copy* is twiggy's estimate of what sharing one
instantiation would save):

| generic | copies | bytes | beyond one copy |
|---|---|---|---|
${monoRows}

Most of it is the core's own code: the processor's and the tools' async functions, and serde's code
for each type the core reads (every derived \`Deserialize\` is its own \`deserialize_struct\`, the largest
the settings'). What was cut, and what was measured and left (2026-11-23, issue 13):

- **Cut**: \`/config\`'s fixed text was one \`json!\` tree, 13 KB of code; it is now JSON text parsed per
  call (−9.2 KB raw, −1.7 KB gzip, the same document).
- **Kept \`opt-level = "z"\`**: \`"s"\` gives 945.5 KB raw, 335.2 KB gzip against "z"'s 822.2 / 293.8.
  LTO, one codegen unit and \`panic = "abort"\` are already set.
- **wasm-opt** (2026-11-23, issue 16): Debian's binaryen 108, \`-Os\` with inlining off
  (scripts/wasm-opt.sh), on the cargo output before wasm-bindgen: −42 KB raw, −3.5 KB gzip of
  \`dist/main.js\`. Its \`-Oz\` makes the gzip *larger* (+21 KB: its inlining compresses worse; binaryen
  132 from npm did the same). Run after wasm-bindgen, binaryen 108 pointed the
  \`__wbindgen_externrefs\` export at the function table and the core could not start. \`-O1\`/\`-O2\`/\`-O3\`
  without inlining land within 0.3 KB of \`-Os\`.
- **Cut**: \`serde_json::from_slice\` in \`llm/client.rs\` (a second JSON reader): bodies are checked as
  UTF-8, then parsed with \`from_str\`; a body that is not UTF-8 says so (−7.4 KB raw, −1.6 KB gzip of
  \`dist/main.js\`).
- **Left**: the float formatting in \`core\` (~18 KB) is reached only through serde's error messages
  ("invalid type: floating point \`1.5\`"). Rebuilding std at \`opt-level = "z"\` (\`-Zbuild-std\`) needs
  nightly with rust-src, which the build does not use.
- **Cut** (2026-11-27, issue 37): serde_json's \`Value\` deserializer (its last four callers read through
  text), and std sorts and B-trees instantiated again on cold paths (\`lean::sort_by\`, \`lean::IdMap\`,
  \`ShardSet\`, maps built by insertion): −108 KB raw, −28 KB gzip; see "Cutting dist/main.js".
`;
}

/** Replaces (or adds, before the offline model's section) the section in docs/BENCHMARKS.md. */
function splice(section) {
  const file = path.join(ROOT, "docs/BENCHMARKS.md");
  writeFileSync(file, spliceSection(readFileSync(file, "utf8"), "What the wasm is made of", section, "The offline model"));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { wasm_size_breakdown: r } = wasmSize();
  const section = wasmSizeSection(r);
  console.log(section);
  if (process.argv.includes("--write")) {
    splice(section);
    console.log("wrote the section into docs/BENCHMARKS.md");
  }
}

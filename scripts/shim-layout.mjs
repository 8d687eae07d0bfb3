#!/usr/bin/env node
// The shim's layout (issue 33): no import cycle between the TypeScript files of js-shim/src, and
// no file over 400 lines. Run by scripts/test.sh beside the core's module-cycles.mjs; tested by
// tests/node/shim-layout.test.mjs.
//
//   node scripts/shim-layout.mjs [SRC_DIR] [--max-lines N]     (default: js-shim/src, 400)
//
// Exit 0 when both hold, 1 when they do not (each cycle is printed with its files and the lines
// that make its edges, each long file with its length), 2 when SRC_DIR cannot be read.
//
// The graph: one node per `.ts` file. An edge A → B is a relative module specifier in A that
// names B: `import … from "./b.ts"`, `import type …`, `export … from`, a bare `import "./b.ts"`,
// and a dynamic `import("./b.ts")` (loaded later, still a dependency). Type-only imports count:
// a settings section that imports the plugin's class for its type depends on the plugin.
// Specifiers that are not relative (`obsidian`, `smarthole-core`, `node:fs`) are not files of
// the shim. A specifier without an extension is tried as `.ts`, `.d.ts` and `/index.ts`.
// Comments and string contents are blanked first (scripts/module-cycles.mjs's stripCode keeps
// the quotes' places), so a specifier written in a comment is no edge.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { findCycles, report } from "./module-cycles.mjs";

/** The `.ts` files under `dir`, sorted. */
function tsFiles(dir) {
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".ts")) files.push(p);
    }
  };
  walk(dir);
  return files;
}

/** Code with `//` and block comments blanked (same length, newlines kept); strings are kept. */
function withoutComments(text) {
  let out = "";
  let i = 0;
  const blank = (s) => s.replace(/[^\n]/g, " ");
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? text.length : end;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The module specifiers a file names, each with its line. */
export function specifiers(text) {
  const code = withoutComments(text);
  const found = [];
  const patterns = [
    // import … from "x" / import type … from "x" / export … from "x" (the clause may span lines)
    /(?:^|[;\n}])\s*(?:import|export)\s+(?:type\s+)?[^;'"`]*?\bfrom\s*(["'])([^"'\n]+)\1/g,
    // import "x"
    /(?:^|[;\n}])\s*import\s*(["'])([^"'\n]+)\1/g,
    // import("x")
    /\bimport\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g,
  ];
  for (const re of patterns) {
    for (let m = re.exec(code); m; m = re.exec(code)) {
      const at = m.index + m[0].lastIndexOf(m[2]);
      const line = code.slice(0, at).split("\n").length;
      found.push({ specifier: m[2], line });
    }
  }
  return found;
}

/** The file a relative specifier in `from` names, or null (not relative, or no such file). */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.d.ts`, join(base, "index.ts")]) {
    if (candidate.endsWith(".ts") && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** The import graph of the TypeScript files under `srcDir`, in module-cycles.mjs's shape. */
export function buildGraph(srcDir) {
  const files = tsFiles(srcDir);
  const rel = (file) => relative(srcDir, file).split(sep).join("/");
  const edges = new Map();
  const lengths = new Map();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    lengths.set(rel(file), text.split("\n").length - (text.endsWith("\n") ? 1 : 0));
    const out = new Map();
    for (const { specifier, line } of specifiers(text)) {
      const target = resolveSpecifier(file, specifier);
      if (target === null || target === file) continue;
      const to = rel(target);
      if (!out.has(to)) out.set(to, []);
      if (!out.get(to).includes(line)) out.get(to).push(line);
    }
    edges.set(rel(file), out);
  }
  return { files: files.map(rel), edges, lengths };
}

/** The files longer than `maxLines`, longest first. */
export function longFiles(graph, maxLines) {
  return [...graph.lengths].filter(([, n]) => n > maxLines).sort((a, b) => b[1] - a[1]);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--max-lines");
  const maxLines = at === -1 ? 400 : Number(args[at + 1]);
  const srcDir = args.filter((_, i) => at === -1 || (i !== at && i !== at + 1))[0] ?? "js-shim/src";
  let graph;
  try {
    graph = buildGraph(srcDir);
  } catch (error) {
    console.error(`shim-layout: cannot read ${srcDir}: ${error.message}`);
    process.exit(2);
  }
  const cycles = findCycles(graph);
  const long = longFiles(graph, maxLines);
  if (cycles.length) console.error(report(graph, cycles));
  for (const [file, n] of long) console.error(`${file}: ${n} lines (at most ${maxLines})`);
  if (cycles.length || long.length) {
    console.error(`shim-layout: ${cycles.length} import cycle(s), ${long.length} file(s) over ${maxLines} lines in ${srcDir}`);
    process.exit(1);
  }
  console.log(`shim-layout: no import cycle between the ${graph.files.length} files of ${srcDir}, none over ${maxLines} lines`);
}

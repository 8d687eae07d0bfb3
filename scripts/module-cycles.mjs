#!/usr/bin/env node
// Import cycles between the core's modules (issue 13, "Dependency direction"; issue 33 for the
// top-level modules). Run by scripts/test.sh next to rustfmt; tested by
// tests/node/module-cycles.test.mjs.
//
//   node scripts/module-cycles.mjs [SRC_DIR]     (default: src)
//
// Exit 0 when neither graph below has a cycle, 1 when one has (each cycle is printed with its
// files or modules and the lines that make its edges), 2 when SRC_DIR cannot be read.
//
// Two graphs are checked. The file graph (below) must have no cycle: no file imports, directly
// or through others, a file that imports it. The graph of top-level modules must have none
// either: each file belongs to the first segment of its module path (`a.rs` and `a/b/c.rs` to
// `a`; `lib.rs`, the crate root, to none), and an edge of the file graph between files of two
// different top-level modules is an edge between those modules. So `crate::a` may use
// `crate::b` only if nothing in `b` uses anything in `a` — plain types live in leaf modules
// below the modules that call the host, and dependencies between the core's parts point one way.
//
// The graph: one node per source file (`lib.rs` is the crate root, `a/mod.rs` is module `a`,
// `a/b.rs` is module `a::b`; an inline `mod x { … }` belongs to the file it is written in, so a
// test module's `use super::*` is not an edge). An edge A → B is a path in A that names B or an
// item of B:
//   - `use` trees starting with `crate::`, `super::`, `self::`, or with a module A declares
//     (`use child::Item`), braces and `self` inside them expanded;
//   - paths written inline in the code: `crate::x::Y`, `super::Y`, `self::x::Y`, `child::Y`,
//     and `alias::Y` where a `use` made `alias` name a module of the crate.
// Declaring a child (`mod child;`) is not an edge; using an item of the child is.
//
// Resolving a path: the longest prefix of it that is a module gives a file; a path that ends at
// a module is an edge to that module's file. The next segment is an item name. If that file does
// not define the name but brings it in with a `use` at its top level (a re-export such as
// `pub use types::ModelCall;` in `llm/mod.rs`, or a private import a child reaches through
// `super::Name`), the path is followed through that `use` to the file where the name is defined,
// and the edge goes there: a facade does not make a cycle, depending on the real definition
// does. Glob imports (`use x::*`) are not followed (the edge stops at the module that has them).
//
// Not understood (none is used in src/): `#[path]` attributes, `mod x;` inside an inline module,
// macros that write paths (`$crate::…` is skipped), `pub(in path)`. `use` inside a function,
// and everything in a `#[cfg(test)]` module, counts as the file's own import: a cycle that only
// the tests make is still a cycle.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";

/** Code with comments, string and char literals blanked (same length, newlines kept). */
export function stripCode(text) {
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
      let depth = 0;
      let j = i;
      while (j < text.length) {
        if (text[j] === "/" && text[j + 1] === "*") {
          depth++;
          j += 2;
        } else if (text[j] === "*" && text[j + 1] === "/") {
          depth--;
          j += 2;
          if (depth === 0) break;
        } else j++;
      }
      out += blank(text.slice(i, j));
      i = j;
    } else if ((c === "r" || c === "b") && /^(?:b?r)(#*)"/.test(text.slice(i, i + 300)) && !/\w/.test(text[i - 1] ?? "")) {
      const m = /^(?:b?r)(#*)"/.exec(text.slice(i));
      const close = `"${m[1]}`;
      const end = text.indexOf(close, i + m[0].length);
      const stop = end === -1 ? text.length : end + close.length;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += blank(text.slice(i, j + 1));
      i = j + 1;
    } else if (c === "'") {
      // A char literal ('a', '\n', '\u{1F600}', '\''), or a lifetime ('a) left as it is.
      const m = /^'(?:\\u\{[0-9a-fA-F]+\}|\\.[0-9a-fA-F]?[0-9a-fA-F]?|[^\\'])'/u.exec(text.slice(i, i + 12));
      if (m) {
        out += blank(m[0]);
        i += m[0].length;
      } else {
        out += c;
        i++;
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Tokens of stripped code: identifiers, `::`, and single punctuation, each with its line. */
function tokenize(code) {
  const tokens = [];
  const re = /([A-Za-z_][A-Za-z0-9_]*)|(::)|(\S)/g;
  let line = 1;
  let last = 0;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    for (let k = last; k < m.index; k++) if (code[k] === "\n") line++;
    last = m.index;
    tokens.push({ t: m[0], ident: Boolean(m[1]), line });
  }
  return tokens;
}

const isIdent = (tok) => tok !== undefined && tok.ident;

/** Expands a `use` tree (the tokens between `use` and `;`) into paths with their bound names. */
function expandUseTree(tokens) {
  let i = 0;
  const results = [];
  function tree(prefix) {
    const segs = [...prefix];
    for (;;) {
      const tok = tokens[i];
      if (tok === undefined) return;
      if (tok.t === "{") {
        i++;
        while (tokens[i] !== undefined && tokens[i].t !== "}") {
          tree(segs);
          if (tokens[i]?.t === ",") i++;
        }
        i++;
        return;
      }
      if (tok.t === "*") {
        i++;
        results.push({ path: segs, glob: true, name: null });
        return;
      }
      if (tok.t === "::") {
        i++;
        continue;
      }
      if (!tok.ident) {
        i++;
        return;
      }
      i++;
      if (tok.t === "self" && segs.length > 0 && tokens[i]?.t !== "::") {
        results.push({ path: segs, glob: false, name: segs[segs.length - 1], ...alias() });
        return;
      }
      segs.push(tok.t);
      if (tokens[i]?.t === "::") continue;
      results.push({ path: segs, glob: false, name: tok.t, ...alias() });
      return;
    }
  }
  function alias() {
    if (tokens[i]?.t === "as" && isIdent(tokens[i + 1])) {
      const name = tokens[i + 1].t;
      i += 2;
      return { name };
    }
    return {};
  }
  tree([]);
  return results;
}

/** The `.rs` files under `dir`, as module paths (`[]` for lib.rs). */
function moduleFiles(dir) {
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".rs")) files.push(p);
    }
  };
  walk(dir);
  return files.map((file) => {
    const parts = relative(dir, file).split(sep);
    const last = parts.pop().replace(/\.rs$/, "");
    if (!(parts.length === 0 && (last === "lib" || last === "main")) && last !== "mod") parts.push(last);
    return { file, rel: relative(dir, file).split(sep).join("/"), mod: parts };
  });
}

/** Parses one file: its `use` items, child declarations, inline paths and inline modules. */
function parseFile(entry, text) {
  const tokens = tokenize(stripCode(text));
  const uses = []; // { scope: [..mod path], path, name, glob, top, line }
  const inline = []; // { scope, path, line }
  const children = new Set();
  const inlineMods = [];
  const stack = []; // open inline modules: { name, depth }
  let depth = 0;
  const scope = () => [...entry.mod, ...stack.map((s) => s.name)];
  const atTop = () => depth === (stack.length ? stack[stack.length - 1].depth : 0);
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    const prev = tokens[i - 1];
    if (tok.t === "{") {
      depth++;
      continue;
    }
    if (tok.t === "}") {
      if (stack.length && stack[stack.length - 1].depth === depth) stack.pop();
      depth--;
      continue;
    }
    if (!tok.ident || prev?.t === "::" || prev?.t === "$" || prev?.t === ".") continue;
    if (tok.t === "mod" && isIdent(tokens[i + 1])) {
      const name = tokens[i + 1].t;
      if (tokens[i + 2]?.t === ";") {
        if (stack.length === 0) children.add(name);
        i += 2;
      } else if (tokens[i + 2]?.t === "{") {
        stack.push({ name, depth: depth + 1 });
        inlineMods.push([...scope()]);
        depth++;
        i += 2;
      }
      continue;
    }
    if (tok.t === "use") {
      let j = i + 1;
      while (j < tokens.length && tokens[j].t !== ";") j++;
      const top = atTop();
      for (const u of expandUseTree(tokens.slice(i + 1, j))) {
        uses.push({ scope: scope(), top, line: tok.line, ...u });
      }
      i = j;
      continue;
    }
    if (tokens[i + 1]?.t === "::" && isIdent(tokens[i + 2])) {
      const path = [tok.t];
      let j = i + 1;
      while (tokens[j]?.t === "::" && isIdent(tokens[j + 1])) {
        path.push(tokens[j + 1].t);
        j += 2;
      }
      inline.push({ scope: scope(), path, line: tok.line });
      i = j - 1;
    }
  }
  return { uses, inline, children, inlineMods };
}

/** The import graph of the crate in `srcDir`: files, and edges with the lines that make them. */
export function buildGraph(srcDir) {
  const entries = moduleFiles(srcDir);
  const byMod = new Map(); // "a::b" → entry (inline modules map to their file's entry)
  const parsed = new Map(); // rel → parse result
  for (const entry of entries) {
    byMod.set(entry.mod.join("::"), entry);
    parsed.set(entry.rel, parseFile(entry, readFileSync(entry.file, "utf8")));
  }
  for (const entry of entries) {
    for (const m of parsed.get(entry.rel).inlineMods) if (!byMod.has(m.join("::"))) byMod.set(m.join("::"), entry);
  }
  const isModule = (segs) => byMod.has(segs.join("::"));

  // A path written in module `scope` → absolute segments from the crate root, or null (external).
  function absolute(scope, path, aliases) {
    const [head, ...rest] = path;
    if (head === "crate") return rest;
    if (head === "self") return [...scope, ...rest];
    if (head === "super") {
      let base = scope.slice(0, -1);
      let r = rest;
      while (r[0] === "super") {
        base = base.slice(0, -1);
        r = r.slice(1);
      }
      return [...base, ...r];
    }
    if (isModule([...scope, head])) return [...scope, ...path]; // a child module (or inline one)
    if (aliases?.has(head)) return [...aliases.get(head), ...rest];
    return null;
  }

  // Module names a file's `use` items bind (`use crate::inbox::{self}`, `use super::frames`).
  const aliasCache = new Map();
  function moduleAliases(rel) {
    if (aliasCache.has(rel)) return aliasCache.get(rel);
    const map = new Map();
    for (const u of parsed.get(rel).uses) {
      if (u.glob) continue;
      const abs = absolute(u.scope, u.path, null);
      if (abs && isModule(abs)) map.set(u.name, abs);
    }
    aliasCache.set(rel, map);
    return map;
  }

  // Absolute segments → { file, via } following `use` items of the module that names the item.
  function resolve(abs, seen = new Set()) {
    let k = abs.length;
    while (k > 0 && !isModule(abs.slice(0, k))) k--;
    const modSegs = abs.slice(0, k);
    const entry = byMod.get(modSegs.join("::"));
    if (entry === undefined) return null;
    const name = abs[k];
    if (name === undefined) return entry.rel;
    const key = `${modSegs.join("::")}#${name}`;
    if (seen.has(key)) return entry.rel;
    seen.add(key);
    const modKey = modSegs.join("::");
    const reexport = parsed
      .get(entry.rel)
      .uses.find((u) => u.top && !u.glob && u.name === name && u.scope.join("::") === modKey);
    if (reexport) {
      const target = absolute(reexport.scope, reexport.path, moduleAliases(entry.rel));
      if (target) return resolve(target, seen) ?? entry.rel;
    }
    return entry.rel;
  }

  const edges = new Map(); // rel → Map(rel → [line, …])
  for (const entry of entries) {
    const out = new Map();
    edges.set(entry.rel, out);
    const { uses, inline } = parsed.get(entry.rel);
    const aliases = moduleAliases(entry.rel);
    const add = (scope, path, line) => {
      const abs = absolute(scope, path, aliases);
      if (abs === null) return;
      const target = resolve(abs);
      if (target === null || target === entry.rel) return;
      if (!out.has(target)) out.set(target, []);
      if (!out.get(target).includes(line)) out.get(target).push(line);
    };
    for (const u of uses) add(u.scope, u.path, u.line);
    for (const p of inline) add(p.scope, p.path, p.line);
  }
  return { files: entries.map((e) => e.rel), edges };
}

/** The strongly connected components with more than one file (Tarjan), each sorted. */
export function findCycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const sccs = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.edges.get(v).keys()) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) sccs.push(scc.sort());
    }
  };
  for (const v of graph.files) if (!idx.has(v)) visit(v);
  return sccs.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The top-level module a file belongs to (`a.rs`, `a/mod.rs`, `a/b.rs` → `a`), or null for
 * the crate root. */
export function topLevelModule(rel) {
  const first = rel.split("/")[0];
  if (first === rel) {
    const name = rel.replace(/\.rs$/, "");
    return name === "lib" || name === "main" ? null : name;
  }
  return first;
}

/** The graph of top-level modules made from a file graph: its edges carry the file edges
 * (`from:lines → to`) that make them. */
export function moduleGraph(graph) {
  const modules = [...new Set(graph.files.map(topLevelModule).filter((m) => m !== null))].sort();
  const edges = new Map(modules.map((m) => [m, new Map()]));
  for (const [from, out] of graph.edges) {
    const a = topLevelModule(from);
    for (const [to, lines] of out) {
      const b = topLevelModule(to);
      if (a === null || b === null || a === b) continue;
      if (!edges.get(a).has(b)) edges.get(a).set(b, []);
      edges.get(a).get(b).push(`${from}:${lines.join(",")} → ${to}`);
    }
  }
  return { files: modules, edges };
}

/** The report of cycles between top-level modules: the modules, then each edge inside a cycle
 * with the file edges that make it. */
export function moduleReport(modules, cycles) {
  const lines = [];
  for (const scc of cycles) {
    const shortest = shortestCycle(modules, scc, scc[0]);
    lines.push(
      `import cycle between ${scc.length} top-level modules: ${[...shortest, shortest[0]].map((m) => `crate::${m}`).join(" → ")}`,
    );
    for (const from of scc) {
      for (const [to, made] of modules.edges.get(from)) {
        if (scc.includes(to)) lines.push(`  crate::${from} → crate::${to}: ${made.join("; ")}`);
      }
    }
  }
  return lines.join("\n");
}

/** A shortest cycle through `start` inside `members` (breadth-first), as a list of files. */
export function shortestCycle(graph, members, start) {
  const inside = new Set(members);
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of graph.edges.get(v).keys()) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let p = prev.get(v); p !== null; p = prev.get(p)) path.unshift(p);
        return path;
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** The report: one block per cycle (files, then each edge inside it with its lines). */
export function report(graph, cycles) {
  const lines = [];
  for (const scc of cycles) {
    const shortest = shortestCycle(graph, scc, scc[0]);
    lines.push(`import cycle between ${scc.length} files: ${[...shortest, shortest[0]].join(" → ")}`);
    for (const from of scc) {
      for (const [to, at] of graph.edges.get(from)) {
        if (scc.includes(to)) lines.push(`  ${from}:${at.join(",")} → ${to}`);
      }
    }
  }
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const srcDir = process.argv[2] ?? "src";
  let graph;
  try {
    graph = buildGraph(srcDir);
  } catch (error) {
    console.error(`module-cycles: cannot read ${srcDir}: ${error.message}`);
    process.exit(2);
  }
  const cycles = findCycles(graph);
  const modules = moduleGraph(graph);
  const moduleCycles = findCycles(modules);
  if (cycles.length) console.error(report(graph, cycles));
  if (moduleCycles.length) console.error(moduleReport(modules, moduleCycles));
  if (cycles.length || moduleCycles.length) {
    console.error(
      `module-cycles: ${cycles.length} import cycle(s) between files and ${moduleCycles.length} between top-level modules in ${srcDir}`,
    );
    process.exit(1);
  }
  console.log(
    `module-cycles: no import cycle between the ${graph.files.length} files of ${srcDir}, nor between its ${modules.files.length} top-level modules`,
  );
}

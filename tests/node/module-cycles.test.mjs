// The import-cycle check (scripts/module-cycles.mjs): small crates written to a temporary folder,
// with and without cycles — between files, and between top-level modules — so the check cannot
// pass by finding nothing; then the real src/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const SCRIPT = "scripts/module-cycles.mjs";

/** Writes `files` (path → text) under a fresh folder and runs the check on it. */
function check(files) {
  const root = mkdtempSync(join(tmpdir(), "module-cycles-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: "utf8" });
    return { status: run.status, out: run.stdout + run.stderr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test("a cycle through use items is reported with its files, and fails", () => {
  const r = check({
    "lib.rs": "pub mod a;\npub mod b;\npub mod c;\n",
    "a.rs": "use crate::b::B;\npub struct A(B);\n",
    "b.rs": "use crate::c::{self, C};\npub struct B(C);\n",
    "c.rs": "use crate::a::A;\npub struct C(Option<Box<A>>);\n",
  });
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /import cycle between 3 files: a\.rs → b\.rs → c\.rs → a\.rs/);
  assert.match(r.out, /c\.rs:1 → a\.rs/);
});

test("the same crate without the back edge passes", () => {
  const r = check({
    "lib.rs": "pub mod a;\npub mod b;\npub mod c;\n",
    "a.rs": "use crate::b::B;\npub struct A(B);\n",
    "b.rs": "use crate::c::{self, C};\npub struct B(C);\n",
    "c.rs": "pub struct C;\n",
  });
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /no import cycle between the 4 files/);
});

test("inline crate:: and super:: paths are edges; comments, strings and test modules are not", () => {
  const quiet = {
    "lib.rs": "pub mod a;\npub mod b;\n",
    "a.rs": "pub fn f() -> crate::b::B { crate::b::B }\n",
    "b.rs": [
      "// use crate::a::f;",
      "/* crate::a::f /* nested */ crate::a::f */",
      'pub const S: &str = "crate::a::f";',
      "pub const R: &str = r#\"super::a::f\"#;",
      "pub const C: char = '\\'';",
      "pub struct B;",
      "#[cfg(test)]",
      "mod tests {",
      "    use super::*;",
      "    fn g<'a>(x: &'a B) -> &'a B { self::super::B; x }",
      "}",
      "",
    ].join("\n"),
  };
  assert.equal(check(quiet).status, 0);
  const loud = { ...quiet, "b.rs": quiet["b.rs"] + "pub fn h() { let _ = super::a::f; }\n" };
  const r = check(loud);
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /b\.rs:12 → a\.rs/);
});

test("declaring a child is not an edge, using its item is", () => {
  const parent = {
    "lib.rs": "pub mod m;\n",
    "m/mod.rs": "mod child;\npub struct Shared;\n",
    "m/child.rs": "use super::Shared;\npub fn go(_: Shared) {}\n",
  };
  assert.equal(check(parent).status, 0);
  const r = check({ ...parent, "m/mod.rs": "mod child;\npub struct Shared;\npub fn run() { child::go(Shared) }\n" });
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /m\/child\.rs → m\/mod\.rs → m\/child\.rs|m\/mod\.rs → m\/child\.rs → m\/mod\.rs/);
});

test("a name reached through a re-export resolves to the file that defines it", () => {
  // tool.rs uses `super::Out`, which mod.rs only re-exports from call.rs: the edge is tool → call,
  // so mod.rs running the tools is not a cycle.
  const r = check({
    "lib.rs": "pub mod m;\n",
    "m/mod.rs": "mod call;\nmod tool;\npub use call::Out;\npub fn run() -> Out { tool::go() }\n",
    "m/call.rs": "pub struct Out;\n",
    "m/tool.rs": "use super::Out;\npub fn go() -> Out { Out }\n",
  });
  assert.equal(r.status, 0, r.out);
  // A module alias (`use crate::m::call;` then `call::Out`) is followed too.
  const alias = check({
    "lib.rs": "pub mod m;\npub mod n;\n",
    "m/mod.rs": "mod call;\npub use call::Out;\npub fn f() { crate::n::g() }\n",
    "m/call.rs": "pub struct Out;\n",
    "n.rs": "use crate::m;\npub fn g() { let _ = m::f; }\n",
  });
  assert.equal(alias.status, 1, alias.out);
  assert.match(alias.out, /m\/mod\.rs → n\.rs → m\/mod\.rs|n\.rs → m\/mod\.rs → n\.rs/);
});

test("a cycle between top-level modules fails even when no file imports itself back", () => {
  // a/x.rs → b/y.rs and b/z.rs → a/w.rs: the files form no cycle, the modules a and b do.
  const crate = {
    "lib.rs": "mod a;\nmod b;\n",
    "a/mod.rs": "mod w;\nmod x;\n",
    "a/w.rs": "pub struct W;\n",
    "a/x.rs": "use crate::b::y::Y;\npub fn x(_: Y) {}\n",
    "b/mod.rs": "pub mod y;\nmod z;\n",
    "b/y.rs": "pub struct Y;\n",
    "b/z.rs": "pub fn z() -> crate::a::w::W { crate::a::w::W }\n",
  };
  const r = check(crate);
  assert.equal(r.status, 1, r.out);
  assert.doesNotMatch(r.out, /import cycle between \d+ files/);
  assert.match(r.out, /import cycle between 2 top-level modules: crate::a → crate::b → crate::a/);
  assert.match(r.out, /crate::b → crate::a: b\/z\.rs:1 → a\/w\.rs/);
  // The plain type moved to a leaf module of its own: the modules point one way, and it passes.
  const leaf = { ...crate, "lib.rs": "mod a;\nmod b;\nmod w;\n", "w.rs": "pub struct W;\n" };
  delete leaf["a/w.rs"];
  leaf["a/mod.rs"] = "mod x;\n";
  leaf["b/z.rs"] = "pub fn z() -> crate::w::W { crate::w::W }\n";
  const fixed = check(leaf);
  assert.equal(fixed.status, 0, fixed.out);
  assert.match(fixed.out, /nor between its 3 top-level modules/);
});

test("the crate root and a module's own files are not edges between top-level modules", () => {
  // lib.rs uses everything, and m's files use each other: neither is a cycle between modules.
  const r = check({
    "lib.rs": "mod m;\nmod n;\npub use m::M;\npub use n::N;\n",
    "m/mod.rs": "mod inner;\npub use inner::M;\n",
    "m/inner.rs": "pub struct M(pub crate::n::N);\n",
    "n.rs": "pub struct N;\n",
  });
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /nor between its 2 top-level modules/);
});

test("the core's modules have no import cycle", () => {
  const run = spawnSync(process.execPath, [SCRIPT, "src"], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /no import cycle between the \d+ files of src, nor between its \d+ top-level modules/);
});

test("an unreadable folder is an error, not a pass", () => {
  const run = spawnSync(process.execPath, [SCRIPT, join(tmpdir(), "module-cycles-missing-folder")], {
    encoding: "utf8",
  });
  assert.equal(run.status, 2);
});

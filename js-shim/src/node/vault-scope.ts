// Where a vault operation may reach on a real folder, as plain data and pure functions: NodeVault
// checks every path with them, and so does the reader thread (read-thread.ts), which has only
// what a message carries.
import path from "node:path";

/** A read's or a write's reach. */
export type Access = "read" | "write";

/** What a check needs: the vault's folder as given and as it really is, the folders no operation
 * may reach (the core's list), and the real folders linked from outside the last listing
 * followed (readable, never writable). */
export type VaultScope = { root: string; realRoot: string; hidden: readonly string[]; followed: readonly string[] };

/** The vault-relative form of a real path inside the real root `root`, or undefined outside. */
export function insideOf(root: string, real: string): string | undefined {
  if (real === root) return "";
  if (!real.startsWith(root + path.sep)) return undefined;
  const inside = real.slice(root.length + 1);
  return path.sep === "/" ? inside : inside.split(path.sep).join("/");
}

/** The path as text, refused if it climbs out of the vault (the core already refused that). */
export function fullIn(root: string, relative: string): string {
  const full = path.resolve(root, relative);
  if (full !== root && !full.startsWith(root + path.sep)) throw new Error(`path escapes the vault: ${relative}`);
  return full;
}

/** Refuses a real location the agent may not reach (throws). */
export function checkReal(scope: VaultScope, real: string, relative: string, access: Access): void {
  const inside = insideOf(scope.realRoot, real);
  if (inside === undefined) {
    if (access === "read" && scope.followed.some((dir) => real === dir || real.startsWith(dir + path.sep))) return;
    throw new Error(`${relative} is really outside the vault; refused`);
  }
  const lower = inside.toLowerCase();
  const folder = scope.hidden.find((f) => lower === f || lower.startsWith(f + "/"));
  if (folder !== undefined) throw new Error(`${relative} is really in ${folder}, which the agent may not touch; refused`);
}

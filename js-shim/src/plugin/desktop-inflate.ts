// Node's zlib on the desktop app (Electron) for the core's wasm (core/load.ts); null on mobile.
import { Platform } from "obsidian";
import { zlibInflate, type Inflate } from "../core/load.ts";

/** The desktop app's synchronous inflate; null on mobile, or wherever Node's modules cannot be
 * loaded, where DecompressionStream does it. */
export function desktopInflate(): Inflate | null {
  if (Platform.isDesktop && Platform.isDesktopApp) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports, no-undef -- Obsidian's plugins are CommonJS; zlib on desktop only
      const zlib = require("node:zlib") as typeof import("node:zlib");
      // eslint-disable-next-line @typescript-eslint/no-require-imports, no-undef -- as above
      const { Buffer } = require("node:buffer") as typeof import("node:buffer");
      return zlibInflate(zlib, Buffer);
    } catch {
      return null;
    }
  }
  return null;
}

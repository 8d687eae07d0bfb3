// The esbuild options of the Obsidian plugin bundle (dist/main.js), shared by js-shim/build.mjs,
// which builds it, and scripts/bundle-size.mjs, which measures what it is made of: one place, so
// the measurement is of the bundle users get.
import { sdkTrim } from "./sdk-trim.mjs";

/** The options; `core` is the esbuild plugin that supplies the core's glue and wasm. */
export function pluginBundle(core) {
  return {
    bundle: true,
    platform: "browser",
    format: "cjs",
    target: "es2022",
    plugins: [core, sdkTrim],
    // Node's built-ins exist on the desktop app only, and are loaded only by the stdio transport
    // of command-line MCP servers, which the plugin imports lazily there.
    external: ["obsidian", "electron", "node:*", "child_process", "fs", "path", "os", "util", "stream", "events", "process"],
    logOverride: { "empty-import-meta": "silent" },
    legalComments: "none",
    minify: true,
  };
}

// The esbuild options of the Obsidian plugin bundle (dist/main.js), shared by js-shim/build.mjs,
// which builds it, and scripts/bundle-size.mjs, which measures what it is made of: one place, so
// the measurement is of the bundle users get.
import { sdkTrim } from "./sdk-trim.mjs";

/** The CodeMirror packages the editor's inline review imports: external in the plugin, bundled
 * into the test page (js-shim/build.mjs), which has no Obsidian to supply them. */
export const CODEMIRROR = ["@codemirror/state", "@codemirror/view"];

/** The options; `core` is the esbuild plugin that supplies the core's glue and wasm. */
export function pluginBundle(core) {
  return {
    bundle: true,
    platform: "browser",
    format: "cjs",
    target: "es2022",
    plugins: [core, sdkTrim],
    // Node's built-ins exist on the desktop app only, and are loaded only by the stdio transport
    // of command-line MCP servers, which the plugin imports lazily there. CodeMirror 6 is
    // Obsidian's own editor: the app supplies it (one instance, or its facets would not match).
    external: ["obsidian", "electron", ...CODEMIRROR, "node:*", "child_process", "fs", "path", "os", "util", "stream", "events", "process"],
    logOverride: { "empty-import-meta": "silent" },
    legalComments: "none",
    minify: true,
  };
}

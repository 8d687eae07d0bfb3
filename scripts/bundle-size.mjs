// What the JavaScript of dist/main.js is made of: the plugin bundle built as js-shim/build.mjs
// builds it, with the core's wasm left out, and its minified bytes by npm package and by file
// (esbuild's metafile), plus the gzip of the whole. For deciding what to cut from the bundle.
//   node scripts/bundle-size.mjs [--files N]
import { build } from "esbuild";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { pluginBundle } from "../js-shim/plugin-bundle.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const filesShown = Number(process.argv[process.argv.indexOf("--files") + 1]) || 30;

/** The core's glue and wasm as empty modules: this measures the JavaScript around them. */
const noCore = {
  name: "no-core",
  setup(b) {
    b.onResolve({ filter: /^smarthole-(core-factory|wasm-gz)$/ }, (args) => ({ path: args.path, namespace: "no-core" }));
    b.onLoad({ filter: /.*/, namespace: "no-core" }, () => ({ contents: 'export default ""; export function createCore() {}', loader: "js" }));
  },
};

const result = await build({
  ...pluginBundle(noCore),
  metafile: true,
  write: false,
  entryPoints: [path.join(root, "js-shim/src/plugin/main.ts")],
  outfile: path.join(root, "target/bundle-size/main.js"),
});

const inputs = Object.entries(Object.values(result.metafile.outputs)[0].inputs);
const packageOf = (file) => file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1] ?? (file.startsWith("no-core:") ? "(core left out)" : "js-shim (ours)");
const byPackage = new Map();
for (const [file, { bytesInOutput }] of inputs) byPackage.set(packageOf(file), (byPackage.get(packageOf(file)) ?? 0) + bytesInOutput);

const text = result.outputFiles[0].text;
console.log(`dist/main.js without the wasm: ${text.length} bytes minified, ${gzipSync(text, { level: 9 }).length} gzip\n`);
console.log("minified bytes by package:");
for (const [name, bytes] of [...byPackage].sort((a, b) => b[1] - a[1])) console.log(`  ${String(bytes).padStart(7)}  ${name}`);
console.log(`\nthe ${filesShown} largest files:`);
for (const [file, { bytesInOutput }] of inputs.sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, filesShown)) {
  console.log(`  ${String(bytesInOutput).padStart(7)}  ${file.replace(/^.*node_modules\//, "")}`);
}

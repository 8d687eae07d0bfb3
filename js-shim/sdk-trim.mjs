// The esbuild plugin that leaves out of the bundles the parts of the MCP SDK and zod our MCP
// client never runs (js-shim/build.mjs and scripts/bundle-size.mjs use it).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Modules of the MCP SDK and zod that our MCP client never runs, replaced by small stand-ins
 * (each throws if it is ever called): what they cost is bundle bytes every user downloads.
 *  - the SDK's Ajv-based validator: a pass-through (src/core/ajv-free-validator.ts says why);
 *  - the SDK's client/auth.js (OAuth, ~4 KB gzip with its zod schemas in shared/auth.js): the
 *    Streamable HTTP transport calls it only when given an `authProvider`, which src/core/mcp.ts
 *    never gives (src/core/no-oauth.ts);
 *  - zod's JSON Schema generation (core/to-json-schema.js and the per-type processors in
 *    core/json-schema-processors.js, ~5 KB gzip): the SDK makes JSON Schema from zod only on its
 *    server side (src/core/no-json-schema.ts). The processors module keeps its top part
 *    (`aggregateChecks`, which zod's schema getters such as `.minLength` read); its processors
 *    become stand-ins. */
export const sdkTrim = {
  name: "sdk-trim",
  setup(b) {
    b.onResolve({ filter: /validation\/ajv-provider\.js$/ }, () => ({ path: path.join(here, "src/core/ajv-free-validator.ts") }));
    b.onResolve({ filter: /^\.\/auth\.js$/ }, (args) =>
      /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]client$/.test(args.resolveDir) ? { path: path.join(here, "src/core/no-oauth.ts") } : undefined,
    );
    b.onResolve({ filter: /^\.\.?\/(core\/)?to-json-schema\.js$/ }, (args) =>
      /zod[\\/]v4[\\/](core|classic|mini)$/.test(args.resolveDir) ? { path: path.join(here, "src/core/no-json-schema.ts") } : undefined,
    );
    b.onLoad({ filter: /zod[\\/]v4[\\/]core[\\/]json-schema-processors\.js$/ }, (args) => ({
      contents: withoutJsonSchemaProcessors(readFileSync(args.path, "utf8")),
      loader: "js",
    }));
  },
};

/** zod's json-schema-processors.js up to its first processor (the check aggregation above it
 * stays), then a stand-in under each processor's name. Fails the build if zod changed shape. */
function withoutJsonSchemaProcessors(source) {
  const cut = source.indexOf("\nconst formatMap = {");
  const kept = source.slice(0, cut);
  const names = [...source.slice(cut).matchAll(/^export (?:const|function) (\w+)/gm)].map((m) => m[1]);
  if (cut < 0 || !/^export function aggregateChecks\(/m.test(kept) || !names.includes("stringProcessor") || !names.includes("toJSONSchema")) {
    throw new Error("zod's core/json-schema-processors.js is not shaped as expected; check the zod version (js-shim/build.mjs, sdkTrim)");
  }
  const standIn = 'function __leftOut() { throw new Error("zod\'s toJSONSchema is not in this build of SmartHole Agent (js-shim/build.mjs leaves it out)"); }';
  return `${kept}\n${standIn}\n${names.map((name) => `export const ${name} = __leftOut;`).join("\n")}\n`;
}

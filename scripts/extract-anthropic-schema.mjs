// Extracts the request schema the scripted Anthropic server validates against
// (components.schemas.CreateMessageParams and everything it references) from the Messages API's
// OpenAPI document, into tests/peers/anthropic-create-message.schema.json, so the tests need
// nothing outside the repository. Rerun when the reference document changes:
//
//   node scripts/extract-anthropic-schema.mjs ../shared/reference/anthropic-openapi.json
import { readFileSync, writeFileSync } from "node:fs";

const source = process.argv[2];
if (!source) {
  process.stderr.write("usage: node scripts/extract-anthropic-schema.mjs PATH/TO/anthropic-openapi.json\n");
  process.exit(2);
}
const schemas = JSON.parse(readFileSync(source, "utf8")).components.schemas;
const kept = {};
const visit = (value) => {
  if (Array.isArray(value)) return value.forEach(visit);
  if (!value || typeof value !== "object") return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$ref" && typeof inner === "string" && inner.startsWith("#/components/schemas/")) {
      const name = inner.slice("#/components/schemas/".length);
      if (!(name in kept)) {
        kept[name] = schemas[name];
        visit(schemas[name]);
      }
    } else visit(inner);
  }
};
kept.CreateMessageParams = schemas.CreateMessageParams;
visit(schemas.CreateMessageParams);
const out = new URL("../tests/peers/anthropic-create-message.schema.json", import.meta.url);
writeFileSync(out, JSON.stringify({ components: { schemas: kept } }) + "\n");
process.stdout.write(`${Object.keys(kept).length} schemas written to ${out.pathname}\n`);

// Stands in for zod's core/to-json-schema.js in the bundles (js-shim/build.mjs swaps it in). The
// MCP SDK turns zod schemas into JSON Schema only on its server side (the tool input schemas it
// publishes); a client receives JSON Schema and never makes it. The names the importers need
// stay; calling one means a path thought unused is in use, so it throws and says so.

/** Thrown by a stand-in: what was called, and that the bundle leaves it out. */
function leftOut(what: string): Error {
  return new Error(`${what} is not in this build of SmartHole Agent (js-shim/build.mjs leaves it out)`);
}

export function initializeContext(): never {
  throw leftOut("zod's toJSONSchema");
}
export function handleUnrepresentable(): never {
  throw leftOut("zod's toJSONSchema");
}
export function processSchema(): never {
  throw leftOut("zod's toJSONSchema");
}
export { processSchema as process };
export function extractDefs(): never {
  throw leftOut("zod's toJSONSchema");
}
export function finalize(): never {
  throw leftOut("zod's toJSONSchema");
}
/** Built per schema (zod's `~standard` getter builds two); fails only when called. */
export const createToJSONSchemaMethod = () => (): never => {
  throw leftOut("zod's toJSONSchema");
};
export const createStandardJSONSchemaMethod = createToJSONSchemaMethod;

// Turns wasm-bindgen's ES-module glue into a factory: each call of `createCore()` has its own
// module state (instance, memory views, finalizers), so a core that trapped can be replaced by a
// fresh instance without the old one's finalizers reaching the new memory.

/** The factory module's source, from the glue's source. Throws if the glue is not shaped as the
 * pinned wasm-bindgen (0.2.130) writes it. */
export function glueFactory(source) {
  const names = [];
  let body = source.replace(/^export (class|function) (\w+)/gm, (_, kind, name) => {
    names.push(name);
    return `${kind} ${name}`;
  });
  const tail = "export { initSync, __wbg_init as default };";
  if (!body.includes(tail) || names.length === 0 || /^export /m.test(body.replace(tail, ""))) {
    throw new Error("pkg/smarthole_agent.js is not shaped as expected; check the wasm-bindgen version");
  }
  body = body.replace(tail, "").replace(/import\.meta\.url/g, '"about:blank"');
  return `export function createCore() {\n${body}\nreturn { ${names.join(", ")}, initSync, default: __wbg_init };\n}\n`;
}

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
  body = nativeAsciiStart(body);
  return `export function createCore() {\n${body}\nreturn { ${names.join(", ")}, initSync, default: __wbg_init };\n}\n`;
}

/** The glue's loop copying a string's ASCII start into the wasm's memory one character at a time,
 * before the encoder takes over at the first other character. */
const ASCII_LOOP = `    let offset = 0;

    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }`;

/** The same start written by the platform's encoder (the bytes are the same: UTF-8, a lone
 * surrogate as U+FFFD either way): the loop cost ~2 ms per 26,000 characters while the glue was
 * still cold, for the current conversation's file read at every start (issue 37); the encoder,
 * 0.05 ms. It fills the `len` bytes it is given; what does not fit goes on as before, after what
 * it read. */
const NATIVE_ASCII_START = `    const head = cachedTextEncoder.encodeInto(arg, mem.subarray(ptr, ptr + len));
    let offset = head.written;
    if (head.read !== len) {
        arg = arg.slice(head.read);`;

function nativeAsciiStart(body) {
  if (body.split(ASCII_LOOP).length !== 2) throw new Error("pkg/smarthole_agent.js: passStringToWasm0 is not shaped as expected; check the wasm-bindgen version");
  return body.replace(ASCII_LOOP, () => NATIVE_ASCII_START);
}

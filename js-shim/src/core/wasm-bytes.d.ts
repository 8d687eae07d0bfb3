/** The core's WebAssembly, gzip-compressed and base64-encoded by the build (js-shim/build.mjs). */
declare module "smarthole-wasm-gz" {
  const base64: string;
  export default base64;
}

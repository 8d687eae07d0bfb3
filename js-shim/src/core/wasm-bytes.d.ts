/** The core's WebAssembly, gzip-compressed and base64-encoded by the build (js-shim/build.mjs). */
declare module "smarthole-wasm-gz" {
  const base64: string;
  export default base64;
}

/** The wasm-bindgen glue as a factory: each call gives an independent module (js-shim/glue-factory.mjs). */
declare module "smarthole-core-factory" {
  export function createCore(): typeof import("smarthole-core") & { default: typeof import("smarthole-core").default };
}

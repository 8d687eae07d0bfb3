// The core as views and hosts call it: one binding, typed by the core's own declaration
// (pkg/smarthole_agent.d.ts) — the processor's methods, and the module's free functions (pure
// ones: checks, quotes, defaults) — that reaches whichever instance is current (a rebuild after a
// trap replaces it) and reports a trap the moment a call throws one. Nothing is written per
// call: a call added to the core's binding is callable here as it is.
import type { MessageProcessor } from "smarthole-core";
import type { Core } from "./load.ts";

/** The module's free functions (the class and the loader aside). */
export type CoreFunctions = Omit<Core, "MessageProcessor" | "default" | "initSync">;

/** Every call of the core's binding: the processor's (its lifecycle — initialize,
 * reprocessPending, settings, dispose, free — is the runtime's, so that a rebuild and the links
 * follow it) and the module's free functions. */
export type CoreCalls = Omit<MessageProcessor, "free" | "dispose" | "initialize" | "reprocessPending" | "updateSettings" | typeof Symbol.dispose> & CoreFunctions;

/** Whether an error means the wasm instance can no longer be trusted. */
export function isTrap(error: unknown): boolean {
  if (error instanceof WebAssembly.RuntimeError) return true;
  const message = error instanceof Error ? error.message : "";
  return /recursive use of an object|attempted to take ownership of Rust value|null pointer passed to rust/.test(message);
}

/** The loader's names: not calls of the core. */
const NOT_CALLS = new Set(["MessageProcessor", "default", "initSync"]);

/**
 * The current core's calls: `current()` is asked at each call; a name the processor lacks is
 * looked up among the module's free functions (callable once the module is loaded, before the
 * processor exists). An error a call throws goes to `thrown` (the runtime rebuilds on a trap)
 * before it is thrown on. Getters (`currentMessageId`, `hubStatus`) are read the same way.
 */
export function guardedCore(current: () => { processor: MessageProcessor | null; module: Core | null }, thrown: (error: unknown) => void): MessageProcessor & CoreFunctions {
  const guard = <T>(run: () => T): T => {
    try {
      return run();
    } catch (error) {
      thrown(error);
      throw error;
    }
  };
  return new Proxy({} as MessageProcessor & CoreFunctions, {
    get(_target, name) {
      // Not a thenable: it may be returned from an async function.
      if (typeof name !== "string" || name === "then") return undefined;
      const { processor, module } = current();
      const owner: object | null = processor && name in processor ? processor : module && !NOT_CALLS.has(name) && name in module ? module : null;
      if (!owner) {
        // No instance: before the start, or during a rebuild.
        if (!processor) throw new Error("the core is not ready yet");
        return undefined;
      }
      const value = guard((): unknown => Reflect.get(owner, name, owner));
      if (typeof value !== "function") return value;
      return (...args: unknown[]): unknown => guard((): unknown => Reflect.apply(value, owner, args));
    },
  });
}

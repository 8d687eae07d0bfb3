// A model request over fetch as the core's HttpHandle: the head when it arrives, the body chunk
// by chunk (streaming), and abort for Stop. Every host that has fetch uses this one.
import type { HttpHandle, HttpRequestSpec } from "smarthole-core";

/**
 * Starts `request` with `fetchFn`. `refused`, when given, answers a request that failed before
 * any response and was not aborted (Obsidian: CORS, answered through requestUrl instead).
 */
export function fetchHandle(fetchFn: typeof fetch, request: HttpRequestSpec, refused?: () => HttpHandle): HttpHandle {
  const controller = new AbortController();
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let fallback: HttpHandle | null = null;
  // An empty body is absent (a GET may not carry one). A redirect is never followed: the request
  // carries the key, and the core tells the user where the server pointed instead.
  const init: RequestInit = { method: request.method, headers: request.headers, body: request.body, signal: controller.signal, redirect: "manual" };
  const response = fetchFn(request.url, init).then(
    (res) => {
      // A page's fetch hides a redirect's status and target ("opaqueredirect", status 0):
      // 300 stands for "a redirect, target unknown".
      if (res.type === "opaqueredirect") return { status: 300, headers: [] as [string, string][] };
      reader = res.body?.getReader() ?? null;
      return { status: res.status, headers: [...res.headers.entries()] as [string, string][] };
    },
    (error: unknown) => {
      if (!refused || controller.signal.aborted) throw error;
      fallback = refused();
      return fallback.response;
    },
  );
  return {
    response,
    async read() {
      await response;
      if (fallback) return fallback.read();
      if (!reader) return null;
      const { done, value } = await reader.read();
      return done ? null : value;
    },
    abort() {
      controller.abort();
      fallback?.abort();
    },
  };
}

// What the scripted model servers of the ACP tests share (gemini-server.mjs, openai-server.mjs):
// a local HTTP server on a free port whose requests are all recorded, a queue of scripted steps the
// model calls take in order, and text cut into small pieces for streaming.
import http from "node:http";

/** Splits text into ~4-character pieces (code points kept whole). */
export function pieces(text) {
  const cps = Array.from(text);
  const out = [];
  for (let i = 0; i < cps.length; i += 4) out.push(cps.slice(i, i + 4).join(""));
  return out.length ? out : [""];
}

/** A scripted server; a subclass answers each recorded request in `answer(req, res, record, url, raw)`. */
export class ScriptedHttpServer {
  requests = [];
  url = "";
  #queue = [];
  #server = http.createServer((req, res) => void this.#handle(req, res));

  enqueue(...steps) {
    this.#queue.push(...steps);
    return this;
  }

  /** The next scripted step, `{ text: "ok" }` once they are used up. */
  takeStep() {
    return this.#queue.shift() ?? { text: "ok" };
  }

  async listen() {
    await new Promise((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${this.#server.address().port}`;
  }

  close() {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req, res) {
    req.on("error", () => {});
    res.on("error", () => {});
    let raw = "";
    for await (const chunk of req) raw += chunk;
    let body = null;
    try {
      body = JSON.parse(raw);
    } catch {
      // not JSON: recorded as it is
    }
    const url = new URL(req.url, "http://x");
    const record = { method: req.method, path: url.pathname, query: url.search, body, step: null };
    this.requests.push(record);
    return this.answer(req, res, record, url, raw);
  }
}

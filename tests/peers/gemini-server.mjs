// A scripted Gemini API server (generativelanguage's REST shape) for Gemini CLI offline: each
// streamed model call (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`) takes the next
// scripted step; the CLI's side calls — `:generateContent` (its routing, next-speaker and loop
// checks), `:countTokens`, model listings — get a side answer and take no step.
//
//   const server = await startGeminiServer();
//   server.enqueue({ functionCalls: [{ name: "read_file", args: { file_path } }] }, { text: "Done." });
//   // the CLI points at it with GOOGLE_GEMINI_BASE_URL=server.url and any GEMINI_API_KEY
//
// Every request is recorded (method, path, body, whether it took a step).
import { ScriptedHttpServer, pieces } from "./scripted-http.mjs";

const usage = (prompt, output) => ({ promptTokenCount: prompt, candidatesTokenCount: output, totalTokenCount: prompt + output });

class GeminiServer extends ScriptedHttpServer {
  answer(req, res, record, url, raw) {
    const body = record.body;
    if (url.pathname.endsWith(":streamGenerateContent")) {
      record.step = this.takeStep();
      return this.#stream(res, record.step);
    }
    if (url.pathname.endsWith(":countTokens")) return this.#json(res, { totalTokens: raw.length >> 2 });
    if (url.pathname.endsWith(":generateContent")) return this.#json(res, this.#side(body));
    this.#json(res, { error: { code: 404, message: `${req.method} ${url.pathname}: not found`, status: "NOT_FOUND" } }, 404);
  }

  /** A non-streamed call: the CLI's own checks. A JSON answer when JSON was asked for. */
  #side(body) {
    const json = body?.generationConfig?.responseMimeType === "application/json";
    const text = json ? JSON.stringify({ reasoning: "scripted", model_choice: "flash", next_speaker: "user", complexity_reasoning: "scripted", complexity_score: 1 }) : "ok";
    return { candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }], usageMetadata: usage(10, 1), modelVersion: "scripted" };
  }

  #json(res, value, status = 200) {
    const text = JSON.stringify(value);
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  /** A streamed answer: function calls in one chunk, text in ~4-character chunks, then STOP. */
  #stream(res, step) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (candidate, done) =>
      res.write(`data: ${JSON.stringify({ candidates: [{ index: 0, ...candidate }], ...(done ? { usageMetadata: usage(100, 10) } : {}), modelVersion: "scripted" })}\r\n\r\n`);
    if (step.functionCalls) {
      send({ content: { role: "model", parts: step.functionCalls.map((call) => ({ functionCall: call })) }, finishReason: "STOP" }, true);
    } else {
      const texts = pieces(step.text ?? "");
      texts.forEach((text, i) => send({ content: { role: "model", parts: [{ text }] }, ...(i === texts.length - 1 ? { finishReason: "STOP" } : {}) }, i === texts.length - 1));
    }
    res.end();
  }
}

export async function startGeminiServer() {
  const server = new GeminiServer();
  await server.listen();
  return server;
}

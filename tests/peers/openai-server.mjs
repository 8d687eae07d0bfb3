// A scripted OpenAI-compatible Chat Completions server (for opencode's `@ai-sdk/openai-compatible`
// provider, offline): each streamed `POST /v1/chat/completions` that offers tools takes the next
// scripted step; one without tools (its title and summary requests) gets a side answer and takes
// no step. `GET /v1/models` lists one model.
//
//   const server = await startOpenAiServer();
//   server.enqueue({ toolCalls: [{ name: "read", arguments: { filePath } }] }, { text: "Done." });
//
// Every request is recorded (method, path, body, the step it took).
import { ScriptedHttpServer, pieces } from "./scripted-http.mjs";

class OpenAiServer extends ScriptedHttpServer {
  #ids = 0;

  answer(req, res, record, url, raw) {
    const body = record.body;
    if (req.method === "GET" && url.pathname.endsWith("/models")) return this.#json(res, { object: "list", data: [{ id: "scripted-model", object: "model", owned_by: "scripted" }] });
    if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) return this.#json(res, { error: { message: `${req.method} ${url.pathname}: not found`, type: "not_found" } }, 404);
    const side = !body?.tools?.length;
    const step = side ? { text: "Garden question" } : (this.takeStep());
    if (!side) record.step = step;
    if (body?.stream) return this.#stream(res, step);
    const message = step.toolCalls
      ? { role: "assistant", content: null, tool_calls: step.toolCalls.map((c, i) => ({ id: c.id ?? `call_${++this.#ids}`, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) }, index: i })) }
      : { role: "assistant", content: step.text ?? "" };
    this.#json(res, { id: `chatcmpl-${++this.#ids}`, object: "chat.completion", created: 0, model: "scripted-model", choices: [{ index: 0, message, finish_reason: step.toolCalls ? "tool_calls" : "stop" }], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } });
  }

  #json(res, value, status = 200) {
    const text = JSON.stringify(value);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  #stream(res, step) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const id = `chatcmpl-${++this.#ids}`;
    const chunk = (delta, finish = null, usage) =>
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: "scripted-model", choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`);
    chunk({ role: "assistant", content: "" });
    if (step.toolCalls) {
      step.toolCalls.forEach((c, index) => {
        chunk({ tool_calls: [{ index, id: c.id ?? `call_${++this.#ids}`, type: "function", function: { name: c.name, arguments: "" } }] });
        chunk({ tool_calls: [{ index, function: { arguments: JSON.stringify(c.arguments) } }] });
      });
      chunk({}, "tool_calls", { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 });
    } else {
      for (const text of pieces(step.text ?? "")) chunk({ content: text });
      chunk({}, "stop", { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 });
    }
    res.end("data: [DONE]\n\n");
  }
}

export async function startOpenAiServer() {
  const server = new OpenAiServer();
  await server.listen();
  return server;
}

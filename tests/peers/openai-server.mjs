// A scripted OpenAI-compatible Chat Completions server (for opencode's `@ai-sdk/openai-compatible`
// provider, offline): each streamed `POST /v1/chat/completions` that offers tools takes the next
// scripted step; one without tools (its title and summary requests) gets a side answer and takes
// no step. `GET /v1/models` lists one model. The Responses API too (Codex speaks only it): each
// streamed `POST /v1/responses` takes the next step, answered with its events (a function call
// as a `function_call` item, text as `output_text` deltas, then `response.completed`).
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
    if (req.method === "POST" && url.pathname.endsWith("/responses")) {
      record.step = this.takeStep();
      return this.#responses(res, record.step);
    }
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

  /** A step as the Responses API streams it (server-sent events, each named by its `type`). */
  #responses(res, step) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const id = `resp_${++this.#ids}`;
    const send = (type, fields) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`);
    send("response.created", { response: { id, object: "response", status: "in_progress", output: [] } });
    const items = [];
    if (step.toolCalls) {
      step.toolCalls.forEach((c, output_index) => {
        // A tool of a namespace (Codex offers an MCP server's tools as one: `mcp__<server>`).
        const item = { type: "function_call", id: `fc_${++this.#ids}`, call_id: c.id ?? `call_${this.#ids}`, ...(c.namespace ? { namespace: c.namespace } : {}), name: c.name, arguments: JSON.stringify(c.arguments), status: "completed" };
        send("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } });
        send("response.function_call_arguments.delta", { output_index, item_id: item.id, delta: item.arguments });
        send("response.output_item.done", { output_index, item });
        items.push(item);
      });
    } else {
      const itemId = `msg_${++this.#ids}`;
      send("response.output_item.added", { output_index: 0, item: { type: "message", id: itemId, role: "assistant", status: "in_progress", content: [] } });
      for (const delta of pieces(step.text ?? "")) send("response.output_text.delta", { output_index: 0, content_index: 0, item_id: itemId, delta });
      const item = { type: "message", id: itemId, role: "assistant", status: "completed", content: [{ type: "output_text", text: step.text ?? "", annotations: [] }] };
      send("response.output_item.done", { output_index: 0, item });
      items.push(item);
    }
    const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 };
    send("response.completed", { response: { id, object: "response", status: "completed", output: items, usage } });
    res.end();
  }
}

export async function startOpenAiServer() {
  const server = new OpenAiServer();
  await server.listen();
  return server;
}

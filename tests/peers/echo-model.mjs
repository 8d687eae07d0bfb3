// A tiny Messages API stand-in for hub bursts: every request is answered (not streamed; run the
// headless host with --no-stream) with a text made from the last user message, so each answer is
// recognisably its request's. `down` makes it answer 529 overloaded until set back. `answer` may
// return a promise: the request is answered when it settles (a test holds an answer back).
//
//   const model = await startEchoModel((request) => `Noted: ${request}`);
//   model.down = true; … model.down = false;
//   await model.close();
import http from "node:http";

/** The last user message's text in a Messages API request body (without the <context> block the
 *  core opens it with). */
function lastUserText(body) {
  const user = [...(body.messages ?? [])].reverse().find((m) => m.role === "user");
  if (!user) return "";
  if (typeof user.content === "string") return user.content;
  return user.content
    .filter((b) => b.type === "text" && !b.text.startsWith("<context>"))
    .map((b) => b.text)
    .join("\n");
}

export async function startEchoModel(answer = (text) => `Noted: ${text}`) {
  const model = { down: false, requests: 0, refused: 0, url: "", close: null };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      model.requests++;
      if (model.down) {
        model.refused++;
        res.writeHead(529, { "content-type": "application/json", "retry-after-ms": "200" });
        res.end(JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }));
        return;
      }
      let body = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        // answered anyway
      }
      const text = await answer(lastUserText(body), body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({
        id: `msg_${model.requests}`, type: "message", role: "assistant", model: body.model ?? "echo",
        content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 10 },
      }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  model.url = `http://127.0.0.1:${server.address().port}`;
  model.close = () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); });
  return model;
}

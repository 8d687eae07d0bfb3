// The offline embedding server for the browser tests: the one scripts/test.sh started
// (SMARTHOLE_TEST_EMBEDDINGS_URL), or one started here with `scripts/local-model.sh
// embeddings-start` (on SMARTHOLE_TEST_EMBEDDINGS_PORT, default 8093) and stopped by `stop()`.
// And a counting proxy in front of it: every POST and how many texts it asked to embed.
import http from "node:http";
import { spawnSync } from "node:child_process";
import { ROOT } from "../node/helpers.mjs";

function localModel(args) {
  const run = spawnSync("scripts/local-model.sh", args, { cwd: ROOT, encoding: "utf8", timeout: 600_000 });
  if (run.status !== 0) throw new Error(`scripts/local-model.sh ${args.join(" ")} failed: ${run.stderr}`);
  return run.stdout.trim().split("\n").pop();
}

/** The server's base URL and model name; `stop()` stops it if it was started here. */
export function embeddingServer() {
  const model = localModel(["embeddings-model"]);
  const given = process.env.SMARTHOLE_TEST_EMBEDDINGS_URL;
  if (given) return { url: given.replace(/\/$/, ""), model, stop: () => {} };
  const port = process.env.SMARTHOLE_TEST_EMBEDDINGS_PORT ?? "8093";
  const url = localModel(["embeddings-start", port]);
  return { url, model, stop: () => localModel(["embeddings-stop", port]) };
}

/** How many texts a request body asks to embed (OpenAI's `input` or Ollama's `input`). */
function inputsOf(body) {
  try {
    const input = JSON.parse(body).input;
    return Array.isArray(input) ? input : [input];
  } catch {
    return [];
  }
}

/**
 * A proxy to `target` that counts: `posts` (each POST's texts), answering CORS for any origin
 * as the server does (a page's fetch reaches it). `hold()` keeps the POSTs waiting until the
 * function it returns is called (a test sees the index before it is built). `close()` stops it.
 */
export async function countingProxy(target) {
  const posts = [];
  let held = null;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      if (req.method === "POST") {
        posts.push(inputsOf(body.toString("utf8")));
        await held?.promise;
      }
      const upstream = http.request(new URL(req.url, target), { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (up) => {
        res.writeHead(up.statusCode, up.headers);
        up.pipe(res);
      });
      upstream.on("error", () => res.destroy());
      upstream.end(body);
    });
  });
  const port = await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    hold() {
      let release;
      held = { promise: new Promise((r) => (release = r)) };
      return () => ((held = null), release());
    },
    /** Every text embedded through the proxy. */
    texts: () => posts.flat(),
    close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))),
  };
}

// An OpenAI-style `/v1/embeddings` server for benchmarks and the soak: `embeddingsEndpoint`
// answers with whatever vectors a caller's function gives, `hashedVector` is a deterministic
// vector from a text's words (texts sharing words are close), so search by meaning can run at
// the core's own speed without a model.
import http from "node:http";

/** The dimensions of `hashedVector`, those of the offline model (all-MiniLM-L6-v2). */
export const HASHED_DIMS = 384;

/**
 * An HTTP server for `/v1/embeddings` answering with `vectorsOf(texts, body)`: `{ vectors }`
 * (float lists) or `{ status, error }` (an error body sent as it is).
 */
export async function embeddingsEndpoint(vectorsOf) {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", async () => {
      try {
        const input = JSON.parse(body).input;
        const texts = Array.isArray(input) ? input : [input];
        const answer = await vectorsOf(texts, body);
        if (answer.error) {
          res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.error);
          return;
        }
        const data = answer.vectors.map((v, index) => ({ object: "embedding", index, embedding: Array.from(v) }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data, usage: { prompt_tokens: 0 } }));
      } catch (error) {
        res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: String(error) } }));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** A vector from a text's words, each hashed to one of 384 dimensions, normalised. */
export function hashedVector(text) {
  const v = new Float32Array(HASHED_DIMS);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    v[(h >>> 0) % HASHED_DIMS] += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** `embeddingsEndpoint` answering every text with its `hashedVector`. */
export function hashedEmbeddingServer() {
  return embeddingsEndpoint(async (texts) => ({ vectors: texts.map(hashedVector) }));
}

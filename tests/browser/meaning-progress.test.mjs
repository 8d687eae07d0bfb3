// The meaning index's progress in the chat (issue 35), in headless Chromium with the real core:
// while notes are embedded the line above the messages says how many of how many, it goes once
// the index is ready, and an embedding server that refuses the key leaves a line saying search by
// meaning is paused and what to do. The embedding server is a small scripted one in this file
// (deterministic vectors; it holds its first answer until the test has seen the progress line).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { openChat } from "./harness.mjs";
import { tmpVault } from "../node/helpers.mjs";

const CORS = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type, authorization", "access-control-allow-methods": "POST, GET, OPTIONS" };

/** An embedding server answering `status`; with `hold`, its first answer waits for `release()`. */
async function embeddingServer({ status = 200, hold = false } = {}) {
  let release;
  const held = hold ? new Promise((resolve) => (release = resolve)) : Promise.resolve();
  let first = true;
  const server = http.createServer((req, res) => {
    if (req.method === "OPTIONS") return res.writeHead(204, CORS).end();
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const wait = first ? held : Promise.resolve();
      first = false;
      await wait;
      if (status !== 200) {
        res.writeHead(status, { ...CORS, "content-type": "application/json" });
        return res.end(JSON.stringify({ error: { message: "Invalid API key", type: "invalid_request_error" } }));
      }
      const { input } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const data = input.map((text, index) => ({ index, embedding: Array.from({ length: 8 }, (_, i) => Math.cos(text.length * (i + 1))) }));
      res.writeHead(200, { ...CORS, "content-type": "application/json" });
      res.end(JSON.stringify({ data, usage: { prompt_tokens: input.length } }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, release: () => release?.(), close: () => server.close() };
}

function vaultWithNotes() {
  const vault = tmpVault();
  for (const name of ["Apples", "Bikes", "Clouds"]) writeFileSync(path.join(vault, `${name}.md`), `# ${name}\n\nA note about ${name.toLowerCase()}.\n`);
  return vault;
}

const open = [];
after(async () => {
  for (const thing of open) await thing.close();
});

test("while notes are embedded the chat says how many of how many; the line goes once the index is ready", async () => {
  const server = await embeddingServer({ hold: true });
  const chat = await openChat({ vault: vaultWithNotes(), query: `?model=scripted&embeddings=${encodeURIComponent(server.url)}` });
  open.push(chat, server);
  const { page } = chat;
  await page.waitForFunction(() => window.__meaningTexts.some((t) => t.startsWith("Embedding notes for search by meaning:")), null, { timeout: 20_000 });
  assert.match(await page.locator(".smarthole-meaning-index").textContent(), /^Embedding notes for search by meaning: \d+ of 3 notes$/);
  assert.equal(await page.locator(".smarthole-meaning-index").isVisible(), true);
  server.release();
  await page.waitForFunction(() => window.__meaningTexts.at(-1) === "", null, { timeout: 20_000 });
  assert.equal(await page.locator(".smarthole-meaning-index").isVisible(), false);
  assert.deepEqual(chat.errors, []);
});

test("an embedding server that refuses the key leaves a line: paused, and what to do", async () => {
  const server = await embeddingServer({ status: 401 });
  const chat = await openChat({ vault: vaultWithNotes(), query: `?model=scripted&embeddings=${encodeURIComponent(server.url)}` });
  open.push(chat, server);
  const { page } = chat;
  await page.waitForFunction(() => window.__meaningTexts.some((t) => t.startsWith("Search by meaning paused:")), null, { timeout: 20_000 });
  const line = await page.locator(".smarthole-meaning-index").textContent();
  assert.match(line, /^Search by meaning paused: .*key/i, line);
  await chat.shot("meaning-paused");
  assert.deepEqual(chat.errors, []);
});

// Search by meaning on a phone with the vectors a desktop built (issue 35): the meaning index
// built once on the "desktop" (the panel page over a vault folder, the offline embedding model
// behind a counting proxy), its files and the notes synced into the emulated phone's vault
// (tests/browser/mobile-harness.mjs); there the Related notes view and search_files by meaning
// answer while the only text sent to the embedding server is the search's query. Then with no
// reachable embedding server, search_files answers by words and says search by meaning is
// unavailable, and the Related notes view still answers from the stored vectors.
// Screenshots: target/screenshots/mobile-related-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { openChat } from "./harness.mjs";
import { openPhone, tapSend } from "./mobile-harness.mjs";
import { NOTES, countingProxy, embeddingServer, vaultWith } from "./embeddings.mjs";
import { freePort, waitFor } from "../node/helpers.mjs";

let server;
let phone;
/** The vault as the desktop left it: the notes and .smarthole/meaning/ ({path: text}). */
let synced;
let embeddedOnDesktop;

before(async () => {
  server = embeddingServer();
  phone = await openPhone();
});
after(async () => {
  await phone?.close();
  server?.stop();
});

/** The tool result the scripted model received last. */
const lastToolResult = (model) => {
  const block = model.requests.at(-1).body.messages.at(-1).content.find((b) => b.type === "tool_result");
  return typeof block.content === "string" ? block.content : block.content.map((c) => c.text ?? "").join("");
};

/** Opens the Related notes view (the command, in the right drawer) on a note; resolves with
 *  the paths it lists once the core has the whole index (no status line). */
async function relatedOnPhone(note) {
  const { page } = phone;
  await page.evaluate(() => window.mobile.command("open-related-notes"));
  await page.evaluate((note) => window.mobile.openNote(note), note);
  await page.waitForFunction(() => document.querySelectorAll(".smarthole-related-open").length > 0 && !document.querySelector(".smarthole-related-status:not(.smarthole-hidden)"), null, { timeout: 60_000 });
  return page.evaluate(() => [...document.querySelectorAll(".smarthole-related-open")].map((b) => b.dataset.path));
}

test("the desktop builds the meaning index once", async () => {
  const vault = vaultWith(NOTES);
  const proxy = await countingProxy(server.url);
  const release = proxy.hold();
  const desktop = await openChat({ vault, query: `?embeddings=${encodeURIComponent(proxy.url)}&embeddingsModel=${encodeURIComponent(server.model)}` });
  try {
    // Listening before any passage can be embedded (the proxy holds them), so ready is not missed.
    await desktop.page.evaluate(() => {
      window.__meaningReady = new Promise((resolve) => window.smarthole.runtime.subscribe((e) => e.type === "meaning_index" && e.state === "ready" && resolve(e)));
    });
    release();
    const ready = await desktop.page.evaluate(() => window.__meaningReady);
    assert.equal(ready.notes, Object.keys(NOTES).length);
    const meaning = path.join(vault, ".smarthole/meaning");
    // Written after ready is said: the notes file last, after the vector files.
    await waitFor(() => existsSync(path.join(meaning, "notes.txt")), 20_000, "the meaning index on disk");
    embeddedOnDesktop = proxy.texts().length;
    assert.ok(embeddedOnDesktop >= ready.passages, `every passage embedded (${embeddedOnDesktop} texts for ${ready.passages} passages)`);
    synced = { ...NOTES };
    for (const name of readdirSync(meaning)) synced[`.smarthole/meaning/${name}`] = readFileSync(path.join(meaning, name), "utf8");
    assert.ok(Object.keys(synced).some((k) => /vectors-\d+\.txt$/.test(k)), `vector files: ${Object.keys(synced)}`);
  } finally {
    await desktop.close();
    await proxy.close();
  }
});

test("the phone answers by meaning from the desktop's vectors: only the query is embedded", async () => {
  assert.ok(synced, "the desktop built the index");
  const { page, model } = phone;
  const proxy = await countingProxy(server.url);
  try {
    await phone.boot({ files: synced, settings: { embeddingsBaseUrl: proxy.url, embeddingsModel: server.model } });
    // Related notes on the phone: the whole index there, nothing sent to be embedded.
    const related = await relatedOnPhone("Recipes/Sourdough.md");
    assert.equal(related[0], "Kitchen/Appliances.md", `closest first: ${related}`);
    assert.deepEqual(proxy.posts, [], "no passage embedded again on the phone");
    await phone.shot("related-notes");
    // A finger's size.
    const box = await page.locator(".smarthole-related-open").first().boundingBox();
    assert.ok(box.height >= 44, `touch target ${box.height}px high`);
    // Tapping a note opens it at its passage.
    await page.tap(".smarthole-related-open");
    const opened = await page.evaluate(() => window.mobile.opened.at(-1));
    assert.equal(opened.path, "Kitchen/Appliances.md");
    assert.match(NOTES["Kitchen/Appliances.md"].split("\n")[opened.line], /Bread maker|Knead the dough/, "at the passage (0-based eState line)");
    // search_files by meaning through the chat: one request, the query's.
    await page.evaluate(() => window.mobile.command("open-chat"));
    model.enqueue({ kind: "tool_use", tools: [{ name: "search_files", input: { query: "how do I make a loaf at home", mode: "meaning" } }] }, { kind: "text", text: "Found your bread notes." });
    await tapSend(page, "Which notes are about making bread?");
    await page.waitForFunction(() => [...document.querySelectorAll(".smarthole-msg-assistant")].at(-1)?.textContent?.includes("Found your bread notes."));
    const result = lastToolResult(model);
    assert.match(result, /by meaning, best first/);
    assert.ok(result.indexOf("Kitchen/Appliances.md") >= 0 && result.indexOf("Kitchen/Appliances.md") < result.indexOf("Finance/Budget.md"), result);
    assert.equal(proxy.posts.length, 1, `one request: ${JSON.stringify(proxy.posts)}`);
    assert.equal(proxy.texts().length, 1);
    assert.match(proxy.texts()[0], /how do I make a loaf at home/);
    assert.deepEqual(phone.errors, []);
  } finally {
    await proxy.close();
  }
});

test("no reachable embedding server on the phone: search_files by words, saying meaning is unavailable", async () => {
  assert.ok(synced, "the desktop built the index");
  const { page, model } = phone;
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  await phone.boot({ files: synced, settings: { embeddingsBaseUrl: nowhere, embeddingsModel: server.model } });
  // The stored vectors still relate notes (no request needed).
  const related = await relatedOnPhone("Recipes/Sourdough.md");
  assert.equal(related[0], "Kitchen/Appliances.md");
  await page.evaluate(() => window.mobile.command("open-chat"));
  model.enqueue({ kind: "tool_use", tools: [{ name: "search_files", input: { query: "bread", mode: "hybrid" } }] }, { kind: "text", text: "Searched by words." });
  await tapSend(page, "Find my notes about bread");
  await page.waitForFunction(() => [...document.querySelectorAll(".smarthole-msg-assistant")].at(-1)?.textContent?.includes("Searched by words."), null, { timeout: 60_000 });
  const result = lastToolResult(model);
  assert.match(result, /Kitchen\/Appliances\.md/, "found by its words");
  assert.match(result, /search by meaning is unavailable \(.*could not embed the query.*\): these results are by words/s, result);
  assert.deepEqual(phone.errors, []);
});

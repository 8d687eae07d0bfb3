// The Related notes view (issue 35) in headless Chromium over the real core and the offline
// embedding model (tests/browser/embeddings.mjs): a vault of a few notes, the note open before
// the meaning index is built (the view says so), the index built (the view asks again by itself),
// the note closest in meaning listed first with the passage relating them, reached with Tab and
// opened with Enter at that passage; with search by meaning off, the view says how to turn it on.
// Screenshots: target/screenshots/related-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openChat } from "./harness.mjs";
import { NOTES, countingProxy, embeddingServer, shown, vaultWith } from "./embeddings.mjs";

let server;
let proxy;
before(async () => {
  server = embeddingServer();
  proxy = await countingProxy(server.url);
});
after(async () => {
  await proxy?.close();
  server?.stop();
});

test("the view lists the note closest in meaning first, with its passage, and opens it from the keyboard", async () => {
  const release = proxy.hold();
  const query = `?related&embeddings=${encodeURIComponent(proxy.url)}&embeddingsModel=${encodeURIComponent(server.model)}`;
  const chat = await openChat({ vault: vaultWith(NOTES), query });
  try {
    const { page } = chat;
    await page.evaluate(() => window.smarthole.openFile("Recipes/Sourdough.md"));
    // Nothing embedded yet (the server's answers are held): the view says why there is no list.
    await page.waitForFunction(() => /meaning index/i.test(document.querySelector(".smarthole-related-status")?.textContent ?? ""));
    assert.deepEqual((await shown(page)).notes, []);
    assert.equal((await shown(page)).heading, "Related to Sourdough");
    release();
    // The index gets built; the view asks again by itself once it moved.
    await page.waitForFunction(() => document.querySelectorAll(".smarthole-related-open").length >= 1 && !document.querySelector(".smarthole-related-status:not(.smarthole-hidden)"), null, { timeout: 60_000 });
    const view = await shown(page);
    const first = view.notes[0];
    assert.equal(first.path, "Kitchen/Appliances.md", `closest first: ${JSON.stringify(view.notes.map((n) => n.path))}`);
    assert.deepEqual({ title: first.title, folder: first.folder }, { title: "Appliances", folder: "Kitchen" });
    assert.match(first.passage, /Knead the dough with yeast/, "the passage that relates them");
    assert.doesNotMatch(first.passage, /dishwasher/i, "not the note's other section");
    assert.equal(first.describedBy, first.passage, "the passage describes the button for a screen reader");
    assert.match(first.label, /^Open Appliances, in Kitchen, at line \d+$/);
    assert.ok(!view.notes.some((n) => n.path === "Recipes/Sourdough.md"), "not the open note itself");
    await chat.shot("related-notes");
    // Keyboard: Tab reaches the first note, Enter opens it at the passage's first line.
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.path), "Kitchen/Appliances.md");
    await page.keyboard.press("Enter");
    const opened = await page.evaluate(() => window.smarthole.opened);
    const line = Number(first.label.match(/line (\d+)$/)[1]);
    assert.deepEqual(opened, [{ path: "Kitchen/Appliances.md", line }]);
    const atLine = NOTES["Kitchen/Appliances.md"].split("\n")[line - 1];
    assert.match(atLine, /Bread maker|Knead the dough/, `line ${line} is in the bread maker's section`);
    // The note opened is now the open one: the view follows it.
    await page.waitForFunction(() => document.querySelector(".smarthole-related-heading")?.textContent === "Related to Appliances");
    await page.waitForFunction(() => document.querySelector(".smarthole-related-open")?.dataset.path === "Recipes/Sourdough.md");
    assert.deepEqual(chat.errors, []);
  } finally {
    await chat.close();
  }
});

test("with search by meaning off, the view says how to turn it on", async () => {
  const chat = await openChat({ vault: vaultWith(NOTES), query: "?related" });
  try {
    const { page } = chat;
    await page.evaluate(() => window.smarthole.openFile("Recipes/Sourdough.md"));
    await page.waitForFunction(() => /off/.test(document.querySelector(".smarthole-related-status")?.textContent ?? ""));
    const view = await shown(page);
    assert.deepEqual(view.notes, []);
    assert.match(view.status, /Search by meaning is off: set an embedding server in the settings/);
    await chat.shot("related-off");
    assert.deepEqual(chat.errors, []);
  } finally {
    await chat.close();
  }
});

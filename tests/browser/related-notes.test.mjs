// The Related notes view (issue 35) in headless Chromium over the real core and the offline
// embedding model (tests/browser/embeddings.mjs): a vault of a few notes, the note open before
// the meaning index is built (the view says so), the index built (the view asks again by itself),
// the note closest in meaning listed first with the passage relating them, reached with Tab and
// opened with Enter at that passage; with search by meaning off, the view says how to turn it on.
// Screenshots: target/screenshots/related-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openChat } from "./harness.mjs";
import { countingProxy, embeddingServer } from "./embeddings.mjs";
import { tmpVault } from "../node/helpers.mjs";

/** A few notes on different subjects; the bread maker's section is the sourdough note's kin. */
export const NOTES = {
  "Recipes/Sourdough.md": "# Sourdough\n\nFeed the starter with flour and water the night before.\nMix the dough, let it rise slowly, then bake the loaf in a hot oven until the crust is dark.\n",
  "Kitchen/Appliances.md":
    "# Appliances\n\n## Dishwasher\n\nThe dishwasher's filter is cleaned every month; the manual is in the top drawer.\n\n## Bread maker\n\nKnead the dough with yeast, let it rise, and bake a crusty loaf of bread at home.\n",
  "Garden/Tomatoes.md": "# Tomatoes\n\nPlant tomatoes in full sun, water them deeply twice a week, and tie the stems to stakes.\n",
  "Finance/Budget.md": "# Budget\n\nMonthly budget: rent, groceries and savings. Put ten percent of each paycheck aside.\n",
  "Travel/Kyoto.md": "# Kyoto\n\nTrip to Kyoto in April: the temples, the cherry blossoms, a rail pass for the trains.\n",
};

/** A vault folder holding `notes`. */
export function vaultWith(notes) {
  const vault = tmpVault();
  for (const [name, text] of Object.entries(notes)) {
    mkdirSync(path.dirname(path.join(vault, name)), { recursive: true });
    writeFileSync(path.join(vault, name), text);
  }
  return vault;
}

/** What the view shows: its heading, its status line, and each note's button. */
export const shown = (page) =>
  page.evaluate(() => ({
    heading: document.querySelector(".smarthole-related-heading")?.textContent ?? null,
    status: document.querySelector(".smarthole-related-status:not(.smarthole-hidden)")?.textContent ?? "",
    notes: [...document.querySelectorAll(".smarthole-related-open")].map((b) => ({
      path: b.dataset.path,
      label: b.getAttribute("aria-label"),
      title: b.querySelector(".smarthole-related-title")?.textContent,
      folder: b.querySelector(".smarthole-related-folder")?.textContent ?? "",
      passage: b.querySelector(".smarthole-related-passage")?.textContent,
      describedBy: document.getElementById(b.getAttribute("aria-describedby") ?? "")?.textContent,
    })),
  }));

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

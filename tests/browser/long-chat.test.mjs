// A long conversation (issue 19): 20,000 messages written in the stored format open with the
// newest answer visible and Send enabled, with few DOM elements; scrolling to the top loads
// older messages a page at a time, the view staying on what was shown. Timings are in bench/ (not here).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tmpVault } from "../node/helpers.mjs";
import { openChat } from "./harness.mjs";

/** Writes a conversation of `messages` messages (user and answer, one turn each pair), recent. */
export function longConversation(vault, messages, id = "conv-long") {
  const dir = path.join(vault, ".smarthole/conversations");
  mkdirSync(dir, { recursive: true });
  const ts = new Date().toISOString();
  const parts = [];
  for (let i = 0; i < messages / 2; i++) {
    const m = `m${i}`;
    const base = { messageId: m, source: "direct", visible: true, ts };
    parts.push(JSON.stringify({ id: `${m}#0`, ...base, role: "user", content: [{ type: "text", text: `question ${i}` }] }));
    const answer = `answer ${i}: some **Markdown** text`;
    parts.push(JSON.stringify({ id: `${m}#1`, ...base, role: "assistant", content: [{ type: "text", text: answer }], turn: { toolsUsed: [] } }));
  }
  writeFileSync(path.join(dir, `${id}.jsonl`), parts.join("\n") + "\n");
  const conversation = { id, status: "active", title: "Long", createdAt: ts, state: {} };
  writeFileSync(path.join(dir, "index.json"), JSON.stringify({ current: id, conversations: [conversation] }));
  return vault;
}

const MESSAGES = 20_000;
let chat;
before(async () => {
  chat = await openChat({ vault: longConversation(tmpVault(), MESSAGES) });
});
after(() => chat?.close());

const answers = (page) => page.locator(".smarthole-msg-assistant");

test("20,000 messages open with the newest answer visible, Send enabled, few DOM elements", async () => {
  const { page } = chat;
  await page.waitForSelector(".smarthole-send:not([disabled])");
  await page.waitForSelector(`.smarthole-msg-assistant >> text=answer ${MESSAGES / 2 - 1}:`);
  const newest = answers(page).last();
  assert.match(await newest.textContent(), new RegExp(`answer ${MESSAGES / 2 - 1}:`));
  assert.ok(await newest.isVisible());
  const box = await newest.boundingBox();
  const view = await page.locator(".smarthole-messages").boundingBox();
  assert.ok(box && view && box.y + box.height <= view.y + view.height + 1 && box.y + box.height > view.y, "the newest answer is in view");
  const elements = await page.evaluate(() => document.getElementsByTagName("*").length);
  assert.ok(elements < 3000, `${elements} DOM elements`);
  assert.deepEqual(chat.errors, []);
});

test("scrolling to the top loads the older messages in pages, keeping the view on what was shown", async () => {
  const { page } = chat;
  const firstShown = await answers(page).count();
  assert.ok(firstShown < MESSAGES / 2, "not everything at once");
  // One scroll to the top: the page before is drawn above, and what was at the top stays in view.
  const topText = await answers(page).first().textContent();
  await page.evaluate(() => (document.querySelector(".smarthole-messages").scrollTop = 0));
  await page.waitForFunction((n) => document.querySelectorAll(".smarthole-msg-assistant").length > n, firstShown);
  const scrollTop = await page.evaluate(() => document.querySelector(".smarthole-messages").scrollTop);
  assert.ok(scrollTop > 0, "the scroll position moved down by what was drawn above");
  const kept = page.locator(".smarthole-msg-assistant", { hasText: topText.trim() });
  assert.ok(await kept.isVisible());
  // Four more scrolls to the top: each draws the page before, above, in order and without gaps.
  // (That pages add up to the whole history at any boundary is the native test's: conversation::log.)
  for (let i = 0; i < 4; i++) {
    const shown = await answers(page).count();
    await page.evaluate(() => (document.querySelector(".smarthole-messages").scrollTop = 0));
    await page.waitForFunction((n) => document.querySelectorAll(".smarthole-msg-assistant").length > n, shown);
  }
  const order = await page.evaluate(() =>
    [...document.querySelectorAll(".smarthole-msg-assistant")].map((e) => Number(/answer (\d+):/.exec(e.textContent)?.[1])),
  );
  // Six pages of 40 turns, one of them the hidden "Chat opened" line written when the chat opened.
  assert.equal(order.length, 6 * 40 - 1);
  const newest = MESSAGES / 2 - 1;
  assert.ok(order.every((n, i) => n === newest - order.length + 1 + i), "the newest answers, oldest first, none missing");
  assert.deepEqual(chat.errors, []);
});

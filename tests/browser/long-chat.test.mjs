// A long conversation (issue 19): 20,000 messages written in the stored format open with the
// newest answer visible and Send enabled, with few DOM elements; scrolling to the top loads
// older messages a page at a time in a window, the view staying on what was shown. Timings are in
// bench/long-chat.mjs (not here); the whole way up and back, and streaming meanwhile: long-chat-window.test.mjs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { tmpVault } from "../node/helpers.mjs";
import { openChat } from "./harness.mjs";
import { longConversation } from "./long-history.mjs";

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

/** The answer numbers in the page, top to bottom. */
const shownAnswers = (page) =>
  page.evaluate(() => [...document.querySelectorAll(".smarthole-msg-assistant")].map((e) => Number(/answer (\d+):/.exec(e.textContent)?.[1])));
const elementCount = (page) => page.evaluate(() => document.getElementsByTagName("*").length);
const messagesBox = ".smarthole-messages";

test("scrolling up draws the page before above, the view stays on what was shown, and the page stays small", async () => {
  const { page } = chat;
  const firstShown = await answers(page).count();
  assert.ok(firstShown < MESSAGES / 2, "not everything at once");
  const topText = await answers(page).first().textContent();
  const topNumber = (await shownAnswers(page))[0];
  await page.evaluate((box) => (document.querySelector(box).scrollTop = 0), messagesBox);
  await page.waitForFunction((n) => Number(/answer (\d+):/.exec(document.querySelector(".smarthole-msg-assistant").textContent)?.[1]) < n, topNumber);
  const scrollTop = await page.evaluate((box) => document.querySelector(box).scrollTop, messagesBox);
  assert.ok(scrollTop > 0, "the scroll position moved down by what was drawn above");
  assert.ok(await page.locator(".smarthole-msg-assistant", { hasText: topText.trim() }).isVisible(), "what was at the top stays in view");
  // Ten more pages up: the older pages kept are a window; the newest page stays.
  for (let i = 0; i < 10; i++) {
    const before = (await shownAnswers(page))[0];
    await page.evaluate((box) => (document.querySelector(box).scrollTop = 0), messagesBox);
    await page.waitForFunction((n) => Number(/answer (\d+):/.exec(document.querySelector(".smarthole-msg-assistant").textContent)?.[1]) < n, before);
    assert.ok((await elementCount(page)) < 3000, `${await elementCount(page)} elements after ${i + 2} pages`);
  }
  const order = await shownAnswers(page);
  assert.ok(order.every((n, i) => i === 0 || n > order[i - 1]), "oldest first");
  assert.equal(order.at(-1), MESSAGES / 2 - 1, "the newest answer is still drawn, below");
  assert.ok(order.length < 6 * 40, `a window of pages, not all of them (${order.length} answers drawn)`);
  assert.deepEqual(chat.errors, []);
});

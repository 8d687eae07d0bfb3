// The chat view's window over a long history (issue 19): scrolling from the newest message to the
// very first and back down shows every message exactly once and in order, with the page's element
// count bounded all the way; a message sent then is answered at the end; and an answer streaming
// while older pages are drawn above stays whole and last.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { tmpVault } from "../node/helpers.mjs";
import { openChat } from "./harness.mjs";
import { longConversation } from "./long-history.mjs";

const MESSAGES = 2_400;
let chat;
before(async () => {
  chat = await openChat({ vault: longConversation(tmpVault(), MESSAGES) });
  await chat.page.waitForSelector(".smarthole-send:not([disabled])");
  await chat.page.waitForSelector(`.smarthole-msg-assistant >> text=answer ${MESSAGES / 2 - 1}:`);
});
after(() => chat?.close());

const numbers = (page) =>
  page.evaluate(() => [...document.querySelectorAll(".smarthole-msg-assistant")].map((e) => Number(/answer (\d+):/.exec(e.textContent)?.[1] ?? -1)));
const elements = (page) => page.evaluate(() => document.getElementsByTagName("*").length);
const scroll = (page, to) =>
  page.evaluate((to) => {
    const box = document.querySelector(".smarthole-messages");
    box.scrollTop = to === "top" ? 0 : box.scrollHeight;
  }, to);

/** Scrolls toward `to` until what is drawn stops changing; returns every answer number seen. */
async function scrollAll(page, to, seen) {
  let last = "";
  for (let steady = 0; steady < 3; ) {
    await scroll(page, to);
    await page.waitForTimeout(150);
    const shown = await numbers(page);
    const count = await elements(page);
    assert.ok(count < 3000, `${count} elements`);
    const real = shown.filter((n) => n >= 0);
    assert.ok(real.every((n, i) => i === 0 || n > real[i - 1]), `in order: ${real.slice(0, 5)}…`);
    real.forEach((n) => seen.add(n));
    const key = real.join(",");
    steady = key === last ? steady + 1 : 0;
    last = key;
  }
  return seen;
}

test("from the newest message to the first and back: every message once, in order, the page small", async () => {
  const { page } = chat;
  const seen = await scrollAll(page, "top", new Set());
  assert.equal(seen.size, MESSAGES / 2, "every answer was drawn on the way up");
  assert.equal((await numbers(page))[0], 0, "the first answer is at the top");
  await scrollAll(page, "bottom", new Set());
  const back = (await numbers(page)).filter((n) => n >= 0);
  assert.equal(back.at(-1), MESSAGES / 2 - 1, "the newest answer is at the bottom again");
  // Back at the bottom, what is drawn runs without a gap to the newest answer.
  assert.ok(back.every((n, i) => i === 0 || n === back[i - 1] + 1), "contiguous down to the newest");
  assert.deepEqual(chat.errors, []);
});

test("an answer streaming while older pages are drawn above stays whole and last", async () => {
  const { page, model } = chat;
  await scroll(page, "bottom");
  model.enqueue({ kind: "text", text: "streamed " + "word ".repeat(120) + "end.", delayMs: 15 });
  await page.fill(".smarthole-input", "a new question");
  await page.click(".smarthole-send");
  // While it streams, the user scrolls up: pages are drawn above.
  await page.waitForSelector(".smarthole-msg-assistant >> text=streamed");
  const before = (await numbers(page)).filter((n) => n >= 0)[0];
  for (let i = 0; i < 3; i++) {
    await scroll(page, "top");
    await page.waitForTimeout(120);
  }
  assert.ok((await numbers(page)).filter((n) => n >= 0)[0] < before, "older pages were drawn meanwhile");
  await page.waitForSelector(".smarthole-send >> text=Send", { timeout: 30_000 });
  const last = await page.evaluate(() => {
    const all = [...document.querySelectorAll(".smarthole-messages > .smarthole-msg")];
    return all.slice(-2).map((e) => e.textContent);
  });
  assert.match(last[0], /a new question/);
  assert.match(last[1], /streamed (word ){120}end\./, "the answer is whole, and last");
  await scroll(page, "bottom");
  assert.deepEqual(chat.errors, []);
});

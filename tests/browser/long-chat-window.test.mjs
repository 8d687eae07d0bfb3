// The chat view's window over a long history (issue 19): scrolling from the newest message to the
// very first and back down shows every message exactly once and in order, with the page's element
// count bounded all the way; a message sent then is answered at the end; and an answer streaming
// while the user scrolls up leaves them where they read, pages drawn above, the answer whole and last.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { tmpVault } from "../node/helpers.mjs";
import path from "node:path";
import { openChat, SCREENSHOTS } from "./harness.mjs";
import { longConversation, scrollAndSettle } from "./long-history.mjs";

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

/** Scrolls toward `to` until what is drawn stops changing; returns every answer number seen. */
async function scrollAll(page, to, seen) {
  let last = "";
  for (let steady = 0; steady < 3; ) {
    await scrollAndSettle(page, to);
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

test("an answer streaming while the user scrolls up: they stay where they read, older pages are drawn, the answer stays whole and last, a button goes back", async () => {
  const { page, model } = chat;
  await scrollAndSettle(page, "bottom");
  // 40 pieces 150 ms apart: the answer is still streaming while the user reads.
  const pieces = Array.from({ length: 40 }, (_, i) => `word${i} `);
  model.enqueue({ kind: "text", text: "streamed " + pieces.join("") + "end.", chunks: ["streamed ", ...pieces, "end."], delayMs: 150 });
  await page.fill(".smarthole-input", "a new question");
  await page.click(".smarthole-send");
  await page.waitForSelector(".smarthole-msg-assistant >> text=streamed");
  // While it streams, the user scrolls up three times; each time a page is drawn above.
  let top = (await numbers(page)).filter((n) => n >= 0)[0];
  for (let i = 0; i < 3; i++) {
    await scrollAndSettle(page, "top");
    await page.waitForFunction(
      (top) => [...document.querySelectorAll(".smarthole-msg-assistant")].some((e) => Number(/answer (\d+):/.exec(e.textContent)?.[1] ?? Infinity) < top),
      top,
      { timeout: 15_000 },
    );
    top = (await numbers(page)).filter((n) => n >= 0)[0];
  }
  // The text that keeps arriving does not pull the view back down.
  const streamed = () => page.evaluate(() => document.querySelector(".smarthole-messages > .smarthole-msg:last-child")?.textContent.length ?? 0);
  const atEnd = () => page.evaluate(() => {
    const box = document.querySelector(".smarthole-messages");
    return box.scrollHeight - box.scrollTop - box.clientHeight <= 80;
  });
  const grown = await streamed();
  await page.waitForFunction((n) => (document.querySelector(".smarthole-messages > .smarthole-msg:last-child")?.textContent.length ?? 0) > n + 20, grown);
  assert.equal(await page.locator(".smarthole-send").textContent(), "Stop", "still streaming");
  assert.equal(await atEnd(), false, "the view stays where the user scrolled while text arrives");
  await page.waitForSelector(".smarthole-send >> text=Send", { timeout: 30_000 });
  assert.equal(await atEnd(), false, "the finished answer does not pull the view down either");
  const last = await page.evaluate(() => {
    const all = [...document.querySelectorAll(".smarthole-messages > .smarthole-msg")];
    return all.slice(-2).map((e) => e.textContent);
  });
  assert.match(last[0], /a new question/);
  assert.match(last[1], /streamed (word\d+ ){40}end\./, "the answer is whole, and last");
  // Away from the end, a button goes back to it, and goes itself once there.
  assert.ok(await page.isVisible(".smarthole-jump"), "the way back to the newest message is shown");
  await page.screenshot({ path: path.join(SCREENSHOTS, "chat-reading-back.png") });
  await page.click(".smarthole-jump");
  await page.waitForSelector(".smarthole-jump", { state: "hidden" });
  assert.equal(await atEnd(), true, "the button went to the end");
  // Back at the end, the next answer is followed as it streams.
  model.enqueue({ kind: "text", text: "followed " + "word ".repeat(200) + "done.", delayMs: 5 });
  await page.fill(".smarthole-input", "another");
  await page.click(".smarthole-send");
  await page.waitForSelector(".smarthole-send >> text=Send", { timeout: 30_000 });
  await page.waitForSelector(".smarthole-msg-assistant >> text=done.");
  assert.equal(await atEnd(), true, "an answer streamed while at the end is followed to its end");
  assert.deepEqual(chat.errors, []);
});

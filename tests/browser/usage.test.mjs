// Issue 17 in the chat view: under each answer, the tokens the scripted server reported for the
// turn (in, the share from the cache, out) and the conversation's total; both from the numbers
// the server returned, with its simulated prompt cache off (every input token fresh).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { tmpVault } from "../node/helpers.mjs";
import { openChat, type } from "./harness.mjs";
import { longConversation, scrollAndSettle } from "./long-history.mjs";

let chat;
before(async () => {
  chat = await openChat();
});
after(() => chat?.close());

const n = (x) => x.toLocaleString("en-US");
/** A token count as the view shows it: thousands past 10,000. */
const tokens = (x) => (x >= 10_000 ? `${Math.round(x / 1000)}k` : n(x));

test("each answer shows the usage the server returned, and the conversation its sum", async () => {
  const { page, model } = chat;
  await page.waitForSelector(".smarthole-send:not([disabled])");
  const served = [];
  for (const [i, text] of ["First answer.", "Second answer, a little longer than the first."].entries()) {
    model.enqueue({ kind: "text", text });
    const from = model.requests.length;
    await type(page, `question ${i}`);
    await page.waitForFunction((count) => document.querySelectorAll(".smarthole-usage:not(:empty)").length === count, i + 1);
    const usage = model.requests[from].usage;
    served.push(usage);
    const shown = await page.locator(".smarthole-msg-assistant").last().locator(".smarthole-usage").textContent();
    assert.equal(shown, `${n(usage.input_tokens)} in, 0 % from cache · ${n(usage.output_tokens)} out`);
  }
  const total = await page.locator(".smarthole-usage-total").textContent();
  const sum = (k) => served.reduce((a, u) => a + u[k], 0);
  assert.equal(total, `This conversation: ${n(sum("input_tokens"))} in, 0 % from cache · ${n(sum("output_tokens"))} out`);
  assert.deepEqual(chat.errors, []);
});

test("a long conversation's total is every turn's, however much of it is drawn or scrolled through", async () => {
  const turns = 300;
  const usage = (i) => ({ inputTokens: 1000 + i, cacheCreationInputTokens: 0, cacheReadInputTokens: 0, outputTokens: 10 + (i % 7), modelCalls: 1 });
  const long = await openChat({ vault: longConversation(tmpVault(), turns * 2, "conv-long", usage) });
  try {
    const { page } = long;
    await page.waitForSelector(".smarthole-send:not([disabled])");
    await page.waitForSelector(`.smarthole-msg-assistant >> text=answer ${turns - 1}:`);
    let input = 0;
    let output = 0;
    for (let i = 0; i < turns; i++) (input += usage(i).inputTokens), (output += usage(i).outputTokens);
    const expected = `This conversation: ${tokens(input)} in, 0 % from cache · ${n(output)} out`;
    const total = () => page.locator(".smarthole-usage-total").textContent();
    await page.waitForFunction((t) => document.querySelector(".smarthole-usage-total")?.textContent === t, expected);
    const drawn = await page.locator(".smarthole-msg-assistant").count();
    assert.ok(drawn < turns, `only some pages drawn (${drawn}), the total still every turn's`);
    // Up to the first answer and back: pages drawn, dropped and drawn again add nothing.
    for (const to of ["top", "bottom"]) {
      for (let k = 0; k < 12; k++) {
        await scrollAndSettle(page, to);
      }
    }
    assert.equal(await total(), expected);
    assert.deepEqual(long.errors, []);
  } finally {
    await long.close();
  }
});

test("an answer that finishes while the conversation's total is being read is in the total", async () => {
  // 40,000 turns, only the first with tokens: the core takes a while to add them all up, and a
  // message sent as soon as the newest answer shows is answered meanwhile.
  const turns = 40_000;
  const usage = (i) => ({ inputTokens: i === 0 ? 5000 : 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0, outputTokens: i === 0 ? 100 : 0, modelCalls: 1 });
  const long = await openChat({ vault: longConversation(tmpVault(), turns * 2, "conv-long", usage) });
  try {
    const { page, model } = long;
    await page.waitForSelector(`.smarthole-msg-assistant >> text=answer ${turns - 1}:`);
    await page.waitForSelector(".smarthole-send:not([disabled])");
    model.enqueue({ kind: "text", text: "Answered while the total was read." });
    const from = model.requests.length;
    await type(page, "a question sent at once");
    await page.waitForSelector(".smarthole-msg-assistant >> text=Answered while the total was read.");
    await page.waitForFunction(() => document.querySelector(".smarthole-msg-assistant:last-child .smarthole-usage")?.textContent);
    const served = model.requests[from].usage;
    const expected = `This conversation: ${tokens(5000 + served.input_tokens)} in, 0 % from cache · ${n(100 + served.output_tokens)} out`;
    await page.waitForFunction((t) => document.querySelector(".smarthole-usage-total")?.textContent === t, expected, { timeout: 10_000 }).catch(() => {});
    assert.equal(await page.locator(".smarthole-usage-total").textContent(), expected);
    assert.deepEqual(long.errors, []);
  } finally {
    await long.close();
  }
});

// Issue 17 in the chat view: under each answer, the tokens the scripted server reported for the
// turn (in, the share from the cache, out) and the conversation's total; both from the numbers
// the server returned, with its simulated prompt cache off (every input token fresh).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openChat, type } from "./harness.mjs";

let chat;
before(async () => {
  chat = await openChat();
});
after(() => chat?.close());

const n = (x) => x.toLocaleString("en-US");

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

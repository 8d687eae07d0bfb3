// Issue 17's cost, end to end in the plugin (the mobile harness draws its settings tab): an
// answer from a priced model shows the context window filled and the estimated cost from the
// price table; the table edited in Settings prices the next answer; after a restart the
// conversation's total is the sum of both; Settings' "Today and this month" adds up the ledger.
// Every expected figure is computed here from the usage the scripted server returned.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPhone, tapSend } from "./mobile-harness.mjs";

const MODEL = "claude-sonnet-4-5";
let phone;
before(async () => {
  phone = await openPhone({ throttle: 1 });
});
after(() => phone?.close());

const n = (x) => (x >= 10_000 ? `${Math.round(x / 1000)}k` : x.toLocaleString("en-US"));
const dollars = (c) => `≈ $${c < 0.01 ? c.toFixed(4) : c.toFixed(2)}`;
/** Dollars for a usage at $ per million input / output tokens (the simulated cache is off). */
const costOf = (u, input, output) => (u.input_tokens * input + u.output_tokens * output) / 1e6;

/** Sends `text`, waits for its usage line, and returns the usage the server reported and the line. */
async function turn(text) {
  const { page, model } = phone;
  const before = await page.locator(".smarthole-usage:not(:empty)").count();
  model.enqueue({ kind: "text", text: `An answer to ${text}.` });
  const from = model.requests.length;
  await tapSend(page, text);
  await page.waitForFunction((count) => document.querySelectorAll(".smarthole-usage:not(:empty)").length > count, before);
  const usage = model.requests[from].usage;
  const shown = await page.locator(".smarthole-msg-assistant").last().locator(".smarthole-usage").textContent();
  return { usage, shown };
}

const settingDesc = (name) =>
  phone.page
    .locator(".setting-item")
    .filter({ has: phone.page.locator(".setting-item-name", { hasText: new RegExp(`^${name}$`) }) })
    .locator(".setting-item-description");

test("cost and context from the price table, the table edited in settings, and the day's totals", async () => {
  const { page } = phone;
  await phone.boot({ wipe: true, settings: { model: MODEL } });

  // The default table: $3 / $15 per million tokens, a 200k window.
  const first = await turn("the first question");
  const u1 = first.usage;
  const context1 = u1.input_tokens + u1.output_tokens;
  assert.equal(
    first.shown,
    `${n(u1.input_tokens)} in, 0 % from cache · ${n(u1.output_tokens)} out · context ${Math.round((100 * context1) / 200_000)} % of 200k · ${dollars(costOf(u1, 3, 15))}`,
  );

  // Settings: today's totals are the first call's; the table is edited to ten times the price
  // and a 1,000-token window.
  await page.evaluate(() => window.mobile.openSettings());
  await page.waitForFunction(() => !document.body.textContent.includes("Reading the usage ledger"));
  const today1 = `${n(u1.input_tokens)} in, 0 % from cache · ${n(u1.output_tokens)} out · ${dollars(costOf(u1, 3, 15))}, 1 model call.`;
  assert.equal(await settingDesc("Today and this month").textContent(), `Today: ${today1} This month: ${today1}`);
  const prices = page.locator(".setting-item").filter({ has: page.locator(".setting-item-name", { hasText: /^Prices$/ }) }).locator("textarea");
  assert.match(await prices.inputValue(), new RegExp(`^${MODEL} 3 15 200000$`, "m"), "the defaults are shown");
  await prices.fill(`${MODEL} 30 150 1000`);
  await page.waitForFunction(() => window.mobile.app.__data?.modelPrices?.[0]?.inputPerMtok === 30);
  const saved = await page.evaluate(() => window.mobile.app.__data.modelPrices);
  assert.deepEqual(saved, [{ model: MODEL, inputPerMtok: 30, outputPerMtok: 150, contextWindow: 1000 }]);
  // A line that does not read (the core reads the table): the user is told which and why, and
  // the table saved stays as it was.
  await prices.fill(`${MODEL} 30 150 1000\nclaude-x cheap`);
  await page.waitForFunction(() => window.mobile.notices.some((n) => n.includes("line 2 of the price table")));
  assert.ok(
    (await page.evaluate(() => window.mobile.notices)).includes("line 2 of the price table: the prices of claude-x must be zero or more"),
  );
  assert.deepEqual(await page.evaluate(() => window.mobile.app.__data.modelPrices), saved);

  // Restarted with the saved table: the next answer is priced by it; the conversation's total
  // (drawn from history) is the sum of both answers at the prices each was made under.
  await phone.boot({ settings: { model: MODEL, modelPrices: saved } });
  const second = await turn("the second question");
  const u2 = second.usage;
  const context2 = u2.input_tokens + u2.output_tokens;
  assert.equal(
    second.shown,
    `${n(u2.input_tokens)} in, 0 % from cache · ${n(u2.output_tokens)} out · context ${Math.round((100 * context2) / 1000)} % of 1,000 · ${dollars(costOf(u2, 30, 150))}`,
  );
  const cost = costOf(u1, 3, 15) + costOf(u2, 30, 150);
  const input = u1.input_tokens + u2.input_tokens;
  const output = u1.output_tokens + u2.output_tokens;
  assert.equal(
    await page.locator(".smarthole-usage-total").textContent(),
    `This conversation: ${n(input)} in, 0 % from cache · ${n(output)} out · context ${Math.round((100 * context2) / 1000)} % of 1,000 · ${dollars(cost)}`,
  );

  await page.evaluate(() => window.mobile.openSettings());
  await page.waitForFunction(() => !document.body.textContent.includes("Reading the usage ledger"));
  const today2 = `${n(input)} in, 0 % from cache · ${n(output)} out · ${dollars(cost)}, 2 model calls.`;
  assert.equal(await settingDesc("Today and this month").textContent(), `Today: ${today2} This month: ${today2}`);
  await phone.shot("usage-settings");
  assert.deepEqual(phone.errors, []);
});

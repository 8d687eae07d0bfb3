// The chat's diff cards answered from the keyboard alone, in headless Chromium with the real core:
// a waiting change does not take the focus from the chat's input; Tab reaches its first hunk (a
// group a screen reader names); the keys of hunk-keys.ts accept it, the focus moves to the second,
// the keys reject that one, and the note holds exactly the first hunk's change. A change of one
// hunk takes the same accept key as "Approve once". Screenshots go to target/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openChat, type } from "./harness.mjs";

const NOTE = "Notes/Tasks.md";
const BEFORE = ["# Tasks", "TODO call the bank", ...Array.from({ length: 12 }, (_, i) => `item ${i + 1}`), "TODO water the plants", ""].join("\n");

let chat;
before(async () => {
  chat = await openChat();
  mkdirSync(path.join(chat.vault, "Notes"), { recursive: true });
  writeFileSync(path.join(chat.vault, NOTE), BEFORE);
  await chat.page.waitForSelector(".smarthole-send:not([disabled])");
});
after(() => chat?.close());

const note = () => readFileSync(path.join(chat.vault, NOTE), "utf8");
const answer = (page) => page.locator(".smarthole-msg-assistant").last();
/** What has the focus: a hunk's number, the input, or the element's class. */
const focused = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (el?.classList.contains("smarthole-hunk")) return `hunk ${el.dataset.hunk}`;
    return el?.classList.contains("smarthole-input") ? "input" : (el?.className ?? "none");
  });

/** Presses `key` (Tab or Shift+Tab) until a hunk has the focus; what has it then. */
async function tabToHunk(page, key) {
  let reached = await focused(page);
  for (let presses = 0; presses < 40 && !reached.startsWith("hunk"); presses += 1) {
    await page.keyboard.press(key);
    reached = await focused(page);
  }
  return reached;
}

test("a two-hunk change answered by keys only: Tab to hunk 1, accept it, focus is on hunk 2, reject it", async () => {
  const { page, model } = chat;
  model.enqueue(
    { kind: "tool_use", tools: [{ name: "edit_file", input: { path: NOTE, operation: "replace", old_text: "TODO", new_text: "DONE", replace_all: true } }] },
    { kind: "text", text: "Marked what you said." },
  );
  await type(page, "Mark my tasks done");
  const card = answer(page).locator(".smarthole-approval");
  await card.waitFor();
  assert.equal(await focused(page), "input", "the card does not take the focus from the input");
  const hunks = card.locator(".smarthole-hunk");
  assert.equal(await hunks.count(), 2);
  assert.deepEqual(
    await hunks.evaluateAll((els) => els.map((e) => [e.getAttribute("role"), e.getAttribute("tabindex"), e.getAttribute("aria-label")])),
    [
      ["group", "0", "Change 1 of 2, line 2: 1 line removed, 1 added"],
      ["group", "0", "Change 2 of 2, line 15: 1 line removed, 1 added"],
    ],
  );
  assert.deepEqual(await card.locator(".smarthole-hunk-accept").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label"))), [
    "Accept change 1 of 2",
    "Accept change 2 of 2",
  ]);
  const hint = await card.locator(".smarthole-key-hint").textContent();
  const described = await hunks.first().getAttribute("aria-describedby");
  assert.equal(await page.locator(`[id="${described}"]`).textContent(), hint, "a focused hunk is described by the keys");
  assert.match(hint, /Ctrl or Cmd\+Enter: accept this change/);
  assert.match(hint, /Ctrl or Cmd\+Backspace: reject this change/);
  assert.match(hint, /Alt\+\]: next change/);
  assert.doesNotMatch(hint, /Escape/, "Escape does nothing on a card");

  // From the input, Tab on until the focus is on a hunk: the first one it meets is hunk 1.
  assert.equal(await tabToHunk(page, "Tab"), "hunk 1");
  // Next and previous move between the hunks; Escape leaves the card as it is.
  await page.keyboard.press("Alt+BracketRight");
  assert.equal(await focused(page), "hunk 2");
  await page.keyboard.press("Alt+BracketLeft");
  assert.equal(await focused(page), "hunk 1");
  await page.keyboard.press("Escape");
  assert.equal(await focused(page), "hunk 1");
  await chat.shot("17-diff-card-keys");

  await page.keyboard.press("Control+Enter");
  assert.equal(await focused(page), "hunk 2", "after an answer the focus is on the next hunk not answered");
  assert.equal(note(), BEFORE, "nothing is written before every hunk is answered");
  await page.keyboard.press("Control+Backspace");
  await page.waitForFunction(() => document.body.textContent.includes("Marked what you said."));
  assert.equal(note(), BEFORE.replace("TODO call", "DONE call"), "exactly hunk 1's change");
  assert.equal(await card.locator(".smarthole-approval-outcome").textContent(), "Applied change 1 of 2");
  assert.deepEqual(await hunks.evaluateAll((els) => els.map((e) => e.getAttribute("tabindex"))), ["-1", "-1"], "answered hunks leave the Tab order");
  await chat.shot("18-diff-card-keys-answered");
  assert.deepEqual(chat.errors, []);
});

test("a change of one hunk takes the accept key as Approve once", async () => {
  const { page, model } = chat;
  const now = note();
  model.enqueue(
    { kind: "tool_use", tools: [{ name: "edit_file", input: { path: NOTE, operation: "replace", old_text: "item 5", new_text: "item five" } }] },
    { kind: "text", text: "Spelled it out." },
  );
  await type(page, "Spell out item 5");
  const card = page.locator(".smarthole-approval").nth(1);
  await card.waitFor();
  assert.equal(await focused(page), "input");
  assert.equal(await card.locator(".smarthole-hunk-accept").count(), 0, "no buttons per hunk on a change of one hunk");
  const hint = await card.locator(".smarthole-key-hint").textContent();
  assert.doesNotMatch(hint, /next change|all changes/, "only the keys that work are named");
  // Back from the input (past the card's buttons) to its hunk.
  assert.equal(await tabToHunk(page, "Shift+Tab"), "hunk 1");
  await page.keyboard.press("Control+Enter");
  await page.waitForFunction(() => document.body.textContent.includes("Spelled it out."));
  assert.equal(note(), now.replace("item 5", "item five"));
  assert.equal(await card.locator(".smarthole-approval-outcome").textContent(), "Approved");
  assert.deepEqual(chat.errors, []);
});

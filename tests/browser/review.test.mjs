// Review-first edits as a user sees them, in headless Chromium with the real core: a rewrite of a
// note waits on a card under the tool call that asked, with the diff (removed and added lines, the
// changed words marked, unchanged lines folded); one change accepted and one rejected leaves the
// note with exactly the accepted one; "Undo changes" puts it back byte for byte; reopened, the
// conversation draws the same cards at the same tool calls. Screenshots go to target/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openChat, type } from "./harness.mjs";

const NOTE = "Notes/Plan.md";
const BEFORE = ["# Plan", "alpha is first", ...Array.from({ length: 12 }, (_, i) => `step ${i + 1}`), "omega is last", ""].join("\n");
const REWRITTEN = BEFORE.replace("alpha is first", "ALPHA is first").replace("omega is last", "omega comes last");

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

test("the search index's progress shows above the messages while it builds, and goes once it is ready", async () => {
  const { page } = chat;
  await page.waitForFunction(() => window.__indexTexts.some((t) => t.startsWith("Indexing the vault")));
  await page.waitForFunction(() => window.__indexTexts.at(-1) === "");
  assert.equal(await page.locator(".smarthole-index").isVisible(), false);
});

test("a rewrite waits on a diff card at its tool call; one hunk accepted, one rejected; Undo restores the note", async () => {
  const { page, model } = chat;
  model.enqueue(
    { kind: "tool_use", text: "I will tidy the first and last lines.", tools: [{ name: "write_file", input: { path: NOTE, content: REWRITTEN } }] },
    { kind: "text", text: "Done: the first line is tidied." },
  );
  await type(page, "Tidy my plan");
  const card = answer(page).locator(".smarthole-tool-cards .smarthole-approval");
  await card.waitFor();
  // The card sits under the chip of the call that asked, after the text that came before it.
  const order = await answer(page).evaluate((el) =>
    Array.from(el.querySelector(".smarthole-flow").children).map((c) => `${c.className.split(" ")[0]}:${c.textContent.slice(0, 12)}`),
  );
  assert.deepEqual(order.slice(0, 2), ["smarthole-body:I will tidy ", `smarthole-tool:Write ${NOTE}`.slice(0, 27)]);
  assert.match(order[2], /^smarthole-tool-cards:Approval nee/);
  assert.equal(await answer(page).locator(".smarthole-tool-name").textContent(), `Write ${NOTE}…`);
  assert.equal(await card.locator(".smarthole-diff-path").textContent(), NOTE);
  assert.equal(await card.locator(".smarthole-hunk").count(), 2);
  assert.deepEqual(await card.locator(".smarthole-diff-removed .smarthole-diff-text").allTextContents(), ["alpha is first", "omega is last"]);
  assert.deepEqual(await card.locator(".smarthole-diff-added .smarthole-diff-word").allTextContents(), ["ALPHA", "comes"]);
  assert.match(await card.locator(".smarthole-diff-fold").first().textContent(), /unchanged lines/);
  assert.equal(note(), BEFORE, "nothing is written before the answer");
  await chat.shot("12-diff-card");

  await card.locator(".smarthole-open-note").click();
  assert.deepEqual(await page.evaluate(() => window.smarthole.opened), [{ path: NOTE, line: 1 }]);

  await card.locator('.smarthole-hunk[data-hunk="1"] .smarthole-hunk-accept').click();
  await card.locator('.smarthole-hunk[data-hunk="2"] .smarthole-hunk-reject').click();
  await page.waitForFunction(() => document.body.textContent.includes("Done: the first line is tidied."));
  assert.equal(note(), BEFORE.replace("alpha is first", "ALPHA is first"), "exactly the accepted hunk");
  assert.equal(await card.locator(".smarthole-approval-outcome").textContent(), "Applied change 1 of 2");
  const told = model.requests.at(-1).body.messages.at(-1).content.find((b) => b.type === "tool_result");
  assert.match(told.content, /hunk 1 applied, 2 rejected/);
  assert.equal(await answer(page).locator(".smarthole-tool-name").textContent(), `Write ${NOTE}`);
  await chat.shot("13-hunk-applied");

  await answer(page).locator(".smarthole-undo-button").click();
  await page.waitForFunction(() => document.querySelector(".smarthole-undo-result")?.textContent?.startsWith("Undone"));
  assert.equal(note(), BEFORE, "byte-identical to before");
  assert.equal(await card.locator(".smarthole-approval-outcome").textContent(), "Undone");
  assert.ok(await answer(page).locator(".smarthole-undo-button").isDisabled(), "nothing is left to undo");
  await chat.shot("14-undone");
  assert.deepEqual(chat.errors, []);
});

test("a new note is shown as a diff with Undo; a rejected delete reads so on its chip", async () => {
  const { page, model, vault } = chat;
  writeFileSync(path.join(vault, "Notes/Old.md"), "old\n");
  model.enqueue(
    { kind: "tool_use", tools: [{ name: "write_file", input: { path: "Notes/New.md", content: "# New\nfresh\n" } }] },
    { kind: "tool_use", tools: [{ name: "delete_file", input: { path: "Notes/Old.md" } }] },
    { kind: "text", text: "Created it; kept the old one." },
  );
  await type(page, "Make a new note and delete the old one");
  const created = answer(page).locator(".smarthole-change").first();
  await created.waitFor();
  assert.equal(await created.locator(".smarthole-approval-title").textContent(), "Created Notes/New.md");
  assert.deepEqual(await created.locator(".smarthole-diff-added .smarthole-diff-text").allTextContents(), ["# New", "fresh"]);
  const ask = answer(page).locator(".smarthole-approval");
  await ask.waitFor();
  await ask.locator("button >> text=Reject").click();
  await page.waitForFunction(() => document.body.textContent.includes("Created it; kept the old one."));
  assert.deepEqual(await answer(page).locator(".smarthole-tool-name").allTextContents(), ["Write Notes/New.md", "Delete Notes/Old.md — rejected"]);
  assert.ok(existsSync(path.join(vault, "Notes/Old.md")));
  await chat.shot("15-created-and-rejected");
  await answer(page).locator(".smarthole-undo-button").click();
  await page.waitForFunction(() => Array.from(document.querySelectorAll(".smarthole-undo-result")).at(-1)?.textContent?.startsWith("Undone"));
  assert.ok(!existsSync(path.join(vault, "Notes/New.md")), "the new note went to the trash");
  assert.deepEqual(chat.errors, []);
});

test("reopened, the conversation draws each card at its tool call, as it ended", async () => {
  const { page } = chat;
  await page.reload();
  await page.waitForSelector(".smarthole-send:not([disabled])");
  const first = page.locator(".smarthole-msg-assistant").first();
  await first.locator(".smarthole-approval").waitFor();
  const order = await first.evaluate((el) => Array.from(el.querySelector(".smarthole-flow").children).map((c) => c.className.split(" ")[0]));
  assert.deepEqual(order, ["smarthole-body", "smarthole-tool", "smarthole-tool-cards", "smarthole-body"]);
  assert.equal(await first.locator(".smarthole-approval .smarthole-approval-outcome").textContent(), "Undone");
  assert.equal(await first.locator(".smarthole-hunk").count(), 2);
  assert.equal(await first.locator(".smarthole-undo-result").textContent(), "Changes undone.");
  const second = page.locator(".smarthole-msg-assistant").last();
  assert.deepEqual(await second.locator(".smarthole-tool-name").allTextContents(), ["Write Notes/New.md", "Delete Notes/Old.md — rejected"]);
  assert.equal(await second.locator(".smarthole-change .smarthole-approval-outcome").textContent(), "Undone");
  assert.equal(await second.locator(".smarthole-approval .smarthole-approval-outcome").textContent(), "Rejected");
  await chat.shot("16-reopened");
  assert.deepEqual(chat.errors, []);
});

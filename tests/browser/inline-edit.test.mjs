// Edit in place (issue 36) as a user does it, by keyboard only, in headless Chromium with the real
// core and the real CodeMirror 6 packages: the page's editor (`?editor=PATH`) beside the chat.
// Select → ask → the streamed proposal drawn in the note while the answer is still coming → one
// hunk accepted and one rejected by keys → the note (the editor and the file on disk) holds exactly
// the accepted change → Undo puts it back byte for byte; the user's typing elsewhere while the
// proposal streams survives; Escape mid-answer leaves the note untouched.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { ask, BEFORE, editorText, lineOf, NOTE, REWRITTEN_LINES, scriptEdit, selectLines, openEditorChat } from "./inline-edit-steps.mjs";

let chat;
before(async () => {
  chat = await openEditorChat();
});
after(() => chat?.close());

const onDisk = () => chat.onDisk();

test("select, ask, review by keys: the streamed proposal is drawn inline, the note gets exactly the accepted hunk, Undo restores it", { timeout: 60_000 }, async () => {
  const { page, model } = chat;
  const answer = scriptEdit(model, REWRITTEN_LINES);
  await selectLines(page, 3, 6);
  // The page's stand-in for the command: the "Edit selection" button, reached by Shift+Tab.
  await page.keyboard.press("Shift+Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Edit selection");
  await page.keyboard.press("Enter");
  await ask(page, "Capitalise the first word and tidy the last line");
  assert.match(await page.locator(".smarthole-inline-said").textContent(), /\S/);

  // Drawn while the model is still writing (its last chunk is held back): struck and added lines.
  await page.locator(".smarthole-inline-removed").first().waitFor();
  await page.locator(".smarthole-inline-added").first().waitFor();
  assert.equal(await editorText(page), BEFORE, "drawing does not change the note");
  assert.equal(await page.locator(".smarthole-inline-accept").count(), 0, "no decisions while it writes");

  // The user types in another paragraph meanwhile, a line more under the heading: the proposal
  // stays on the lines it is about.
  await page.keyboard.press("Control+Home");
  await page.keyboard.press("End");
  await page.keyboard.type(" (draft)");
  await page.keyboard.press("Enter");
  await page.keyboard.type("by me");
  const typed = BEFORE.replace("# Plan", "# Plan (draft)\nby me");
  assert.equal(await editorText(page), typed);
  assert.deepEqual(await page.locator(".smarthole-inline-removed").allTextContents(), ["alpha is first"]);
  // The answer goes on (its lines as at the ask): drawn on the lines they are now.
  answer.next();
  await page.waitForFunction(() => document.querySelectorAll(".smarthole-inline-removed").length === 2);
  assert.deepEqual(await page.locator(".smarthole-inline-removed").allTextContents(), ["alpha is first", "beta is second"]);
  assert.deepEqual(await page.locator(".smarthole-inline-added").allTextContents(), ["ALPHA is first", "beta IS second"]);
  assert.equal(await editorText(page), typed);
  answer.last();

  // Review: two hunks, each with its labelled buttons; the removed lines still where they were.
  await page.locator(".cm-editor").getByRole("button", { name: "Accept change 1 of 2" }).waitFor();
  assert.equal(await page.locator(".cm-editor").getByRole("button", { name: "Reject change 2 of 2" }).count(), 1);
  assert.deepEqual(await page.locator(".smarthole-inline-removed").allTextContents(), ["alpha is first", "beta is second", "omega is last"]);
  await chat.shot("inline-01-review");

  // Keys only: to the first hunk, accept it (the cursor goes to the next), reject that one.
  await page.keyboard.press("Control+Home");
  await page.keyboard.press("Alt+BracketRight");
  assert.equal(await page.evaluate(() => window.smarthole.editor.state.doc.lineAt(window.smarthole.editor.state.selection.main.head).text), "alpha is first");
  await page.keyboard.press("Control+Enter");
  assert.equal(await page.evaluate(() => window.smarthole.editor.state.doc.lineAt(window.smarthole.editor.state.selection.main.head).text), "omega is last");
  await page.keyboard.press("Control+Backspace");

  // Applied: the editor and the file hold exactly the accepted hunk and the user's typing.
  await page.locator(".smarthole-inline-undo-button").waitFor();
  const accepted = typed.replace("alpha is first\nbeta is second", "ALPHA is first\nbeta IS second");
  assert.equal(await editorText(page), accepted);
  assert.equal(await onDisk(), accepted);
  assert.equal(await page.locator(".smarthole-inline-removed, .smarthole-inline-hunk").count(), 0, "the proposal is gone");
  await page.locator(".smarthole-msg-assistant .smarthole-undo-button").waitFor();
  await chat.shot("inline-02-applied");

  // Undo by keyboard: Tab from the editor reaches the widget's button.
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Undo the agent's changes");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector(".smarthole-inline-undo-status")?.textContent === "Changes undone.");
  assert.equal(await editorText(page), typed, "byte for byte as before the change");
  assert.equal(await onDisk(), typed);
  assert.deepEqual(chat.errors, []);
});

test("Escape while the answer streams stops it and drops the proposal; the note is untouched", { timeout: 60_000 }, async () => {
  const { page, model } = chat;
  const before = await editorText(page);
  const answer = scriptEdit(model, "ANOTHER paragraph, rewritten\n");
  const aborted = new Promise((resolve) => model.once("aborted", resolve));
  const line = await lineOf(page, "another paragraph here");
  await selectLines(page, line, line);
  await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Enter");
  await ask(page, "Shout it");
  await page.locator(".smarthole-inline-removed").first().waitFor();
  await page.keyboard.press("Escape");
  await aborted;
  answer.last();
  assert.equal(await page.locator(".smarthole-inline-removed, .smarthole-inline-hunk, .smarthole-inline-header").count(), 0);
  assert.equal(await editorText(page), before);
  assert.equal(await onDisk(), before);
  assert.deepEqual(chat.errors, []);
});

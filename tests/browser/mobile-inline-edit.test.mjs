// Edit in place on the emulated phone (390x844, touch): the page's editor (`?editor=PATH`) with
// the real core and CodeMirror 6, by touch only. A tap puts the cursor in a paragraph, "Edit
// selection" opens the ask box there (no selection: the core edits the paragraph and says so), the
// proposal is drawn in the note while the answer streams, one hunk is accepted and one rejected by
// tapping their buttons (each big enough to tap), and "Undo changes" restores the note.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { ask, BEFORE, editorText, FIRST_ACCEPTED, NOTE, REWRITTEN_LINES, scriptEdit, openEditorChat } from "./inline-edit-steps.mjs";

let chat;
before(async () => {
  chat = await openEditorChat({ phone: true });
});
after(() => chat?.close());

const onDisk = () => chat.onDisk();

/** Taps a button by its accessible name (in the editor, unless `within` says where), after
 *  checking it is big enough for a finger. The chat's cards have buttons of the same names. */
async function tapButton(page, name, within = page.locator(".cm-editor")) {
  const button = within.getByRole("button", { name, exact: true });
  await button.scrollIntoViewIfNeeded();
  const box = await button.boundingBox();
  assert.ok(box && box.height >= 44 && box.width >= 44, `${name}: ${JSON.stringify(box)} is big enough to tap`);
  await button.tap();
}

test("on a phone: tap in a paragraph, Edit selection, ask; tap Accept on one hunk and Reject on the other; Undo restores the note", async () => {
  const { page, model } = chat;
  const answer = scriptEdit(model, REWRITTEN_LINES);
  await page.locator(".cm-line", { hasText: "beta is second" }).tap();
  await tapButton(page, "Edit selection with the agent", page);
  await ask(page, "Capitalise the first word and tidy the last line");
  // No selection: the core edits the paragraph at the cursor and says so.
  assert.match(await page.locator(".smarthole-inline-said").textContent(), /paragraph/i);
  await page.locator(".smarthole-inline-removed").first().waitFor();
  await page.locator(".smarthole-inline-added").first().waitFor();
  assert.equal(await editorText(page), BEFORE, "drawing does not change the note");
  answer.next();
  answer.last();

  await page.locator(".cm-editor").getByRole("button", { name: "Accept change 1 of 2" }).waitFor();
  await chat.shot("inline-phone-01-review");
  await tapButton(page, "Accept change 1 of 2");
  await tapButton(page, "Reject change 2 of 2");
  await page.locator(".smarthole-inline-undo-button").waitFor();
  assert.equal(await editorText(page), FIRST_ACCEPTED);
  assert.equal(await onDisk(), FIRST_ACCEPTED);
  await chat.shot("inline-phone-02-applied");

  await tapButton(page, "Undo the agent's changes");
  await page.waitForFunction(() => document.querySelector(".smarthole-inline-undo-status")?.textContent === "Changes undone.");
  assert.equal(await editorText(page), BEFORE, "byte for byte as before");
  assert.equal(await onDisk(), BEFORE);
  assert.deepEqual(chat.errors, []);
});

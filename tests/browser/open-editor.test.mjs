// A note open in the editor, with dist/main.js in Chromium over the mobile `obsidian` stub (its
// Markdown view's Editor is a real CodeMirror 6 view): the agent reads what the user typed there
// and has not saved yet, and a change it makes lands in the editor as a change of the part that
// differs, so the typing and the cursor survive; "Undo changes" puts the editor's text back the
// same way. Screenshots: target/screenshots/mobile-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPhone, tapSend } from "./mobile-harness.mjs";

const NOTE = "Notes/Open.md";
const SAVED = "# Open\nfirst line\nsecond\nthird\nfourth\nfifth line\n";
const TYPED = SAVED.replace("first line", "first line, typed");

let phone;
before(async () => {
  phone = await openPhone({ throttle: 1 });
  await phone.boot({ wipe: true });
  await phone.page.evaluate(([p, text]) => window.mobile.app.vault.create(p, text), [NOTE, SAVED]);
});
after(() => phone?.close());

const answered = (page, text) =>
  page.waitForFunction((t) => {
    const last = Array.from(document.querySelectorAll(".smarthole-msg-assistant")).at(-1);
    return last?.textContent?.includes(t) && last.querySelector(".smarthole-copy");
  }, text);
/** The editor's text and where its cursor is. */
const editor = (page) => page.evaluate(() => ({ text: window.__cm.state.doc.toString(), cursor: window.__cm.state.selection.main.head }));

test("the agent reads the editor's unsaved text and changes it in place: the typing and the cursor survive, Undo too", async () => {
  const { page, model } = phone;
  // The user opens the note and types at the end of its second line, unsaved.
  await page.evaluate((p) => {
    window.__cm = window.mobile.openInEditor(p);
    const end = window.__cm.state.doc.line(2).to;
    window.__cm.dispatch({ selection: { anchor: end } });
    window.__cm.focus();
  }, NOTE);
  await page.keyboard.type(", typed");
  const cursor = TYPED.indexOf(", typed") + ", typed".length;
  assert.deepEqual(await editor(page), { text: TYPED, cursor });
  assert.equal(await phone.file(NOTE), SAVED, "not saved yet");

  model.enqueue(
    { kind: "tool_use", tools: [{ name: "read_file", input: { path: NOTE } }] },
    { kind: "tool_use", tools: [{ name: "edit_file", input: { path: NOTE, operation: "replace", old_text: "fifth line", new_text: "FIFTH line" } }] },
    { kind: "text", text: "Shouted the fifth line." },
  );
  await tapSend(page, "Shout the fifth line");
  const card = page.locator(".smarthole-approval").last();
  await card.waitFor();
  const read = model.requests.at(-1).body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b) => b.type === "tool_result");
  assert.match(JSON.stringify(read.content), /first line, typed/, "read_file saw the editor's text");
  await card.locator("button >> text=Approve once").tap();
  await answered(page, "Shouted the fifth line.");
  assert.equal(await card.locator(".smarthole-approval-outcome").textContent(), "Approved");
  assert.deepEqual(await editor(page), { text: TYPED.replace("fifth line", "FIFTH line"), cursor }, "the change is in the editor; the cursor stayed");
  await phone.shot("open-editor-changed");

  await page.locator(".smarthole-undo-button").last().tap();
  await page.waitForFunction(() => Array.from(document.querySelectorAll(".smarthole-undo-result")).at(-1)?.textContent?.startsWith("Undone"));
  assert.deepEqual(await editor(page), { text: TYPED, cursor }, "Undo restores the editor's text, the typing kept");
  assert.deepEqual(phone.errors, []);
});

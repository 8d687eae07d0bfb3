// The plugin's own ways to point at a note (issue 23), with dist/main.js in Chromium over the
// mobile `obsidian` stub (the one harness that runs the whole plugin): the command and the editor
// menu item "Ask the agent about the selection" put the selected lines, quoted under their note
// and line range, in the chat's input; the note open in the editor has a chip that goes with the
// next message, then switches off, and a tap switches it back on. "Edit selection with the agent"
// (issue 36) is a command with no default hotkey and an item of the editor menu, for any note.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPhone, tapSend } from "./mobile-harness.mjs";

let phone;
before(async () => {
  phone = await openPhone({ throttle: 1 });
  await phone.boot({ wipe: true });
  await phone.page.evaluate(() => window.mobile.app.vault.create("Projects/Plan.md", "line one\nline two\nline three\n"));
});
after(() => phone?.close());

/** A fake editor with lines 2 to 3 of Plan.md selected. */
const EDITOR = `({
  somethingSelected: () => true,
  getSelection: () => "line two\\nline three",
  getCursor: (which) => ({ line: which === "from" ? 1 : 2, ch: 0 }),
})`;

test("the command quotes the selection under its note and line range in the chat's input", async () => {
  const { page } = phone;
  const result = await page.evaluate((editorSource) => {
    const editor = (0, eval)(editorSource);
    const command = window.mobile.plugin.registered.commands.find((c) => c.id === "ask-about-selection");
    const file = window.mobile.app.vault.getFileByPath("Projects/Plan.md");
    const offered = command.editorCheckCallback(true, editor, { file });
    const nothingSelected = command.editorCheckCallback(true, { ...editor, somethingSelected: () => false }, { file });
    command.editorCheckCallback(false, editor, { file });
    return { offered, nothingSelected, name: command.name };
  }, EDITOR);
  assert.deepEqual(result, { offered: true, nothingSelected: false, name: "Ask the agent about the selection" });
  await page.waitForFunction(() => document.querySelector(".smarthole-input").value.length > 0);
  assert.equal(await page.inputValue(".smarthole-input"), "From [[Projects/Plan]], lines 2-3:\n> line two\n> line three\n\n");
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("smarthole-input")), true, "the input has the focus");
});

test("the editor menu offers the same, adding below what is already typed", async () => {
  const { page } = phone;
  const titles = await page.evaluate((editorSource) => {
    const editor = (0, eval)(editorSource);
    const file = window.mobile.app.vault.getFileByPath("Projects/Plan.md");
    const items = window.mobile.editorMenu(editor, { file });
    items.find((i) => i.title === "Ask the agent about the selection")?.click();
    return items.map((i) => i.title);
  }, EDITOR);
  assert.deepEqual(titles, ["Ask the agent about the selection", "Edit selection with the agent"]);
  await page.waitForFunction(() => document.querySelector(".smarthole-input").value.split("From [[").length === 3);
  await page.fill(".smarthole-input", "");
});

test("\"Edit selection with the agent\": a command with no default hotkey and an editor menu item, each reaching the editor's CodeMirror view", async () => {
  const { page } = phone;
  const result = await page.evaluate(() => {
    const command = window.mobile.plugin.registered.commands.find((c) => c.id === "edit-selection");
    const cm = window.mobile.openInEditor("Projects/Plan.md");
    const editor = window.mobile.app.workspace.getLeavesOfType("markdown").at(-1).view.editor;
    const menuTitles = (info) => window.mobile.editorMenu({ ...editor, somethingSelected: () => false }, info);
    const file = window.mobile.app.vault.getFileByPath("Projects/Plan.md");
    const forNote = menuTitles({ file });
    const noNote = menuTitles({ file: null });
    // Both open the view's ask box, and nothing goes wrong (no notice).
    const noticesBefore = window.mobile.notices.length;
    command.editorCallback(editor, { file });
    const askedByCommand = cm.dom.querySelectorAll('[aria-label="What should the agent do with the selection?"]').length;
    cm.dom.querySelector(".smarthole-inline-ask-input")?.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    forNote.find((i) => i.title === "Edit selection with the agent").click();
    const askedByMenu = cm.dom.querySelectorAll('[aria-label="What should the agent do with the selection?"]').length;
    return {
      name: command.name,
      hotkeys: command.hotkeys ?? [],
      plain: typeof command.callback,
      forNote: forNote.map((i) => i.title),
      noNote: noNote.map((i) => i.title),
      extensions: window.mobile.plugin.registered.editorExtensions.length,
      sameView: editor.cm === cm,
      askedByCommand,
      askedByMenu,
      notices: window.mobile.notices.slice(noticesBefore),
    };
  });
  assert.deepEqual(result, {
    name: "Edit selection with the agent",
    hotkeys: [],
    plain: "undefined",
    forNote: ["Edit selection with the agent"],
    noNote: [],
    extensions: 1,
    sameView: true,
    askedByCommand: 1,
    askedByMenu: 1,
    notices: [],
  });
  assert.deepEqual(phone.errors, []);
});

test("the note open in the editor has a chip: it goes with the next message, then switches off", async () => {
  const { page, model } = phone;
  await page.evaluate(() => window.mobile.app.workspace.trigger("file-open", window.mobile.app.vault.getFileByPath("Projects/Plan.md")));
  await page.waitForSelector(".smarthole-chip-current[aria-checked='true']");
  await tapSend(page, "What does it say?");
  await page.waitForFunction(() => document.querySelectorAll(".smarthole-msg-assistant .smarthole-copy").length >= 1);
  const user = model.requests.at(-1).body.messages.filter((m) => m.role === "user").at(-1).content;
  assert.ok(user.some((b) => b.type === "text" && b.text === '<note path="Projects/Plan.md">\nline one\nline two\nline three\n\n</note>'), JSON.stringify(user));
  assert.deepEqual(model.requests.at(-1).schemaErrors, []);
  assert.equal(await page.getAttribute(".smarthole-chip-current", "aria-checked"), "false", "sent once, then off");
  await tapSend(page, "And now?");
  await page.waitForFunction(() => document.querySelectorAll(".smarthole-msg-assistant .smarthole-copy").length >= 2);
  const second = model.requests.at(-1).body.messages.filter((m) => m.role === "user").at(-1).content;
  assert.ok(!second.some((b) => b.type === "text" && b.text.startsWith("<note")), "not sent again while off");
  await page.tap(".smarthole-chip-current");
  assert.equal(await page.getAttribute(".smarthole-chip-current", "aria-checked"), "true");
  await phone.shot("current-note-chip");
  assert.deepEqual(phone.errors, []);
});

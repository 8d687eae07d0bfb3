// The steps the inline-edit browser tests share (desktop by keys, the phone by touch): the note,
// the scripted model's answer for an edit in place, selecting lines by keyboard, asking.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openChat } from "./harness.mjs";
import { tmpVault } from "../node/helpers.mjs";

export const NOTE = "Notes/Plan.md";
/** Its first paragraph (lines 3 to 6) is what is edited; the heading is where the user types. */
export const BEFORE = ["# Plan", "", "alpha is first", "beta is second", "gamma stays", "omega is last", "", "another paragraph here", ""].join("\n");
/** Lines 3 to 6 as the model rewrites them: two changes (the first of two lines) with an
 * unchanged line between. */
export const REWRITTEN_LINES = ["ALPHA is first", "beta IS second", "gamma stays", "omega comes last", ""].join("\n");
/** The note with the first change accepted and the second rejected. */
export const FIRST_ACCEPTED = BEFORE.replace("alpha is first\nbeta is second", "ALPHA is first\nbeta IS second");

/** The model's answer to the next edit: `text`, the edited lines, a line a chunk (one line is cut
 * at its last space). The second chunk waits for `next()`, the last for `last()`, so a test sees
 * the proposal mid-answer, acts, and lets it go on. */
export function scriptEdit(model, text) {
  let chunks = text.split(/(?<=\n)/);
  if (chunks.length === 1) chunks = [text.slice(0, text.lastIndexOf(" ") + 1), text.slice(text.lastIndexOf(" ") + 1)];
  const gate = () => {
    let open;
    const promise = new Promise((resolve) => (open = resolve));
    return { promise, open };
  };
  const [second, last] = [gate(), gate()];
  // The second chunk waits, and so does the last: the answer shows the first change, then both.
  const holds = chunks.length > 2 ? { 1: second.promise } : {};
  model.enqueue({ kind: "text", text, chunks, holds, holdLast: last.promise });
  return { next: second.open, last: last.open };
}

/** The editor's text now. */
export const editorText = (page) => page.evaluate(() => window.smarthole.editor.state.doc.toString());

/** The number of the editor's line that reads `text`. */
export const lineOf = (page, text) =>
  page.evaluate((text) => window.smarthole.editor.state.doc.toString().split("\n").indexOf(text) + 1, text);

/** Selects lines `from` to `to` (1-based, whole lines) with the keyboard. */
export async function selectLines(page, from, to) {
  await page.focus(".cm-content");
  await page.keyboard.press("Control+Home");
  for (let i = 1; i < from; i++) await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Home");
  for (let i = from; i < to; i++) await page.keyboard.press("Shift+ArrowDown");
  await page.keyboard.press("Shift+End");
}

/** Types the instruction in the ask box (which has the focus) and sends it with Enter. */
export async function ask(page, instruction) {
  const input = page.getByLabel("What should the agent do with the selection?");
  await input.waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "What should the agent do with the selection?");
  await page.keyboard.type(instruction);
  await page.keyboard.press("Enter");
}

/** The page with NOTE open in its editor beside the chat (`phone`: on the emulated phone);
 *  `onDisk()` gives the note's file once the editor's last change is saved. */
export async function openEditorChat({ phone = false } = {}) {
  const vault = tmpVault();
  mkdirSync(path.join(vault, "Notes"), { recursive: true });
  writeFileSync(path.join(vault, NOTE), BEFORE);
  const chat = await openChat({ vault, query: `?model=scripted&editor=${encodeURIComponent(NOTE)}`, phone });
  await chat.page.waitForSelector(".smarthole-send:not([disabled])");
  await chat.page.waitForFunction(() => window.smarthole.editor !== undefined);
  chat.onDisk = async () => {
    await chat.page.evaluate(() => window.smarthole.editorSaved());
    return readFileSync(path.join(vault, NOTE), "utf8");
  };
  return chat;
}

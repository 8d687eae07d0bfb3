// The chat's diff cards answered from the keyboard, with the keys of the editor's inline review
// (hunk-keys.ts): while a change waits on the user each of its hunks is a stop of the Tab order;
// on a focused hunk the keys accept or reject it (focus then moves to the next hunk not answered
// yet), move to the next or previous hunk, or accept or reject them all. Escape is left alone
// (on a card it stops nothing). A change taken whole, when it has one hunk, is answered by the
// same accept and reject keys. Nothing here takes the focus: the user Tabs to a hunk.
import type {} from "obsidian";
import { HUNK_KEYS, hunkAction, keyWords, type HunkAction } from "./hunk-keys.ts";
import { markHunk } from "./diff-view.ts";

/** How a card takes the answers given by keys. */
export interface CardAnswers {
  /** Whether the change still waits on the user (no answer sent yet). */
  open(): boolean;
  /** One hunk's answer; absent when the change is taken whole (or has one hunk). */
  pick?: (hunk: number, accept: boolean) => void;
  /** The whole change: Accept all / Reject all (Approve once / Reject). */
  all(accept: boolean): void;
}

const HUNK = ".smarthole-hunk";

/** Makes the drawn hunks of `card` focusable and answerable by keys. `hunks`: how many the change has. */
export function answerByKeys(card: HTMLElement, hunks: number, answers: CardAnswers): void {
  for (const box of boxes(card)) box.setAttribute("tabindex", "0");
  card.addEventListener("keydown", (event) => {
    const box = event.target instanceof HTMLElement ? event.target.closest<HTMLElement>(HUNK) : null;
    const action = hunkAction(event);
    if (!box || !action || !works(action, hunks, answers.pick !== undefined) || !answers.open()) return;
    // Taken here: neither the page nor a hotkey of the app acts on it too.
    event.preventDefault();
    event.stopPropagation();
    const all = boxes(card);
    const at = all.indexOf(box);
    if (action === "next") all[at + 1]?.focus();
    else if (action === "previous") all[at - 1]?.focus();
    else if (action === "acceptAll" || action === "rejectAll") answers.all(action === "acceptAll");
    else if (answers.pick) {
      const accept = action === "accept";
      markHunk(box, accept);
      // Before the pick: the last answer settles the card.
      undecidedAfter(all, at)?.focus();
      answers.pick(Number(box.dataset.hunk), accept);
    } else answers.all(action === "accept");
  });
}

/** The change no longer waits: its hunks leave the Tab order (the one focused keeps the focus). */
export function endKeys(card: HTMLElement): void {
  for (const box of boxes(card)) box.setAttribute("tabindex", "-1");
}

/** The line under a card that says which keys work on its hunks. */
export function keyHint(hunks: number, perHunk: boolean): string {
  const said = HUNK_KEYS.filter(({ action }) => works(action, hunks, perHunk))
    // With one hunk, "all" is that hunk: its two keys say it.
    .filter(({ action }) => hunks > 1 || (action !== "acceptAll" && action !== "rejectAll"))
    .map(({ key, label }) => `${keyWords(key)}: ${label.toLowerCase()}`);
  return `Keys on a focused change — ${said.join(" · ")}.`;
}

/** Whether a key does something on a card of `hunks` hunks (`perHunk`: each answered on its own). */
function works(action: HunkAction, hunks: number, perHunk: boolean): boolean {
  switch (action) {
    case "stop":
      return false;
    case "accept":
    case "reject":
      return perHunk || hunks === 1;
    case "next":
    case "previous":
      return hunks > 1;
    default:
      return true;
  }
}

function boxes(card: HTMLElement): HTMLElement[] {
  return Array.from(card.querySelectorAll<HTMLElement>(HUNK));
}

/** The first hunk after `at` without an answer, else the first before it. */
function undecidedAfter(all: HTMLElement[], at: number): HTMLElement | undefined {
  const open = (b: HTMLElement) => !b.hasClass("smarthole-hunk-accepted") && !b.hasClass("smarthole-hunk-rejected");
  return all.slice(at + 1).find(open) ?? all.slice(0, at).find(open);
}

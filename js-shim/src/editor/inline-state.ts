// The inline review's state, one per editor: the ask box at the selection, the proposed edit
// (its hunks as positions in the editor's text, mapped through every change the user makes) and,
// after it is applied, the offer to undo it. Pure state: drawing is inline-draw.ts's, acting on
// the core inline-actions.ts's.
import { ChangeSet, StateEffect, StateField, type EditorState, type Text, type Transaction } from "@codemirror/state";
import type { DiffHunk, DiffLine } from "smarthole-core";

/** Where a proposal is: streamed, waiting on the user, applied, or dropped. */
export type Phase = "writing" | "review" | "applied" | "dropped";

/** One hunk in the editor: the old lines it covers and what would replace them. */
export interface InlineHunk {
  /** From 1, as the core numbers the approval's hunks. */
  number: number;
  /** The start of its first old line. */
  from: number;
  /** The end of its last old line, without the line break (= `from` when it removes nothing). */
  to: number;
  removed: DiffLine[];
  added: DiffLine[];
  decision: "accepted" | "rejected" | null;
}

/** The edit the agent proposes for this editor's note. */
export interface Proposal {
  messageId: string;
  path: string;
  /** What the core said of the edit's scope ("No selection: editing the paragraph…"). */
  said: string;
  phase: Phase;
  hunks: InlineHunk[];
  /** The pending approval that takes the decisions (review only). */
  approvalId: string | null;
  /** The start of the edit's first line: where its header is drawn. */
  anchor: number;
  /** The text at the ask and the changes since: streamed hunks are in the ask's lines. */
  askDoc: Text;
  sinceAsk: ChangeSet;
  /** A failure to tell in the header (a decision the core refused). */
  error: string | null;
}

/** The box the user types the instruction in, above the selection's first line. */
export interface AskBox {
  pos: number;
  from: number;
  to: number;
  error: string | null;
}

/** "Undo changes" at the edited lines after an edit was applied. */
export interface UndoOffer {
  messageId: string;
  pos: number;
  state: "offered" | "undoing" | "undone" | "failed";
  text: string;
}

export interface InlineState {
  ask: AskBox | null;
  proposal: Proposal | null;
  undo: UndoOffer | null;
  /** Messages whose proposal the user dropped: an approval they still ask for is refused. */
  dropped: readonly string[];
}

export const openAsk = StateEffect.define<{ from: number; to: number }>();
export const askFailed = StateEffect.define<string>();
export const closeAsk = StateEffect.define<null>();
export const startProposal = StateEffect.define<{ messageId: string; path: string; said: string; startLine: number }>();
/** Streamed hunks (lines as at the ask). */
export const streamHunks = StateEffect.define<{ messageId: string; hunks: DiffHunk[] }>();
/** The approval's hunks (lines as now). */
export const reviewHunks = StateEffect.define<{ messageId: string; approvalId: string; hunks: DiffHunk[] }>();
export const decideHunks = StateEffect.define<{ numbers: number[]; decision: "accepted" | "rejected" }>();
export const proposalError = StateEffect.define<string>();
export const dropProposal = StateEffect.define<string>();
export const proposalApplied = StateEffect.define<{ messageId: string; appliedHunks: number[] }>();
export const undoStatus = StateEffect.define<{ state: UndoOffer["state"]; text: string }>();
export const dismissUndo = StateEffect.define<null>();

const EMPTY: InlineState = { ask: null, proposal: null, undo: null, dropped: [] };

/** The start of 1-based line `n` of `doc` (its end past the last line). */
function lineStart(doc: Text, n: number): number {
  return n >= 1 && n <= doc.lines ? doc.line(n).from : doc.length;
}

/** A diff hunk placed in `doc`, its positions then passed through `map`. Context lines at its
 * edges (an approval's hunks may carry them) are left out: only the changed run is drawn. */
export function placeHunk(hunk: DiffHunk, doc: Text, map: (pos: number, assoc: number) => number): InlineHunk {
  const first = hunk.lines.findIndex((l) => l.kind !== "context");
  const last = hunk.lines.length - 1 - [...hunk.lines].reverse().findIndex((l) => l.kind !== "context");
  const changed = first < 0 ? [] : hunk.lines.slice(first, last + 1);
  const removed = changed.filter((l) => l.kind === "removed");
  const added = changed.filter((l) => l.kind === "added");
  const start = hunk.oldStart + Math.max(first, 0);
  const from = lineStart(doc, start);
  const to = removed.length && start <= doc.lines ? doc.line(Math.min(start + removed.length - 1, doc.lines)).to : from;
  return { number: hunk.number, from: map(from, -1), to: map(to, removed.length ? 1 : -1), removed, added, decision: null };
}

/** Whether a placed hunk's removed lines are the text at its place. */
function fits(hunk: InlineHunk, doc: Text): boolean {
  const want = hunk.removed.map((l) => l.text.replace(/\r?\n$/, "")).join("\n");
  return hunk.to <= doc.length && doc.sliceString(hunk.from, hunk.to) === want;
}

function mapProposal(p: Proposal, tr: Transaction): Proposal {
  const changes = tr.changes;
  return {
    ...p,
    anchor: changes.mapPos(p.anchor, -1),
    sinceAsk: p.sinceAsk.compose(changes),
    hunks: p.hunks.map((h) => ({ ...h, from: changes.mapPos(h.from, -1), to: changes.mapPos(h.to, h.to > h.from ? 1 : -1) })),
  };
}

function mapped(value: InlineState, tr: Transaction): InlineState {
  if (!tr.docChanged) return value;
  const c = tr.changes;
  return {
    ...value,
    ask: value.ask && { ...value.ask, pos: c.mapPos(value.ask.pos, -1), from: c.mapPos(value.ask.from, -1), to: c.mapPos(value.ask.to, 1) },
    proposal: value.proposal && mapProposal(value.proposal, tr),
    undo: value.undo && { ...value.undo, pos: c.mapPos(value.undo.pos, -1) },
  };
}

/** The approval's hunks placed in the text now; a hunk whose lines are elsewhere now (the user
 * typed after the core read the note) is placed by the ask's lines instead, when those fit. */
function placeReview(p: Proposal, hunks: DiffHunk[], doc: Text): InlineHunk[] {
  return hunks.map((h) => {
    const now = placeHunk(h, doc, (pos) => pos);
    if (fits(now, doc)) return now;
    const atAsk = placeHunk(h, p.askDoc, (pos, assoc) => p.sinceAsk.mapPos(pos, assoc));
    return fits(atAsk, doc) ? atAsk : now;
  });
}

function withEffect(value: InlineState, effect: StateEffect<unknown>, state: EditorState): InlineState {
  const p = value.proposal;
  if (effect.is(openAsk)) {
    const { from, to } = effect.value;
    return { ...value, ask: { pos: state.doc.lineAt(from).from, from, to, error: null } };
  }
  if (effect.is(askFailed)) return value.ask ? { ...value, ask: { ...value.ask, error: effect.value } } : value;
  if (effect.is(closeAsk)) return { ...value, ask: null };
  if (effect.is(startProposal)) {
    const { messageId, path, said, startLine } = effect.value;
    const anchor = lineStart(state.doc, startLine);
    const proposal: Proposal = { messageId, path, said, phase: "writing", hunks: [], approvalId: null, anchor, askDoc: state.doc, sinceAsk: ChangeSet.empty(state.doc.length), error: null };
    return { ...value, ask: null, proposal, undo: null };
  }
  if (effect.is(undoStatus)) return value.undo ? { ...value, undo: { ...value.undo, ...effect.value } } : value;
  if (effect.is(dismissUndo)) return { ...value, undo: null };
  if (!p) return value;
  if (effect.is(streamHunks) && effect.value.messageId === p.messageId && p.phase === "writing") {
    const hunks = effect.value.hunks.map((h, i) => placeHunk({ ...h, number: i + 1 }, p.askDoc, (pos, assoc) => p.sinceAsk.mapPos(pos, assoc)));
    return { ...value, proposal: { ...p, hunks } };
  }
  if (effect.is(reviewHunks) && effect.value.messageId === p.messageId) {
    const hunks = placeReview(p, effect.value.hunks, state.doc);
    return { ...value, proposal: { ...p, phase: "review", approvalId: effect.value.approvalId, hunks } };
  }
  if (effect.is(decideHunks)) {
    const { numbers, decision } = effect.value;
    const hunks = p.hunks.map((h) => (numbers.includes(h.number) && !h.decision ? { ...h, decision } : h));
    return { ...value, proposal: { ...p, hunks } };
  }
  if (effect.is(proposalError)) return { ...value, proposal: { ...p, error: effect.value } };
  if (effect.is(dropProposal) && effect.value === p.messageId) return { ...value, proposal: null, dropped: [...value.dropped.slice(-9), p.messageId] };
  if (effect.is(proposalApplied) && effect.value.messageId === p.messageId) {
    const first = p.hunks.find((h) => effect.value.appliedHunks.includes(h.number)) ?? p.hunks[0];
    const pos = first ? state.doc.lineAt(Math.min(first.from, state.doc.length)).from : p.anchor;
    return { ...value, proposal: null, undo: { messageId: p.messageId, pos, state: "offered", text: "" } };
  }
  return value;
}

/** The state of the inline review in one editor. */
export const inlineState = StateField.define<InlineState>({
  create: () => EMPTY,
  update(value, tr) {
    let next = mapped(value, tr);
    for (const effect of tr.effects) next = withEffect(next, effect, tr.state);
    return next;
  },
});

/** The proposal shown to the user (writing or review), if any. */
export function shownProposal(state: EditorState): Proposal | null {
  const p = state.field(inlineState, false)?.proposal ?? null;
  return p && (p.phase === "writing" || p.phase === "review") ? p : null;
}

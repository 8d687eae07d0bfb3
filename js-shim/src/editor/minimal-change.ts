// The smallest single replacement that turns one text into another (their common start and end
// kept): how a host applies the core's edit of an open note to its editor, so the cursor, the
// selection and what the user types elsewhere stay where they are.

/** One replacement, in positions of `before` (UTF-16 offsets, as CodeMirror counts). */
export interface TextChange {
  from: number;
  to: number;
  insert: string;
}

/** `before` → `after` as one replacement, never splitting a surrogate pair; null when equal. */
export function minimalChange(before: string, after: string): TextChange | null {
  if (before === after) return null;
  const max = Math.min(before.length, after.length);
  let start = 0;
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  // The common start stops before a pair it would split.
  if (start > 0 && isHighSurrogate(before.charCodeAt(start - 1))) start--;
  let end = 0;
  while (end < max - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end++;
  if (end > 0 && isLowSurrogate(before.charCodeAt(before.length - end))) end--;
  return { from: start, to: before.length - end, insert: after.slice(start, after.length - end) };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

// Text from outside (the model's words, tool output, an external agent's reason, hub text, file
// names) made safe to print on a terminal. A terminal obeys what it is sent: ESC and CSI
// sequences move the cursor and erase lines, OSC sets the title or writes the clipboard, a CR
// returns to the start of the line, backspace erases, bidi overrides reorder what is shown. So
// every control character is shown escaped (`\x1b`, `\r`, `\u009b`, `\u202e`) instead of being
// obeyed; only the newlines the printer means (and tabs) pass. The chat view is not concerned:
// it renders text, never markup or escapes.

/** C0 controls but tab and newline, DEL, C1 controls, bidi controls, line/paragraph separators. */
const UNSAFE = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const UNSAFE_LINE = /\r\n|[\u0000-\u0008\n-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

function shown(ch: string, multiline: boolean): string {
  if (ch === "\r\n") return multiline ? "\n" : "\\n";
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  const code = ch.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` as it may be printed: every control, escape and bidi character shown escaped. With
 * `multiline` (the model's answer, a message), newlines stay (a CRLF becomes one); without it
 * (an approval line, a log line, a status), a newline is shown as `\n` too, so the text cannot
 * start a line of its own that looks like the printer's.
 */
export function terminalSafe(text: string, multiline = false): string {
  return text.replace(multiline ? UNSAFE : UNSAFE_LINE, (ch) => shown(ch, multiline));
}

/** A JSON document to print: the characters JSON.stringify leaves raw in strings (C1, bidi,
 * separators) written as `\uXXXX`; the value it parses to is the same. */
export function terminalSafeJson(json: string): string {
  return json.replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

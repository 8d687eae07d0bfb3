// The keys that answer a proposed change hunk by hunk, one table for the editor's inline review
// and the chat's diff cards, so a user learns them once. No key here is one of Obsidian's default
// hotkeys; each works only while a change waits on the user (elsewhere the key does what it did).

/** What a key does to a change under review. */
export type HunkAction = "accept" | "reject" | "next" | "previous" | "acceptAll" | "rejectAll" | "stop";

/** A key as CodeMirror's keymaps name it ("Mod" is Cmd on macOS, Ctrl elsewhere), and its action. */
export const HUNK_KEYS: readonly { key: string; action: HunkAction; label: string }[] = [
  { key: "Mod-Enter", action: "accept", label: "Accept this change" },
  { key: "Mod-Backspace", action: "reject", label: "Reject this change" },
  { key: "Alt-]", action: "next", label: "Next change" },
  { key: "Alt-[", action: "previous", label: "Previous change" },
  { key: "Mod-Shift-Enter", action: "acceptAll", label: "Accept all changes" },
  { key: "Mod-Shift-Backspace", action: "rejectAll", label: "Reject all changes" },
  { key: "Escape", action: "stop", label: "Stop and drop the proposal" },
];

/** The action a DOM key event asks for (the chat's cards; CodeMirror reads `HUNK_KEYS` itself). */
export function hunkAction(event: KeyboardEvent): HunkAction | undefined {
  // "Mod" is Cmd on macOS and Ctrl elsewhere; either is taken, so no platform test is needed.
  const mod = event.metaKey || event.ctrlKey;
  for (const { key, action } of HUNK_KEYS) {
    const parts = key.split("-");
    const name = parts.pop() ?? "";
    const wants = { mod: parts.includes("Mod"), shift: parts.includes("Shift"), alt: parts.includes("Alt") };
    // Alt changes the character a key types on some layouts: Alt-] is read from the key's code.
    const pressed = wants.alt && name.length === 1 ? codeCharacter(event.code) : event.key;
    if (pressed === name && mod === wants.mod && event.shiftKey === wants.shift && event.altKey === wants.alt) return action;
  }
  return undefined;
}

/** The character a physical bracket key types without modifiers. */
function codeCharacter(code: string): string | undefined {
  return code === "BracketRight" ? "]" : code === "BracketLeft" ? "[" : undefined;
}

/** "Mod-Enter" as words a screen reader says ("Ctrl or Cmd+Enter"). */
export function keyWords(key: string): string {
  return key.replace("Mod", "Ctrl or Cmd").replace(/-/g, "+");
}

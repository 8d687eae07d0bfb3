// A long conversation written in the stored format, for the browser tests and the benchmark.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Writes a conversation of `messages` messages (user and answer, one turn each pair), recent;
 * `usage(i)`, when given, is the usage recorded with turn i. */
export function longConversation(vault, messages, id = "conv-long", usage = null) {
  const dir = path.join(vault, ".smarthole/conversations");
  mkdirSync(dir, { recursive: true });
  const ts = new Date().toISOString();
  const parts = [];
  for (let i = 0; i < messages / 2; i++) {
    const m = `m${i}`;
    const base = { messageId: m, source: "direct", visible: true, ts };
    parts.push(JSON.stringify({ id: `${m}#0`, ...base, role: "user", content: [{ type: "text", text: `question ${i}` }] }));
    const answer = `answer ${i}: some **Markdown** text`;
    parts.push(JSON.stringify({ id: `${m}#1`, ...base, role: "assistant", content: [{ type: "text", text: answer }], turn: { toolsUsed: [], ...(usage ? { usage: usage(i) } : {}) } }));
  }
  writeFileSync(path.join(dir, `${id}.jsonl`), parts.join("\n") + "\n");
  const conversation = { id, status: "active", title: "Long", createdAt: ts, state: {} };
  writeFileSync(path.join(dir, "index.json"), JSON.stringify({ current: id, conversations: [conversation] }));
  return vault;
}

/** Scrolls the chat's messages to the top or the end, then waits until the page it asked for (if
 * any) is drawn: two frames for the scroll event to run, then until the list is no longer busy. */
export async function scrollAndSettle(page, to) {
  await page.evaluate(async (to) => {
    const box = document.querySelector(".smarthole-messages");
    box.scrollTop = to === "top" ? 0 : box.scrollHeight;
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  }, to);
  await page.waitForFunction(() => document.querySelector(".smarthole-messages").getAttribute("aria-busy") !== "true", null, { timeout: 15_000 });
}

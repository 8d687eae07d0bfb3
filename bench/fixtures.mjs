// Vaults with a given amount of stored history, written directly in the plugin's on-disk format
// (conversations/<id>.jsonl + conversations/index.json), for the benchmarks.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const TS = "2026-02-01T10:00:00.000Z";

function turnLines(messageId, i, ts = TS) {
  const user = {
    id: `${messageId}#0`, messageId, role: "user", source: "direct", visible: true, ts,
    content: [{ type: "text", text: `Stored question number ${i}: what is on my list for the garden shed project?` }],
  };
  const assistant = {
    id: `${messageId}#1`, messageId, role: "assistant", source: "direct", visible: true, ts,
    content: [{ type: "text", text: `Stored answer ${i}: order the timber, paint the door, and call the plumber on Tuesday.` }],
    turn: { toolsUsed: [] },
  };
  return JSON.stringify(user) + "\n" + JSON.stringify(assistant) + "\n";
}

/**
 * Writes `messages` stored messages into `dataDir` (a vault's .smarthole), `perConversation`
 * messages per conversation; the last conversation is current (its last activity now, so the
 * benchmark's messages continue it).
 */
export function writeHistory(dataDir, { messages, perConversation = 100 }) {
  const dir = path.join(dataDir, "conversations");
  mkdirSync(dir, { recursive: true });
  const conversations = [];
  const now = new Date().toISOString();
  let written = 0;
  for (let c = 0; written < messages; c++) {
    const id = `c-${String(c).padStart(16, "0")}`;
    const count = Math.min(perConversation, messages - written);
    const last = written + count >= messages;
    let text = "";
    for (let t = 0; t < count / 2; t++) text += turnLines(`stored-${c}-${t}`, written + 2 * t, last ? now : TS);
    writeFileSync(path.join(dir, `${id}.jsonl`), text);
    written += count;
    conversations.push({
      id, status: "archived", title: `Conversation ${c} about the garden shed`,
      summary: "The user asked about the garden shed project. The agent listed the next steps: timber, paint, plumber.",
      createdAt: TS, endedAt: TS, endReason: "idle", state: { context: {}, data: {} },
    });
  }
  const current = conversations[conversations.length - 1];
  current.status = "active";
  delete current.endedAt;
  delete current.endReason;
  // As the store keeps them: the current and the five most recently archived in the index, the
  // older archived ones in the append-only archive.
  const kept = conversations.slice(-6);
  const archived = conversations.slice(0, -6);
  writeFileSync(path.join(dir, "index.json"), JSON.stringify({ current: current.id, conversations: kept }));
  writeFileSync(path.join(dir, "archive.jsonl"), archived.map((c) => JSON.stringify(c) + "\n").join(""));
  return { conversations: conversations.length };
}

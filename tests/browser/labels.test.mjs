// Labels that inform (issue 19): a message from the hub, a scheduled run or an agent over the API
// says where it came from; a message the user typed here has no label at all.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tmpVault } from "../node/helpers.mjs";
import { openChat } from "./harness.mjs";

test("only messages that did not come from this chat are labelled, each with where it came from", async () => {
  const vault = tmpVault();
  const dir = path.join(vault, ".smarthole/conversations");
  mkdirSync(dir, { recursive: true });
  const ts = new Date().toISOString();
  const sources = [
    ["typed", "direct"],
    ["hub", "websocket"],
    ["run", "worker"],
    ["agent", "api"],
  ];
  const lines = sources.flatMap(([m, source]) => [
    { id: `${m}#0`, messageId: m, source, visible: true, ts, role: "user", content: [{ type: "text", text: `from ${m}` }] },
    { id: `${m}#1`, messageId: m, source, visible: true, ts, role: "assistant", content: [{ type: "text", text: `answer to ${m}` }], turn: { toolsUsed: [] } },
  ]);
  writeFileSync(path.join(dir, "conv-labels.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  writeFileSync(path.join(dir, "index.json"), JSON.stringify({ current: "conv-labels", conversations: [{ id: "conv-labels", status: "active", title: "Labels", createdAt: ts, state: {} }] }));
  const chat = await openChat({ vault });
  try {
    const { page } = chat;
    await page.waitForSelector(".smarthole-msg-assistant >> text=answer to agent");
    const label = (m) => page.locator(`.smarthole-msg-user[data-message-id="${m}"] .smarthole-label`);
    assert.equal(await label("typed").count(), 0, "no label on what the user typed here");
    assert.equal(await label("hub").textContent(), "Via SmartHole");
    assert.equal(await label("run").textContent(), "Scheduled run");
    assert.equal(await label("agent").textContent(), "From an agent");
    assert.deepEqual(chat.errors, []);
  } finally {
    await chat.close();
  }
});

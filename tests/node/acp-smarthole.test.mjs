// The real Claude Code adapter through the headless command (--agent claude-code), its model the
// scripted Anthropic server: the model reads and edits a note through the plugin's own MCP
// server (`smarthole`, served by the core on 127.0.0.1 with the agent process's own token), the
// edit being a review-first change answered by --approvals; Claude Code's own Edit/Write/Bash
// are not offered to the model, and no process is left.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { tmpVault, runHeadless, freePort, waitFor } from "./helpers.mjs";
import { RECIPES, CLAUDE_WRITE_TOOLS } from "./acp-peers.mjs";

const BEFORE = "# Plan\ntodo: call Ann\nb\nc\nd\ne\nf\ng\nh\ni\nj\ntodo: buy milk\n";

/** Processes whose working folder is `dir` (the agent runs in the vault). */
function processesIn(dir) {
  const found = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) === dir) found.push(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

test("Claude Code reads and edits a note through the smarthole MCP server; its own write tools are off; nothing is left", { timeout: 180_000 }, async () => {
  const { startScriptedServer } = await import("../peers/anthropic-server.mjs");
  const server = await startScriptedServer();
  const vault = tmpVault();
  const home = mkdtempSync(path.join(tmpdir(), "acp-smarthole-home-"));
  writeFileSync(path.join(vault, "Plan.md"), BEFORE);
  server.enqueue(
    { kind: "tool_use", tools: [{ id: "toolu_read1", name: "mcp__smarthole__read_file", input: { path: "Plan.md" } }] },
    { kind: "tool_use", tools: [{ id: "toolu_edit1", name: "mcp__smarthole__edit_file", input: { path: "Plan.md", operation: "replace", old_text: "todo", new_text: "done", replace_all: true } }] },
    { kind: "text", text: "Both todos are done." },
  );
  const recipe = RECIPES.claude({ modelUrl: server.url, home });
  try {
    const port = await freePort();
    const run = await runHeadless(
      ["--vault", vault, "--agent", "claude-code", "--agent-command", recipe.command, "--api-port", String(port), "--approvals", "approve", "--once", "tick off my todos"],
      { env: { ...recipe.env, HOME: home, SMARTHOLE_API_TOKEN: "a".repeat(64) } },
    );
    const posts = server.requests.filter((r) => r.method === "POST");
    const trace = `${run.stderr}\n${JSON.stringify(posts.map((p) => p.body.messages?.at(-1)), null, 1)}`;
    assert.equal(run.code, 0, trace);
    const result = JSON.parse(run.stdout.trim().split("\n").pop());
    assert.equal(result.success, true, trace);
    // The note changed exactly as accepted (both hunks approved).
    assert.equal(readFileSync(path.join(vault, "Plan.md"), "utf8"), BEFORE.replaceAll("todo", "done"), trace);
    // The model was offered the plugin's tools and none of Claude Code's own that write or run.
    assert.ok(posts.length >= 3, trace);
    for (const post of posts) {
      const tools = post.body.tools.map((t) => t.name);
      assert.ok(tools.includes("mcp__smarthole__read_file") && tools.includes("mcp__smarthole__edit_file"), tools.join(","));
      for (const off of CLAUDE_WRITE_TOOLS) assert.ok(!tools.includes(off), `${off} offered: ${tools.join(",")}`);
    }
    // The read answered with the note's text (through the core's read_file).
    const readResult = JSON.stringify(posts[1].body.messages.at(-1));
    assert.match(readResult, /todo: call Ann/, readResult);
    const editResult = JSON.stringify(posts[2].body.messages.at(-1));
    assert.match(editResult, /Edited Plan\.md/, editResult);
    // No process of the agent is left in the vault.
    await waitFor(() => processesIn(vault).length === 0, 10_000, "the agent's processes to end");
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(vault, { recursive: true, force: true });
  }
});

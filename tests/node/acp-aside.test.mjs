// A conversation ended with the user's own agent chosen is titled and summarised by that agent,
// end to end: the headless command with the scripted ACP agent (fake-acp-agent.mjs), whose turn
// calls `end_conversation` on the plugin's `smarthole` MCP server; the title and summary then
// come from a side session of the same agent process (session/new with no MCP servers), never
// from the conversation's own session, and with no model server at all.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { freePort, tmpVault, waitFor } from "./helpers.mjs";
import { fakeAgent, headlessWithAgent, noAgentLeft, stop } from "./acp-plugin-peers.mjs";

const test = (name, run) => nodeTest(name, { timeout: 90_000 }, run);
const SUMMARY = "You title and summarise conversations";

function conversations(vault) {
  const file = path.join(vault, ".smarthole/conversations/index.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).conversations : [];
}

test("an ended conversation is titled and summarised by a side session of the user's own agent", async () => {
  const vault = tmpVault();
  const answer = JSON.stringify({ title: "Garden goodbye", summary: "The user said goodbye for today." });
  const agent = fakeAgent({
    turns: [
      { steps: [{ chunk: "Goodbye!" }, { mcpCall: { name: "end_conversation", arguments: { reason: "the user left" } } }] },
      { steps: [{ chunk: answer.slice(0, 20) }, { chunk: answer.slice(20) }] },
    ],
  });
  const port = await freePort();
  // The smarthole server listens beside the agent API, which wants a token of its own.
  const env = { SMARTHOLE_API_TOKEN: "a-test-token-of-the-agent-api-0123456789" };
  const child = headlessWithAgent(vault, agent.command, { args: ["--api-port", String(port)], env });
  try {
    child.stdin.write("goodbye for today\n");
    await waitFor(() => conversations(vault)[0]?.summary !== undefined, 30_000, `a summary; stderr: ${child.stderrText.slice(-1500)}`);
  } finally {
    // Serving the agent API, the command runs until it is closed.
    await stop(child);
  }
  const [ended] = conversations(vault);
  assert.equal(ended.status, "archived");
  assert.equal(ended.title, "Garden goodbye");
  assert.equal(ended.summary, "The user said goodbye for today.");
  assert.ok(agent.log().some((e) => e.mcp?.call?.name === "end_conversation" && !/isError":true/.test(e.mcp.answer)), "the conversation was ended through the smarthole server");
  // One process; the side session has no MCP servers and is not the conversation's.
  assert.equal(agent.starts().length, 1);
  const news = agent.read("session/new");
  assert.equal(news.length, 2);
  assert.equal(news[0].params.mcpServers[0].name, "smarthole");
  assert.deepEqual(news[1].params.mcpServers, []);
  const [turn, side] = agent.read("session/prompt");
  assert.notEqual(side.params.sessionId, turn.params.sessionId);
  assert.ok(side.params.prompt[0].text.startsWith(SUMMARY) && side.params.prompt[0].text.includes("goodbye for today"));
  assert.ok(!turn.params.prompt[0].text.includes(SUMMARY));
  assert.equal(ended.providerSessionId, `acp:${turn.params.sessionId}`, "the conversation keeps its own session");
  await noAgentLeft(agent.starts().map((s) => s.pid));
});

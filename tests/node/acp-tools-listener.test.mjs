// The `smarthole` MCP server's own listener: two headless instances (two vaults), each with the
// scripted ACP agent and the agent API off, both mid-turn at the same time, each agent using its
// own vault's tools through the URL its plugin gave it (127.0.0.1, a port the system picked) —
// no clash on one port, no agent reaching the other vault. No agent process is left.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { tmpVault } from "./helpers.mjs";
import { fakeAgent, headlessWithAgent, noAgentLeft, onceResult, scratch } from "./acp-plugin-peers.mjs";

/** An agent that reads Note.md, meets the other agent mid-turn, and reads it again. */
function meetingAgent(dir, me, other) {
  const read = { mcpCall: { name: "read_file", arguments: { path: "Note.md" } } };
  const steps = [read, { touch: path.join(dir, me) }, { waitFile: path.join(dir, other) }, { chunk: " | " }, read];
  return fakeAgent({ turns: [{ steps }] });
}

test("two vaults' agents use their own smarthole tools at the same time, the agent API off in both", { timeout: 90_000 }, async () => {
  const dir = scratch("acp-tools-listener-");
  const vaults = [tmpVault(), tmpVault()];
  writeFileSync(path.join(vaults[0], "Note.md"), "tulips in vault one\n");
  writeFileSync(path.join(vaults[1], "Note.md"), "roses in vault two\n");
  const agents = [meetingAgent(dir, "one", "two"), meetingAgent(dir, "two", "one")];
  const runs = vaults.map((vault, i) => headlessWithAgent(vault, agents[i].command, { args: ["--once", "read my note"], stdin: "ignore" }));
  // One that ends early (its listener refused, say) frees the other from waiting to meet it.
  for (const run of runs) void run.done.then(({ code }) => code !== 0 && runs.forEach((r) => r.kill("SIGTERM")));
  const codes = await Promise.all(runs.map((run) => run.done));
  const trace = runs.map((run) => run.stderrText).join("\n---\n");
  assert.deepEqual(codes.map((c) => c.code), [0, 0], trace);
  const [one, two] = runs.map(onceResult);
  assert.equal(one.success, true, trace);
  assert.equal(two.success, true, trace);
  // Each agent read its own vault's note, before and after the other agent's read.
  assert.match(one.response, /tulips in vault one[\s\S]* \| [\s\S]*tulips in vault one/, one.response);
  assert.match(two.response, /roses in vault two[\s\S]* \| [\s\S]*roses in vault two/, two.response);
  assert.doesNotMatch(one.response, /roses/);
  // Each was given its own listener; the agent API listened in neither.
  const urls = agents.map((agent) => agent.read("session/new")[0].params.mcpServers[0].url);
  for (const url of urls) assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  assert.notEqual(urls[0], urls[1]);
  assert.doesNotMatch(trace, /agent API listening/);
  await noAgentLeft(agents.flatMap((agent) => agent.starts().map((s) => s.pid)));
});

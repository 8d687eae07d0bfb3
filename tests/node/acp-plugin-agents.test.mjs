// Gemini CLI, opencode and Codex (pinned, tests/node/acp-recipes.mjs) through the plugin: the
// headless command with `--agent gemini|opencode|codex`, the preset's program found on PATH, each
// offline against its scripted model server. The model reads a note and edits it through the
// plugin's own MCP server (`smarthole`); the edit is a review-first change (an approval with its
// diff, answered by --approvals); the agent's own write and shell tools are not offered (the core
// switches them off its way for each agent); the agent's environment holds none of the plugin's
// secrets; nothing of the agent is left after the run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort, tmpVault, waitFor } from "./helpers.mjs";
import { RECIPES, GEMINI_WRITE_TOOLS, OPENCODE_WRITE_TOOLS, CODEX_WRITE_TOOLS } from "./acp-recipes.mjs";
import { childrenOf, headlessWithAgent, noAgentLeft, onceResult, scratch } from "./acp-plugin-peers.mjs";

const BEFORE = "# Plan\ntodo: call Ann\nb\nc\nd\ne\nf\ng\nh\ni\nj\ntodo: buy milk\n";

/** The plugin's secrets in the headless command's environment, and where a careless filter
 * would let them through (a variable with the agent's own prefix holding one). */
const MODEL_KEY = "sk-the-plugins-own-model-key-0123456789";
const API_TOKEN = "a".repeat(64);

/** Per agent: its scripted model server, how the model names the plugin's tools, the recipe's
 * environment as the user would have it, and the tools the model was offered on each step. */
const AGENTS = {
  gemini: {
    label: "Gemini CLI",
    server: async () => (await import("../peers/gemini-server.mjs")).startGeminiServer(),
    tool: (name) => `mcp_smarthole_${name}`,
    call: (name, args) => ({ functionCalls: [{ name: `mcp_smarthole_${name}`, args }] }),
    steps: (server) => server.requests.filter((r) => r.step),
    offered: (request) => request.body.tools.flatMap((t) => t.functionDeclarations ?? []).map((f) => f.name),
    /** What the model was sent back last (the tool's result). */
    lastResult: (request) => JSON.stringify(request.body.contents.at(-1)),
    ownWriteTools: GEMINI_WRITE_TOOLS,
    // Not write_file: Gemini CLI 0.61 hides an MCP tool whose name without its `mcp_<server>_`
    // prefix is a tool it excludes (ToolRegistry.isActiveTool), and its own write_file is
    // excluded (docs/ACP-AGENTS.md).
    ours: ["read_file", "edit_file", "list_files", "search_files"],
    prefixes: ["GEMINI_", "GOOGLE_"],
    /** Gemini CLI connects MCP servers only in a folder it trusts: the user trusts the vault once
     * in Gemini (its own ~/.gemini/trustedFolders.json); its settings choose API-key login. */
    home: (home, vault) => {
      mkdirSync(path.join(home, ".gemini"), { recursive: true });
      writeFileSync(path.join(home, ".gemini/settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }));
      writeFileSync(path.join(home, ".gemini/trustedFolders.json"), JSON.stringify({ [vault]: "TRUST_FOLDER" }));
    },
    env: (recipe) => ({ ...recipe.env, GEMINI_COPY_OF_THE_PLUGINS_KEY: MODEL_KEY }),
  },
  opencode: {
    label: "opencode",
    server: async () => (await import("../peers/openai-server.mjs")).startOpenAiServer(),
    tool: (name) => `smarthole_${name}`,
    call: (name, args) => ({ toolCalls: [{ name: `smarthole_${name}`, arguments: args }] }),
    steps: (server) => server.requests.filter((r) => r.step),
    offered: (request) => request.body.tools.map((t) => t.function.name),
    lastResult: (request) => JSON.stringify(request.body.messages.at(-1)),
    ownWriteTools: OPENCODE_WRITE_TOOLS,
    ours: ["read_file", "edit_file", "write_file", "list_files", "search_files"],
    prefixes: ["OPENCODE_"],
    home: () => {},
    env: (recipe) => {
      // The user's configuration without `tools`: switching its write tools off is the core's.
      const config = JSON.parse(recipe.env.OPENCODE_CONFIG_CONTENT);
      delete config.tools;
      return { ...recipe.env, OPENCODE_CONFIG_CONTENT: JSON.stringify(config), OPENCODE_COPY_OF_THE_PLUGINS_KEY: MODEL_KEY };
    },
  },
  codex: {
    label: "Codex",
    server: async () => (await import("../peers/openai-server.mjs")).startOpenAiServer(),
    // One namespace per MCP server (the Responses API's), its tools by their own names.
    tool: (name) => `mcp__smarthole__${name}`,
    call: (name, args) => ({ toolCalls: [{ namespace: "mcp__smarthole", name, arguments: args }] }),
    steps: (server) => server.requests.filter((r) => r.step),
    offered: (request) => request.body.tools.flatMap((t) => (t.type === "namespace" ? t.tools.map((n) => `${t.name}__${n.name}`) : [t.name ?? t.type])),
    lastResult: (request) => JSON.stringify(request.body.input.at(-1)),
    ownWriteTools: CODEX_WRITE_TOOLS,
    ours: ["read_file", "edit_file", "write_file", "list_files", "search_files"],
    prefixes: ["OPENAI_", "CODEX_"],
    /** Its provider in its own ~/.codex/config.toml, as the user would have it. */
    home: (home, vault, recipe) => {
      for (const [file, text] of Object.entries(recipe.files)) {
        mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
        writeFileSync(path.join(home, file), text);
      }
    },
    env: (recipe) => ({ ...recipe.env, OPENAI_COPY_OF_THE_PLUGINS_KEY: MODEL_KEY }),
  },
};

/** The environment process `pid` (a child of the headless command `parent`) was started with:
 * read once it has left the fork it began as (its command line no longer the parent's). */
async function environmentOf(pid, parent) {
  const cmdline = (p) => readFileSync(`/proc/${p}/cmdline`, "utf8");
  const parentCmdline = cmdline(parent);
  let environ = "";
  await waitFor(
    () => {
      try {
        if (cmdline(pid) === parentCmdline) return false;
        environ = readFileSync(`/proc/${pid}/environ`, "utf8");
        return true;
      } catch {
        return false;
      }
    },
    30_000,
    `the agent process ${pid} started`,
  );
  return Object.fromEntries(environ.split("\0").filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
}

for (const [name, agent] of Object.entries(AGENTS)) {
  test(`${agent.label} through the plugin (--agent ${name}): a read and an edit through the smarthole tools, the edit approved on its diff; its own write tools off; no secret in its environment; nothing left`, { timeout: 120_000 }, async () => {
    const server = await agent.server();
    const vault = tmpVault();
    const home = scratch(`acp-${name}-home-`);
    writeFileSync(path.join(vault, "Plan.md"), BEFORE);
    server.enqueue(
      agent.call("read_file", { path: "Plan.md" }),
      agent.call("edit_file", { path: "Plan.md", operation: "replace", old_text: "todo", new_text: "done", replace_all: true }),
      { text: "Both todos are done." },
    );
    const recipe = RECIPES[name]({ modelUrl: server.url, home, cwd: vault });
    agent.home(home, vault, recipe);
    const env = {
      ...agent.env(recipe),
      HOME: home,
      // The preset's program found on PATH, as on the user's machine.
      PATH: `${path.dirname(recipe.command)}:${process.env.PATH}`,
      MY_MODEL_KEY: MODEL_KEY,
      SMARTHOLE_API_TOKEN: API_TOKEN,
    };
    try {
      const port = await freePort();
      const child = headlessWithAgent(vault, undefined, {
        agent: name,
        args: ["--api-key-env", "MY_MODEL_KEY", "--api-port", String(port), "--approvals", "approve", "--once", "tick off my todos"],
        env,
        stdin: "ignore",
      });
      await waitFor(() => childrenOf(child.pid).length > 0, 30_000, "the agent process");
      const agents = childrenOf(child.pid);
      const agentEnv = await environmentOf(agents[0], child.pid);
      const { code } = await child.done;
      const steps = agent.steps(server);
      const trace = `${child.stderrText}\n${JSON.stringify(steps.map((s) => agent.lastResult(s)), null, 1)}`;
      assert.equal(code, 0, trace);
      const result = onceResult(child);
      assert.equal(result.success, true, trace);
      assert.equal(result.notice, undefined, "it reached the smarthole tools: nothing to tell");
      // (Codex first says, as text, that it has no metadata for the scripted model: no catalog offline.)
      assert.equal(result.response.replace(/^Model metadata for `scripted-model` not found\..*issues\./, ""), "Both todos are done.");

      // The edit was a review-first change (its diff an approval), approved, and made as asked.
      assert.match(child.stderrText, /\[approval: .*Plan\.md.* → approved \(--approvals\)\]/, trace);
      assert.equal(readFileSync(path.join(vault, "Plan.md"), "utf8"), BEFORE.replaceAll("todo", "done"), trace);

      // The model was offered the plugin's tools, and none of the agent's own that write or run.
      assert.equal(steps.length, 3, trace);
      for (const step of steps) {
        const tools = agent.offered(step);
        for (const ours of agent.ours) assert.ok(tools.includes(agent.tool(ours)), `${ours} not offered: ${tools.join(",")}`);
        for (const off of agent.ownWriteTools) assert.ok(!tools.includes(off), `${off} offered: ${tools.join(",")}`);
      }
      // The read answered with the note's text (the core's read_file), the edit with its report.
      assert.match(agent.lastResult(steps[1]), /todo: call Ann/, trace);
      assert.match(agent.lastResult(steps[2]), /Edited Plan\.md/, trace);

      // Its environment: PATH, HOME and its own prefixes; none of the plugin's secrets.
      for (const variable of Object.keys(agentEnv)) {
        assert.ok(["PATH", "HOME"].includes(variable) || agent.prefixes.some((p) => variable.startsWith(p)), `${variable} passed to the agent: ${Object.keys(agentEnv).join(",")}`);
      }
      const all = Object.entries(agentEnv).join("\n");
      assert.ok(!all.includes(MODEL_KEY) && !all.includes(API_TOKEN), "no secret of the plugin's reaches the agent");
      assert.ok(agentEnv[{ gemini: "GEMINI_API_KEY", opencode: "OPENCODE_CONFIG_CONTENT", codex: "OPENAI_API_KEY" }[name]], "the agent's own configuration is its own");

      await noAgentLeft(agents);
    } finally {
      await server.close();
    }
  });
}

/** Runs Gemini CLI through the plugin on `vault` (trusted in Gemini or not) with the model's
 * `steps`; returns the headless command, the model's steps and a trace for failures. */
async function geminiRun(vault, { trusted, steps, prompt }) {
  const agent = AGENTS.gemini;
  const server = await agent.server();
  const home = scratch("acp-gemini-home-");
  server.enqueue(...steps);
  const recipe = RECIPES.gemini({ modelUrl: server.url, home, cwd: vault });
  agent.home(home, vault, recipe);
  if (!trusted) rmSync(path.join(home, ".gemini/trustedFolders.json"));
  const env = { ...recipe.env, HOME: home, PATH: `${path.dirname(recipe.command)}:${process.env.PATH}`, SMARTHOLE_API_TOKEN: API_TOKEN };
  try {
    const port = await freePort();
    const args = ["--api-port", String(port), "--approvals", "approve", "--once", prompt];
    const child = headlessWithAgent(vault, undefined, { agent: "gemini", args, env, stdin: "ignore" });
    await waitFor(() => childrenOf(child.pid).length > 0 || child.exitCode !== null, 30_000, "the agent process");
    const agents = childrenOf(child.pid);
    const { code } = await child.done;
    assert.ok(agents.length > 0, `no agent process: ${child.stderrText}`);
    const modelSteps = agent.steps(server);
    const trace = `${child.stderrText}\n${child.stdoutText}\n${JSON.stringify(modelSteps.map((s) => agent.lastResult(s)), null, 1)}`;
    assert.equal(code, 0, trace);
    await noAgentLeft(agents);
    return { result: onceResult(child), child, steps: modelSteps, trace };
  } finally {
    await server.close();
  }
}

test("Gemini CLI creates a note through the smarthole write_file, served to it as write_note, and replaces one on its review-first card", { timeout: 120_000 }, async () => {
  const vault = tmpVault();
  writeFileSync(path.join(vault, "Plan.md"), BEFORE);
  const call = AGENTS.gemini.call;
  const { result, child, steps, trace } = await geminiRun(vault, {
    trusted: true,
    prompt: "start a note of ideas and rewrite my plan",
    steps: [call("write_note", { path: "Ideas.md", content: "# Ideas\nbulbs\n" }), call("write_note", { path: "Plan.md", content: "# Plan\nall done\n" }), { text: "Done." }],
  });
  assert.equal(result.success, true, trace);
  assert.equal(result.response, "Done.", trace);
  assert.equal(result.notice, undefined, trace);
  // Offered under its second name (its built-in name is hidden by Gemini: its own write_file is off).
  for (const step of steps) assert.ok(AGENTS.gemini.offered(step).includes("mcp_smarthole_write_note"), AGENTS.gemini.offered(step).join(","));
  assert.equal(readFileSync(path.join(vault, "Ideas.md"), "utf8"), "# Ideas\nbulbs\n", trace);
  assert.match(AGENTS.gemini.lastResult(steps[1]), /Created Ideas\.md/, trace);
  // Replacing a note is the built-in write_file's card, approved (--approvals approve).
  assert.match(child.stderrText, /\[approval: Replace the whole content of Plan\.md.* → approved \(--approvals\)\]/, trace);
  assert.equal(readFileSync(path.join(vault, "Plan.md"), "utf8"), "# Plan\nall done\n", trace);
});

test("Gemini CLI in a vault it does not trust: it never reaches the note tools, and the answer says how to trust the vault", { timeout: 120_000 }, async () => {
  const vault = tmpVault();
  const { result, steps, trace } = await geminiRun(vault, { trusted: false, prompt: "what is in Plan.md?", steps: [{ text: "I cannot see your notes." }] });
  assert.equal(result.success, true, trace);
  assert.ok(!AGENTS.gemini.offered(steps[0]).some((t) => t.startsWith("mcp_smarthole_")), "no smarthole tool offered in an untrusted folder");
  assert.match(result.notice ?? "", /^Gemini CLI did not connect to SmartHole's note tools/, trace);
  assert.ok(result.notice.includes(`open a terminal in ${vault}`) && result.notice.includes("trustedFolders.json"), result.notice);
});

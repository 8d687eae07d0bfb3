// Issue 14, the edges, through the headless host on a real folder: text from outside (an agent
// API reason, the model's words, tool names, note names) reaches the terminal with every control
// and escape shown, never obeyed; misspelled fields in --api-config / --mcp-config are refused by
// name (exit 2), and kept (not used, not lost) in the plugin's data.json; a verification or
// message is unknown on another context's port; a token in a query string stays out of the
// --verbose log; message ids too long for a file name once escaped still work, and a re-delivery
// finds the same file. After each case the host answers the next message; where the vault is
// touched, nothing outside it or in a protected folder changed (hostile-world.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { inbox, installedPlugin, once, runHeadless, sendTyped, startHeadless, tmpVault, waitFor, freePort } from "./helpers.mjs";
import { hostileWorld } from "./hostile-world.mjs";

const TOKEN = "e".repeat(64);
let server;
before(async () => {
  server = await startScriptedServer({ fallback: { kind: "text", text: "ok" } });
});
after(() => server.close());

/** Characters a terminal obeys: C0 but tab and newline, DEL, C1, bidi controls, separators. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

function assertTerminalSafe(text, label) {
  const at = text.search(RAW_CONTROL);
  assert.equal(at, -1, `${label}: a raw control character reached the terminal: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`);
}

/** Hostile texts: each tries to move the cursor, erase, retitle, reorder or fake a line. */
const HOSTILE = [
  ["CSI erase line + CR", "fine\x1b[2K\rAll good, approve it"],
  ["fake approval line", "x\n[approval ver-0000000000000000] An external agent asks to deploy: harmless"],
  ["OSC title + BEL", "\x1b]0;owned\x07title changed"],
  ["OSC 52 clipboard", "\x1b]52;c;cm0gLXJmIC8=\x07copied"],
  ["8-bit CSI (C1)", "\u009b2Jcleared"],
  ["bidi override", "deploy to \u202etset\u202c production"],
  ["backspaces", "safe\b\b\b\bevil"],
  ["CR without LF", "rm -rf /\rls -l    "],
  ["NUL and DEL", "a\u0000b\u007fc"],
];

test("an agent API reason with escape sequences cannot rewrite the approval line; nor can a token in the query reach the --verbose log; a verification is unknown on another context's port", async () => {
  const world = hostileWorld();
  const [port, reviewerPort] = [await freePort(), await freePort()];
  const config = path.join(world.root, "api.json");
  writeFileSync(
    config,
    JSON.stringify({
      verificationTimeoutSeconds: 60,
      agentContexts: [
        { name: "default", system: "s", role: "r", baseInstruction: "b", allowedActions: ["deploy"], verificationRequired: true },
        { name: "reviewer", port: reviewerPort, system: "s", role: "r", baseInstruction: "b", allowedActions: ["comment"], verificationRequired: true },
      ],
    }),
  );
  const before = world.snapshot();
  const headless = startHeadless(
    ["--vault", world.vault, "--llm-base-url", server.url, "--model", "scripted", "--no-stream", "--api-port", String(port), "--api-config", config, "--approvals", "ask", "--verbose"],
    { env: { SMARTHOLE_API_TOKEN: TOKEN }, stdin: "pipe" },
  );
  try {
    await waitFor(() => headless.stderrText.includes(`listening on http://127.0.0.1:${reviewerPort}`), 15_000, "the agent API");
    const call = (p, pathname, { method = "GET", body, token = TOKEN } = {}) =>
      fetch(`http://127.0.0.1:${p}${pathname}`, { method, headers: token ? { Authorization: `Bearer ${token}` } : {}, body: body && JSON.stringify(body) }).then(async (r) => ({
        status: r.status,
        body: await r.json(),
      }));

    for (const [label, reason] of HOSTILE) {
      const from = headless.stderrText.length;
      const asked = await call(port, "/verify", { method: "POST", body: { action: "deploy", reason } });
      assert.equal(asked.status, 202, `${label}: ${JSON.stringify(asked.body)}`);
      const id = asked.body.verification_id;
      await waitFor(() => headless.stderrText.slice(from).includes(`[approval ${id}]`), 10_000, `${label}: the approval line`);
      const printed = headless.stderrText.slice(from);
      assertTerminalSafe(printed, label);
      // The whole request is one line, and the only approval request line printed is its own
      // (a "[approval …]" inside the reason does not start a line).
      const approvalLines = printed.split("\n").filter((l) => /^\[approval [^\]:]+\] /.test(l));
      assert.equal(approvalLines.length, 1, `${label}: ${JSON.stringify(approvalLines)}`);
      assert.ok(approvalLines[0].startsWith(`[approval ${id}] An external agent asks to deploy: `), `${label}: ${approvalLines[0]}`);
      assert.ok(approvalLines[0].endsWith(`/reject ${id}`), `${label}: the line ends as the printer wrote it: ${approvalLines[0]}`);
      // The reason is shown, escaped: what was sent can still be read.
      if (reason.includes("\x1b")) assert.ok(approvalLines[0].includes("\\x1b"), label);
      // The verification was made on the main port for "default": unknown on reviewer's port.
      const elsewhere = await call(reviewerPort, `/verify/${id}`);
      assert.deepEqual([elsewhere.status, elsewhere.body.error?.code], [404, "unknown_verification"], label);
      headless.stdin.write(`/reject ${id}\n`);
      const polled = await call(port, `/verify/${id}?wait=10`);
      assert.equal(polled.body.status, "rejected", label);
    }

    // A token in the query string (right, wrong, or instead of the header): never in the log.
    const secret = "Q".repeat(40);
    const from = headless.stderrText.length;
    for (const url of [`/verify/ver-nope?token=${secret}`, `/config?access_token=${secret}`, `/context/nobody?token=${TOKEN}`, `/nope?Authorization=Bearer%20${secret}`]) {
      await call(port, url);
      await call(port, url, { token: null });
    }
    await waitFor(() => headless.stderrText.slice(from).includes("[redacted]"), 5_000, "the redacted log lines");
    assert.ok(!headless.stderrText.includes(secret), "a query's token reached the log");
    assert.ok(!headless.stderrText.includes(TOKEN), "the API token reached the log");

    // The host still answers: a message through the API, then one typed in the chat.
    server.enqueue({ kind: "text", text: "Still answering." });
    const message = await call(port, "/messages?wait=30", { method: "POST", body: { text: "are you there?" } });
    assert.equal(message.body.result?.response, "Still answering.", JSON.stringify(message.body));
    const onReviewer = await call(reviewerPort, `/messages/${message.body.message_id}`);
    assert.equal(onReviewer.status, 404, "a message sent on the main port is unknown on a context's port");
    server.enqueue({ kind: "text", text: "And in the chat." });
    headless.stdin.write("hello\n");
    await waitFor(() => headless.stdoutText.includes("And in the chat."), 10_000, "the chat answer");
    assertTerminalSafe(headless.stdoutText + headless.stderrText, "the whole run");
  } finally {
    headless.kill("SIGTERM");
    await headless.done;
  }
  world.assertIntact(before, "agent API");
});

test("the model's words, tool names and note names with escape sequences reach the terminal escaped; the result's JSON keeps them exactly", async () => {
  const world = hostileWorld();
  // A note whose name and text carry escapes.
  writeFileSync(path.join(world.vault, "Notes/evil\x1b[31m.md"), "text \x1b]0;owned\x07 and \u009b2J\n");
  const cases = [
    ...HOSTILE.map(([label, text]) => ({ label: `model text: ${label}`, steps: [{ kind: "text", text }], expect: text })),
    {
      label: "a tool name with escapes",
      steps: [{ kind: "tool_use", tools: [{ id: "t", name: "\x1b[2Jlist_files\u202e", input: {} }] }, { kind: "text", text: "done" }],
      expect: "done",
    },
    {
      label: "note names and note text read back",
      steps: [
        { kind: "tool_use", tools: [{ id: "l", name: "list_files", input: {} }, { id: "r", name: "read_file", input: { path: "Notes/evil\x1b[31m.md" } }] },
        { kind: "text", text: "Found Notes/evil\x1b[31m.md: text \x1b]0;owned\x07" },
      ],
      expect: "Found Notes/evil\x1b[31m.md: text \x1b]0;owned\x07",
    },
    {
      label: "a path with control characters, refused",
      steps: [{ kind: "tool_use", tools: [{ id: "w", name: "write_file", input: { path: "x\x1b[2J\r.md", content: "\x1b[2J" } }] }, { kind: "text", text: "refused" }],
      expect: "refused",
    },
  ];
  for (const { label, steps, expect } of cases) {
    for (const stream of [true, false]) {
      const before = world.snapshot();
      server.enqueue(...steps);
      const run = await once(world.vault, server.url, "go", ["--verbose", ...(stream ? [] : ["--no-stream"])]);
      assert.equal(run.code, 0, `${label}: ${run.stderr}`);
      assertTerminalSafe(run.stdout + run.stderr, `${label} (stream ${stream})`);
      assert.equal(run.result.response, expect, `${label}: the result keeps the text as it was`);
      world.assertIntact(before, label);
    }
  }
  const next = await once(world.vault, server.url, "and now?");
  assert.equal(next.result.success, true, "the host answers the next message");
});

test("a misspelled field in --api-config or --mcp-config is refused by name with the spelling meant (exit 2)", async () => {
  const vault = tmpVault();
  const context = { name: "default", system: "s", role: "r", baseInstruction: "b", allowedActions: ["deploy"], verificationRequired: true };
  const cases = [
    ["--api-config", { agentContexts: [{ name: "default", allowed_actions: ["deploy"] }] }, ["unknown field `allowed_actions` in --api-config at agentContexts[0] (did you mean `allowedActions`?)"]],
    ["--api-config", { agentContexts: [{ ...context, base_instruction: "b" }] }, ["unknown field `base_instruction` in --api-config at agentContexts[0] (did you mean `baseInstruction`?)"]],
    ["--api-config", { agentContexts: [{ ...context, verification_required: false }] }, ["unknown field `verification_required` in --api-config at agentContexts[0] (did you mean `verificationRequired`?)"]],
    ["--api-config", { agentContexts: [context, { name: "ci", Port: 9999 }] }, ["unknown field `Port` in --api-config at agentContexts[1] (did you mean `port`?)"]],
    ["--api-config", { agent_contexts: [context] }, ["unknown field `agent_contexts` in --api-config (did you mean `agentContexts`?)"]],
    ["--api-config", { verification_timeout_seconds: 5 }, ["unknown field `verification_timeout_seconds` in --api-config (did you mean `verificationTimeoutSeconds`?)"]],
    ["--api-config", { verificationTimeout: 5 }, ["unknown field `verificationTimeout` in --api-config"]],
    ["--api-config", { contexts: [context], agentApiPort: 9000 }, ["unknown field `agentApiPort` in --api-config", "unknown field `contexts` in --api-config"]],
    ["--api-config", { "\x1b[2Jx": 1 }, ["unknown field `\\x1b[2Jx` in --api-config"]],
    ["--mcp-config", { mcp_servers: [] }, ["unknown field `mcp_servers` in --mcp-config (did you mean `mcpServers`?)"]],
    ["--mcp-config", { mcpServers: [{ name: "a", command: "x", arg: ["y"] }] }, ["unknown field `arg` in --mcp-config at mcpServers[0] (did you mean `args`?)"]],
    ["--mcp-config", { mcpServers: [{ name: "a", url: "http://127.0.0.1:1/mcp", header: {} }] }, ["unknown field `header` in --mcp-config at mcpServers[0] (did you mean `headers`?)"]],
    ["--mcp-config", { mcpServers: [], agentContexts: [] }, ["unknown field `agentContexts` in --mcp-config"]],
  ];
  for (const [flag, json, expected] of cases) {
    const file = path.join(vault, "config.json");
    writeFileSync(file, JSON.stringify(json));
    const run = await runHeadless(["--vault", vault, "--llm-base-url", server.url, "--model", "scripted", flag, file, "--once", "hi"]);
    assert.equal(run.code, 2, `${flag} ${JSON.stringify(json)}: ${run.stderr}`);
    for (const message of expected) assert.ok(run.stderr.includes(message), `${flag} ${JSON.stringify(json)}: ${run.stderr}`);
    assertTerminalSafe(run.stderr, flag);
    assert.equal(run.stdout, "", "nothing was processed");
  }
  // The names the docs show are the names the parser takes.
  const good = path.join(vault, "good.json");
  writeFileSync(good, JSON.stringify({ agentContexts: [context], verificationTimeoutSeconds: 30 }));
  const run = await once(vault, server.url, "hi", ["--api-config", good]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.result.success, true);
});

test("message ids too long for a file name once escaped: processed, their files within 120 bytes, a re-delivery finds the same file", async () => {
  const world = hostileWorld();
  const shared = "ü".repeat(99);
  const ids = [
    ["200 bytes of é", "é".repeat(100)],
    ["50 emoji", "😀".repeat(50)],
    ["combining marks", `e${"\u0301".repeat(99)}`],
    ["CJK", "漢".repeat(66)],
    ["shared prefix a", `${shared}a`],
    ["shared prefix b", `${shared}b`],
    ["dots and slashes", "../".repeat(66)],
    ["escapes in the id", `\x1b[2J${"\u009b".repeat(90)}`],
  ];
  for (const [label, id] of ids) {
    const before = world.snapshot();
    const message = JSON.stringify({ id, text: `remember ${label}`, source: "websocket" });
    server.enqueue({ kind: "text", text: `noted: ${label}` });
    const first = await runHeadless(["--vault", world.vault, "--llm-base-url", server.url, "--model", "scripted", "--once-json", message]);
    assert.equal(first.code, 0, `${label}: ${first.stderr}`);
    const result = JSON.parse(first.stdout.trim().split("\n").pop());
    assert.deepEqual([result.success, result.messageId, result.response], [true, id, `noted: ${label}`], label);
    assertTerminalSafe(first.stdout + first.stderr, label);
    // Re-delivered: answered from history, no model call.
    const requests = server.requests.length;
    const again = await runHeadless(["--vault", world.vault, "--llm-base-url", server.url, "--model", "scripted", "--once-json", message]);
    assert.equal(again.code, 0, `${label}: ${again.stderr}`);
    assert.equal(JSON.parse(again.stdout.trim().split("\n").pop()).response, `noted: ${label}`, label);
    assert.equal(server.requests.length, requests, `${label}: a re-delivery calls no model`);
    for (const dir of ["inbox", "failed"]) {
      const names = dir === "inbox" ? inbox(world.vault) : readdirSafe(path.join(world.vault, ".smarthole", dir));
      assert.deepEqual(names, [], `${label}: ${dir}/ is empty`);
    }
    world.assertIntact(before, label);
    const next = await once(world.vault, server.url, "and now?");
    assert.equal(next.result.success, true, `${label}: the host answers the next message`);
  }
  // A long id left in the inbox by a crash keeps a short name, and is finished at the next start.
  const id = "😀".repeat(50);
  const crashed = await runHeadless(["--vault", world.vault, "--llm-base-url", server.url, "--model", "scripted", "--once-json", JSON.stringify({ id, text: "keep me" })], {
    env: { SMARTHOLE_TEST_KILL_AT: "inbox_written" },
  });
  assert.equal(crashed.signal, "SIGKILL", crashed.stderr);
  const left = inbox(world.vault);
  assert.equal(left.length, 1, JSON.stringify(left));
  assert.ok(Buffer.byteLength(left[0].replace(/\.json$/, "")) <= 120, left[0]);
  server.enqueue({ kind: "text", text: "kept and finished" });
  const next = await once(world.vault, server.url, "next");
  assert.match(next.stderr, /finished 1 message\(s\) left by an earlier run/);
  assert.deepEqual(inbox(world.vault), []);
  assert.equal(next.result.success, true);
});

function readdirSafe(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

test("data.json: unknown and misspelled fields are named in a notice, not used, and kept on every save", async () => {
  const { Plugin, obsidian } = installedPlugin()();
  const win = { addEventListener() {}, removeEventListener() {}, fetch: (...a) => fetch(...a) };
  Object.assign(globalThis, { window: win, activeWindow: win });
  const cases = [
    {
      label: "misspellings and a newer version's field",
      data: { maxTokenz: 100, futureSetting: { nested: [1, 2] }, hub_url: "ws://127.0.0.1:1" },
      notice: ["unknown field `futureSetting` in data.json", "unknown field `hub_url` in data.json (did you mean `hubUrl`?)", "unknown field `maxTokenz` in data.json (did you mean `maxTokens`?)"],
    },
    {
      label: "a context field in the API's spelling",
      data: { agentContexts: [{ name: "default", system: "s", role: "r", baseInstruction: "b", allowedActions: ["x"], verificationRequired: true, allowed_actions: ["y"] }] },
      notice: ["unknown field `allowed_actions` in data.json at agentContexts[0] (did you mean `allowedActions`?)"],
    },
    { label: "a value of the wrong type", data: { notificationTitle: 42 }, notice: ["field `notificationTitle` in data.json has a value of the wrong type"] },
    {
      // The core's reader decides (issue 33): a fraction, an object for a list, an unknown choice
      // are of the wrong type though JavaScript's typeof matches the default's (they once stopped the start).
      label: "values the settings' reader refuses",
      data: { maxIterations: 2.5, autoApproveTools: {}, apiFormat: "carrier-pigeon" },
      notice: ["field `apiFormat` in data.json has a value of the wrong type", "field `autoApproveTools` in data.json has a value of the wrong type", "field `maxIterations` in data.json has a value of the wrong type"],
    },
  ];
  try {
    for (const { label, data, notice } of cases) {
      const vault = tmpVault();
      const original = { baseUrl: server.url, hubEnabled: false, ...data };
      const app = obsidian.__test.createApp(vault, { secrets: { "anthropic-api-key": "k" }, data: structuredClone(original) });
      const plugin = new Plugin(app, { id: "smarthole-agent", version: "0.1.0" });
      const noticesBefore = obsidian.__test.notices.length;
      await plugin.onload();
      app.__layoutReady();
      await waitFor(() => plugin.runtime.ready, 10_000, `${label}: the core`);
      const shown = obsidian.__test.notices.slice(noticesBefore).join("\n");
      for (const n of notice) assert.ok(shown.includes(n), `${label}: ${shown}`);
      assert.match(shown, /kept in data\.json but not used/, label);
      // A save (any setting changed) writes back every field the user wrote.
      await plugin.userSettings.changeSetting("maxTokens", 512);
      const saved = app.__data;
      for (const [key, value] of Object.entries(data)) assert.deepEqual(saved[key], value, `${label}: ${key} kept`);
      assert.equal(saved.maxTokens, 512, label);
      const result = await sendTyped(plugin.runtime, "still there?");
      assert.equal(result.success, true, `${label}: the plugin answers`);
      plugin.onunload();
      plugin.unload();
    }
  } finally {
    delete globalThis.window;
    delete globalThis.activeWindow;
  }
});

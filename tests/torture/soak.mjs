// The soak: many messages through the headless host, over the agent API and the hub, while the
// scripted model injects faults (429 and 529 with retry-after-ms, connection resets, malformed
// SSE) and the hub restarts; conversations end now and then, as they do in use. Nothing may be
// lost or doubled; the process's memory (RSS, JS heap, wasm linear memory) is sampled every
// second for the report. `make test` runs a short one, `make soak` 10,000 messages.
// With `agent: "acp"` the messages are answered by an ACP agent (the scripted one) in a vault of
// `notes` notes with the search index and the meaning index built (a hashed-words embedding
// server): every `searchEvery`th turn the agent searches through SmartHole's tools, in words and
// by meaning, and every `endEvery`th it ends the conversation itself.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { hashedEmbeddingServer } from "../peers/hashed-embeddings.mjs";
import { startHub } from "../peers/hub.mjs";
import { fakeAgent } from "../node/acp-plugin-peers.mjs";
import { allHistory, freePort, inbox, startHeadless, tmpVault, waitFor } from "../node/helpers.mjs";

const TOKEN = "5041a".repeat(10);
const FAULTS = [
  { kind: "error", status: 429, type: "rate_limit_error", headers: { "retry-after-ms": "20" } },
  { kind: "error", status: 529, type: "overloaded_error", headers: { "retry-after-ms": "20" } },
  { kind: "reset", afterDeltas: 1 },
  { kind: "malformed", afterDeltas: 1 },
];

/** Words the soak's notes are made of and its agent searches for. */
const WORDS = ["harbour", "lantern", "orchard", "granite", "meadow", "compass", "thimble", "saffron", "glacier", "walnut", "ember", "quarry"];

/** `count` notes of a few paragraphs each under Soak/, their words from WORDS. */
function seedNotes(vault, count) {
  mkdirSync(path.join(vault, "Soak"), { recursive: true });
  for (let n = 0; n < count; n++) {
    const paragraph = (k) => Array.from({ length: 40 }, (_, i) => WORDS[(n * 7 + k * 5 + i * (k + 3)) % WORDS.length]).join(" ");
    writeFileSync(path.join(vault, "Soak", `Note ${n}.md`), `# Note ${n}\n\n${paragraph(1)}.\n\n${paragraph(2)}.\n\n${paragraph(3)} ${n}.\n`);
  }
}

/** The scripted ACP agent's turns: a search now and then, ending the conversation now and then, then "Noted." (what a tool
 * answered is sent as text, so the answer ends with it). */
function agentTurns(messages, searchEvery, endEvery) {
  return Array.from({ length: messages }, (_, i) => {
    const steps = [];
    if (i % searchEvery === 0) {
      const mode = ["words", "meaning", "hybrid"][(i / searchEvery) % 3];
      steps.push({ mcpCall: { name: "search_files", arguments: { query: `${WORDS[i % WORDS.length]} ${WORDS[(i + 5) % WORDS.length]}`, mode } } });
    }
    if (i % endEvery === endEvery - 1) steps.push({ mcpCall: { name: "end_conversation", arguments: { reason: "soak" } } });
    steps.push({ chunk: "Noted." });
    return { stopReason: "end_turn", steps };
  });
}

export async function soak({ messages = 10_000, agent = "builtin", notes = 2_000, searchEvery = 10, faultEvery = 25, hubRestartEvery = 1_000, hubEvery = 50, endEvery = 250, log = () => {} } = {}) {
  const acp = agent === "acp";
  const server = await startScriptedServer({ fallback: { kind: "text", text: "Noted." } });
  const embeddings = acp ? await hashedEmbeddingServer() : null;
  const hubPort = await freePort();
  let hub = await startHub({ port: hubPort, answerDeadlineMs: 120_000 });
  const apiPort = await freePort();
  const vault = tmpVault();
  const agentArgs = [];
  let scripted = null;
  if (acp) {
    seedNotes(vault, notes);
    scripted = fakeAgent({ cycle: true, turns: agentTurns(messages, searchEvery, endEvery) });
    agentArgs.push("--agent", "acp", "--agent-command", scripted.command, "--embeddings-base-url", embeddings.url, "--embeddings-model", "hashed-words");
  }
  const child = startHeadless(
    ["--vault", vault, "--llm-base-url", server.url, "--model", "scripted", "--hub", hub.url, "--hub-name", "soak", "--api-port", String(apiPort), "--stats-ms", "1000", ...agentArgs],
    { env: { SMARTHOLE_API_TOKEN: TOKEN } },
  );
  const samples = [];
  let progress = 0;
  child.stderr.on("data", (chunk) => {
    for (const [, json] of String(chunk).matchAll(/\[stats\] (\{.*\})/g)) samples.push({ ...JSON.parse(json), messages: progress });
  });
  const base = `http://127.0.0.1:${apiPort}`;
  const apiIds = [];
  const hubIds = [];
  // Faults queued: a background title or summary request may take one instead of a message.
  const counts = { faults: 0, hubRestarts: 0, conversationsEnded: 0 };
  const started = Date.now();
  try {
    await waitFor(() => child.stderrText.includes("agent API listening"), 15_000, "the agent API");
    await waitFor(() => hub.clients().some((c) => c.name === "soak"), 15_000, "hub registration");
    if (acp) await waitFor(() => child.stderrText.includes("Meaning index ready"), 300_000, "the search and meaning indexes");
    for (let i = 0; i < messages; i++) {
      // The scripted agent ends its own conversations; faults are the model server's.
      if (!acp && i > 0 && i % faultEvery === 0) {
        server.enqueue(FAULTS[(i / faultEvery) % FAULTS.length]);
        counts.faults++;
      }
      if (!acp && i > 0 && i % endEvery === 0) {
        server.enqueue({ kind: "tool_use", tools: [{ name: "end_conversation", input: { reason: "soak" } }] });
        counts.conversationsEnded++;
      }
      if (i > 0 && i % hubRestartEvery === 0) {
        await hub.close();
        hub = await startHub({ port: hubPort, answerDeadlineMs: 120_000 });
        counts.hubRestarts++;
        await waitFor(() => hub.clients().some((c) => c.name === "soak"), 60_000, "the client to register again").catch((error) => {
          const hubLines = child.stderrText.split("\n").filter((l) => l.startsWith("[hub")).slice(-8);
          throw new Error(`${error.message} after hub restart ${counts.hubRestarts}; the host said:\n${hubLines.join("\n")}`);
        });
      }
      if (i % hubEvery === hubEvery - 1 && hub.routable("soak")) {
        const id = hub.route("soak", { id: `hub-${i}`, text: `soak hub message ${i}` });
        hubIds.push(id);
        await hub.waitFor(() => hub.messages.get(id).notifications.length > 0, 60_000, `the answer to ${id}`);
      } else {
        const response = await fetch(`${base}/messages?wait=60`, {
          method: "POST",
          headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
          body: JSON.stringify({ text: `soak message ${i}` }),
        });
        const answer = await response.json();
        if (response.status !== 200 || answer.status !== "done") throw new Error(`message ${i}: ${response.status} ${JSON.stringify(answer)}`);
        // A stream cut by a fault and retried must not leave its partial text in the answer.
        // (The scripted agent's search results come before its "Noted.")
        if (acp ? !answer.result.response.endsWith("Noted.") : answer.result.response !== "Noted.") throw new Error(`message ${i} answered ${JSON.stringify(answer.result.response)}`);
        apiIds.push(answer.message_id);
      }
      progress = i + 1;
      if (progress % 1000 === 0) log(`${progress} messages, ${Math.round((Date.now() - started) / 1000)} s`);
    }
    await waitFor(() => inbox(child.vault ?? vault).length === 0, 30_000, "an empty inbox");
  } finally {
    child.kill("SIGTERM");
    await child.done;
    await hub.close();
    await server.close();
    await embeddings?.close();
  }
  const recorded = new Map();
  for (const line of allHistory(vault)) {
    if (line.role === "user" && line.id.endsWith("#0")) recorded.set(line.messageId, (recorded.get(line.messageId) ?? 0) + 1);
  }
  // The rate rule is the hub's display limit: one notification per answer is what the protocol
  // asks for, and this test routes far more than ten messages a minute on purpose.
  const broken = hub.protocolErrors.filter((e) => e.rule !== "notification-rate");
  if (broken.length > 0) throw new Error(`hub protocol errors: ${JSON.stringify(broken.slice(0, 3))}`);
  // Every search the agent made reached the indexes and found the seeded notes.
  const agentLog = scripted ? scripted.log() : [];
  const answered = (e) => e.mcp.status === 200 && JSON.parse(e.mcp.answer).result?.isError !== true;
  if (acp) counts.conversationsEnded = agentLog.filter((e) => e.mcp?.call?.name === "end_conversation" && answered(e)).length;
  // (A title or summary is asked in a side session with no SmartHole tools: a turn played there
  // has no server to search, as a real agent would have none.)
  const searches = agentLog.filter((e) => e.mcp?.call?.name === "search_files" && e.mcp.answer !== "no smarthole server was given");
  const found = searches.filter((e) => answered(e) && e.mcp.answer.includes("Soak/Note "));
  if (found.length !== searches.length) throw new Error(`searches that found nothing: ${JSON.stringify(searches.find((e) => !found.includes(e))).slice(0, 600)} (${searches.length - found.length} of ${searches.length})`);
  if (acp && searches.length < Math.floor(messages / searchEvery / 2)) throw new Error(`the agent searched ${searches.length} times in ${messages} turns`);
  const missing = [...apiIds, ...hubIds].filter((id) => recorded.get(id) !== 1);
  if (missing.length > 0) throw new Error(`not recorded exactly once: ${missing.slice(0, 10).join(", ")} (${missing.length})`);
  return { messages, agent, notes: acp ? notes : 0, searches: searches.length, seconds: (Date.now() - started) / 1000, api: apiIds.length, hub: hubIds.length, ...counts, samples };
}

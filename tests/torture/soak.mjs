// The soak: many messages through the headless host, over the agent API and the hub, while the
// scripted model injects faults (429 and 529 with retry-after-ms, connection resets, malformed
// SSE) and the hub restarts; conversations end now and then, as they do in use. Nothing may be
// lost or doubled; the process's memory (RSS, JS heap, wasm linear memory) is sampled every
// second for the report. `make test` runs a short one, `make soak` 10,000 messages.
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { startHub } from "../peers/hub.mjs";
import { allHistory, freePort, inbox, startHeadless, tmpVault, waitFor } from "../node/helpers.mjs";

const TOKEN = "5041a".repeat(10);
const FAULTS = [
  { kind: "error", status: 429, type: "rate_limit_error", headers: { "retry-after-ms": "20" } },
  { kind: "error", status: 529, type: "overloaded_error", headers: { "retry-after-ms": "20" } },
  { kind: "reset", afterDeltas: 1 },
  { kind: "malformed", afterDeltas: 1 },
];

export async function soak({ messages = 10_000, faultEvery = 25, hubRestartEvery = 1_000, hubEvery = 50, endEvery = 250, log = () => {} } = {}) {
  const server = await startScriptedServer({ fallback: { kind: "text", text: "Noted." } });
  const hubPort = await freePort();
  let hub = await startHub({ port: hubPort, answerDeadlineMs: 120_000 });
  const apiPort = await freePort();
  const vault = tmpVault();
  const child = startHeadless(
    ["--vault", vault, "--llm-base-url", server.url, "--model", "scripted", "--hub", hub.url, "--hub-name", "soak", "--api-port", String(apiPort), "--stats-ms", "1000"],
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
    for (let i = 0; i < messages; i++) {
      if (i > 0 && i % faultEvery === 0) {
        server.enqueue(FAULTS[(i / faultEvery) % FAULTS.length]);
        counts.faults++;
      }
      if (i > 0 && i % endEvery === 0) {
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
        if (answer.result.response !== "Noted.") throw new Error(`message ${i} answered ${JSON.stringify(answer.result.response)}`);
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
  }
  const recorded = new Map();
  for (const line of allHistory(vault)) {
    if (line.role === "user" && line.id.endsWith("#0")) recorded.set(line.messageId, (recorded.get(line.messageId) ?? 0) + 1);
  }
  // The rate rule is the hub's display limit: one notification per answer is what the protocol
  // asks for, and this test routes far more than ten messages a minute on purpose.
  const broken = hub.protocolErrors.filter((e) => e.rule !== "notification-rate");
  if (broken.length > 0) throw new Error(`hub protocol errors: ${JSON.stringify(broken.slice(0, 3))}`);
  const missing = [...apiIds, ...hubIds].filter((id) => recorded.get(id) !== 1);
  if (missing.length > 0) throw new Error(`not recorded exactly once: ${missing.slice(0, 10).join(", ")} (${missing.length})`);
  return { messages, seconds: (Date.now() - started) / 1000, api: apiIds.length, hub: hubIds.length, ...counts, samples };
}

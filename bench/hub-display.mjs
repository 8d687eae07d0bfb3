// Issue 16: answers visible on the hub's screen out of answers sent, for bursts of 5, 20 and 100
// messages one second apart, through the headless host and the test hub (whose display queue
// merges by title within 5 s, shows 10 a minute at least 1 s apart, keeps 20 waiting; and which
// remembers only its last 100 deliveries). Issue 32: 110 messages routed with no gap, so the first
// ten ids are forgotten before they are answered. Beside each, the same burst answered the old way
// (one notification per answer, all titled "Obsidian", sent at once) by a raw client against
// another test hub, for comparison.
// Reported, never asserted. `node bench/hub-display.mjs` after `make build` (about 12 minutes).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { startHub } from "../tests/peers/hub.mjs";
import { startEchoModel } from "../tests/peers/echo-model.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const answerOf = (i) => `Noted item ${i}.`;

/** Waits until `done()` or `ms` pass. */
async function until(done, ms) {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await sleep(100);
}

/** The old behaviour: ack, then at once one notification titled "Obsidian" per answer. */
async function oldClient(hub) {
  const ws = new WebSocket(hub.url);
  await new Promise((r) => ws.once("open", r));
  ws.send(JSON.stringify({ type: "registration", payload: { name: "obsidian", description: "notes" } }));
  ws.on("message", (data) => {
    const frame = JSON.parse(String(data));
    if (frame.type !== "message") return;
    const { id, text } = frame.payload;
    const respond = (type, payload) => ws.send(JSON.stringify({ type: "response", payload: { messageId: id, type, payload } }));
    respond("ack", {});
    respond("notification", { title: "Obsidian", body: answerOf(text.replace("remember item ", "")), priority: "normal" });
  });
  await hub.waitFor(() => hub.clients().length === 1, 5_000, "the old client");
  return ws;
}

/** One burst of `count` messages, `gapMs` apart, to the plugin and to the old client at once. */
async function burst(count, model, gapMs = 1_000) {
  const hub = await startHub();
  const old = await startHub();
  const vault = mkdtempSync(path.join(tmpdir(), "smarthole-bench-hub-"));
  const child = spawn(process.execPath, [path.join(ROOT, "js-shim/dist/headless.js"), "--vault", vault, "--llm-base-url", model.url,
    "--model", "echo", "--no-stream", "--hub", hub.url], { stdio: ["pipe", "ignore", "ignore"], env: { ...process.env, ANTHROPIC_API_KEY: "" } });
  const oldWs = await oldClient(old);
  await hub.waitFor(() => hub.clients().length === 1, 15_000, "the plugin");
  const started = Date.now();
  for (let i = 1; i <= count; i++) {
    hub.route("obsidian", { text: `remember item ${i}` });
    old.route("obsidian", { text: `remember item ${i}` });
    if (gapMs > 0) await sleep(gapMs);
  }
  const seen = (h) => { const text = h.visibleText(); let n = 0; for (let i = 1; i <= count; i++) if (text.includes(answerOf(i))) n++; return n; };
  // Let both display queues drain (at most 20 wait, 10 a minute: two minutes at most).
  await until(() => seen(hub) === count && seen(old) === count, 150_000);
  await until(() => false, 0);
  const result = {
    sent: count,
    visible: seen(hub),
    notifications: hub.display.shown.length,
    last_shown_s: Math.round(((hub.display.shown.at(-1)?.at ?? started) - started) / 1000),
    old_visible: seen(old),
    old_merged: old.display.merged.length,
    old_dropped: old.display.dropped.length,
  };
  child.kill("SIGTERM");
  oldWs.close();
  await hub.close();
  await old.close();
  return result;
}

export async function hubDisplayBenchmarks() {
  const model = await startEchoModel((text) => (text.startsWith("remember item") ? answerOf(text.slice("remember item ".length)) : "ok"));
  const out = {};
  for (const count of [5, 20, 100]) out[`hub_burst_${count}`] = await burst(count, model);
  out.hub_at_once_110 = await burst(110, model, 0);
  await model.close();
  return out;
}

/** Its section of docs/BENCHMARKS.md. */
export function hubDisplaySection(r) {
  if (!r?.hub_burst_5) return "";
  const row = (n, key = `hub_burst_${n}`, label = `${n}`) => {
    const b = r[key];
    if (!b) return "";
    return `| ${label} | ${b.visible} / ${b.sent} | ${b.notifications} | ${b.last_shown_s} s | ${b.old_visible} / ${b.sent} (${b.old_merged} merged, ${b.old_dropped} dropped) |`;
  };
  return `
## Answers visible on the hub

\`node bench/hub-display.mjs\` (also run by \`make bench\`): bursts of messages one second apart routed by the test hub
(tests/peers/hub.mjs, whose display queue behaves like the SmartHole hub's: same title within 5 s merged, 10 a minute,
1 s apart, 20 waiting; and which, like the hub, remembers only its last 100 deliveries) to the headless host, answered
by a local echo model; an answer counts as visible when its text is in a notification the queue showed. "110 at once"
is 110 messages routed with no gap: the hub has forgotten the first ten ids before they are answered, and the answers
come faster than the hub shows notifications (before issue 32 the plugin showed 20 of them here: its first answer went
under a forgotten id, and one notification took the other 109 and named 20). "Before" is the same burst answered the
old way (one notification per answer, all titled "Obsidian", sent at once) against another test hub.

| burst | visible (now) | notifications shown | last shown after | visible before |
|---|---|---|---|---|
${row(5)}
${row(20)}
${row(100)}
${row(110, "hub_at_once_110", "110 at once")}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await hubDisplayBenchmarks();
  for (const [k, v] of Object.entries(r)) console.log(k, JSON.stringify(v));
  console.log(hubDisplaySection(r));
}

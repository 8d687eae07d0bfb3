// Crash torture: the headless host is SIGKILLed at random moments while direct messages (its
// stdin) and hub messages (the strict hub peer) stream in; after every kill it is started again.
// A last start finishes the inbox. Then: every message that reached the inbox is recorded
// exactly once or is in failed/; nothing is recorded twice; the inbox is empty; every history
// line parses. `make test` runs a short version (tests/node/torture.test.mjs), `make soak` 200+.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { startHub } from "../peers/hub.mjs";
import { allHistory, history, inbox, startHeadless, tmpVault, waitFor } from "../node/helpers.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs `kills` kill-and-restart rounds; resolves with counts, throws on a broken invariant
 * (the message names the seed, which replays the same random choices; the machine's timing varies). */
export async function crashTorture(options = {}) {
  try {
    return await torture(options);
  } catch (error) {
    throw new Error(`crash torture (seed ${options.seed ?? 1}): ${error.message}`);
  }
}

async function torture({ kills = 200, seed = 1, log = () => {} } = {}) {
  let state = seed >>> 0 || 1;
  const random = () => ((state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
  const server = await startScriptedServer({ fallback: { kind: "text", text: "Noted.", delayMs: 5 } });
  const hub = await startHub({ answerDeadlineMs: 60_000 });
  const vault = tmpVault();
  const sent = new Set();
  const seenInInbox = new Set();
  let counter = 0;
  let hubRouted = 0;
  const args = ["--vault", vault, "--llm-base-url", server.url, "--model", "scripted", "--hub", hub.url, "--hub-name", "torture"];
  const noteInbox = () => {
    for (const f of inbox(vault)) if (f.endsWith(".json")) seenInInbox.add(f.slice(0, -".json".length));
  };
  let child = null;
  try {
    for (let round = 0; round < kills; round++) {
      child = startHeadless(args, { stdin: "pipe" });
      const lifetime = 150 + Math.floor(random() * 900);
      const started = Date.now();
      while (Date.now() - started < lifetime) {
        const id = `t${round}-${counter++}`;
        const text = `torture message ${id}`;
        if (random() < 0.5) {
          child.stdin.write(`${text}\n`);
          sent.add(text);
        } else if (hub.routable("torture")) {
          hub.route("torture", { id, text });
          sent.add(text);
          hubRouted++;
        }
        await sleep(10 + Math.floor(random() * 60));
        noteInbox();
      }
      child.kill("SIGKILL");
      await child.done;
      noteInbox();
      if (round % 25 === 24) log(`${round + 1} kills, ${sent.size} messages sent`);
    }
    // The last start: nothing strikes. It finishes the inbox; a final message shows it is idle.
    const last = (child = startHeadless(args, { stdin: "pipe" }));
    last.stdin.write("the last message\n");
    await waitFor(() => history(vault).some((l) => l.role === "user" && l.content?.[0]?.text === "the last message") && inbox(vault).length === 0, 60_000, "the last start to finish the inbox");
    last.kill("SIGTERM");
    await last.done;
  } finally {
    // A broken invariant must not leave a host running (it would keep the test file alive).
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await hub.close();
    await server.close();
  }
  const recorded = new Map();
  for (const line of allHistory(vault)) {
    if (line.role === "user" && line.id.endsWith("#0")) recorded.set(line.messageId, (recorded.get(line.messageId) ?? 0) + 1);
  }
  const failedDir = path.join(vault, ".smarthole/failed");
  const failed = new Set(existsSync(failedDir) ? readdirSync(failedDir).map((f) => f.replace(/\.json$/, "")) : []);
  const doubled = [...recorded].filter(([, n]) => n > 1);
  if (doubled.length > 0) throw new Error(`recorded more than once: ${JSON.stringify(doubled)}`);
  const stemOf = (id) => id.replace(/[^A-Za-z0-9_-]/g, (c) => `~${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
  const lost = [...seenInInbox].filter((stem) => ![...recorded.keys()].some((id) => stemOf(id) === stem) && !failed.has(stem));
  if (lost.length > 0) throw new Error(`reached the inbox but ended nowhere: ${lost.join(", ")}`);
  if (inbox(vault).length > 0) throw new Error(`inbox not empty: ${inbox(vault).join(", ")}`);
  // allHistory() above parsed every line of every conversation: a torn or corrupt one would throw.
  // The hub saw an ack only after the inbox write: every acked message must be in history.
  const acked = [...hub.messages.values()].filter((m) => m.acked).map((m) => m.id);
  const unrecorded = acked.filter((id) => recorded.get(id) !== 1 && !failed.has(stemOf(id)));
  if (unrecorded.length > 0) throw new Error(`acked by the host but not recorded once: ${unrecorded.join(", ")}`);
  // The rate rule is the hub's display limit: one notification per answer is what the protocol
  // asks for, and this test routes far more than ten messages a minute on purpose.
  const broken = hub.protocolErrors.filter((e) => e.rule !== "notification-rate");
  if (broken.length > 0) throw new Error(`hub protocol errors: ${JSON.stringify(broken.slice(0, 3))}`);
  if (kills >= 5 && hubRouted === 0) throw new Error("no hub message was routed: the torture did not exercise the hub");
  return { kills, seed, sent: sent.size, hubRouted, hubAcked: acked.length, reachedInbox: seenInInbox.size, recorded: recorded.size, failed: failed.size };
}

// `make soak`: the long crash torture and the long soaks (the built-in agent with injected faults;
// an ACP agent searching a vault with the search and meaning indexes built); their memory samples
// go to target/soak/samples.json and samples-acp.json, which `make bench` plots.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { crashTorture } from "./crash-torture.mjs";
import { soak } from "./soak.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { values } = parseArgs({ options: { kills: { type: "string", default: "200" }, messages: { type: "string", default: "10000" }, notes: { type: "string", default: "2000" }, agents: { type: "string", default: "builtin,acp" } } });
const log = (line) => console.log(`  ${line}`);

if (Number(values.kills) > 0) {
  console.log(`crash torture: ${values.kills} kills`);
  console.log(await crashTorture({ kills: Number(values.kills), seed: Date.now() % 100_000, log }));
}
for (const agent of values.agents.split(",")) {
  const notes = agent === "acp" ? ` in a vault of ${values.notes} notes, indexed in words and by meaning` : "";
  console.log(`soak: ${values.messages} messages answered by the ${agent === "acp" ? "scripted ACP agent" : "built-in agent"}${notes}`);
  const result = await soak({ messages: Number(values.messages), agent, notes: Number(values.notes), log });
  const { samples, ...summary } = result;
  console.log(summary);
  const first = samples[1] ?? samples[0];
  const last = samples.at(-1);
  const mb = (b) => (b / 1024 / 1024).toFixed(1);
  console.log(`memory: rss ${mb(first.rss)} → ${mb(last.rss)} MB, JS heap ${mb(first.heapUsed)} → ${mb(last.heapUsed)} MB, wasm ${mb(first.wasm)} → ${mb(last.wasm)} MB`);
  mkdirSync(path.join(ROOT, "target/soak"), { recursive: true });
  const file = path.join(ROOT, `target/soak/${agent === "acp" ? "samples-acp" : "samples"}.json`);
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), ...summary, samples }, null, 1));
  console.log(`wrote ${path.relative(ROOT, file)}`);
}

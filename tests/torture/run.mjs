// `make soak`: the long crash torture and the long soak; the soak's memory samples go to
// target/soak/samples.json, which `make bench` plots.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { crashTorture } from "./crash-torture.mjs";
import { soak } from "./soak.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { values } = parseArgs({ options: { kills: { type: "string", default: "200" }, messages: { type: "string", default: "10000" } } });
const log = (line) => console.log(`  ${line}`);

console.log(`crash torture: ${values.kills} kills`);
console.log(await crashTorture({ kills: Number(values.kills), seed: Date.now() % 100_000, log }));
console.log(`soak: ${values.messages} messages`);
const result = await soak({ messages: Number(values.messages), log });
const { samples, ...summary } = result;
console.log(summary);
const first = samples[1] ?? samples[0];
const last = samples.at(-1);
const mb = (b) => (b / 1024 / 1024).toFixed(1);
console.log(`memory: rss ${mb(first.rss)} → ${mb(last.rss)} MB, JS heap ${mb(first.heapUsed)} → ${mb(last.heapUsed)} MB, wasm ${mb(first.wasm)} → ${mb(last.wasm)} MB`);
mkdirSync(path.join(ROOT, "target/soak"), { recursive: true });
writeFileSync(path.join(ROOT, "target/soak/samples.json"), JSON.stringify({ date: new Date().toISOString(), ...summary, samples }, null, 1));
console.log("wrote target/soak/samples.json");

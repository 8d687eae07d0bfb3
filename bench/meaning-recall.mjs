// Search by meaning, recall (issue 35): a prototype outside the product that does in JavaScript
// what the core will do, to check the questions and choose the fusion before the core is wired.
// On the documentation vault (bench/meaning-vault.mjs) and the everyday questions of
// bench/meaning-questions.json: notes cut as chunks.rs cuts them (bench/meaning-chunks.mjs),
// every passage embedded by the offline model (scripts/local-model.sh embeddings-start), notes
// ranked by their best passage's cosine (meaning), by BM25 over the question's words (words),
// and both fused as fusion.rs fuses them over the top 50 of each (hybrid, at several meaning
// weights), beside equal-weight reciprocal rank fusion. Prints recall@1/5/10: the share of
// questions with one of their answering notes in the first k.
// Vectors are cached under target/meaning-cache/, keyed by model and embedded text.
// `node bench/meaning-recall.mjs [--cold] [--misses] [--write]`: --cold ignores the cache (to time
// the embedding of the vault), --misses lists the questions hybrid misses in its first 5,
// --write splices the results into docs/BENCHMARKS.md. MEANING_BENCH_PORT picks the port.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chunks, embedText } from "./meaning-chunks.mjs";
import { meaningVault, vaultNotes } from "./meaning-vault.mjs";
import { spliceSection } from "./markdown.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const LOCAL_MODEL = path.join(ROOT, "scripts/local-model.sh");
const CACHE_DIR = path.join(ROOT, "target/meaning-cache");
/** Candidates each list gives the fusion (the core's hybrid search takes as many). */
const TOP = 50;
/** The meaning weights tried; fusion.rs's MEANING_WEIGHT is one of them. */
export const WEIGHTS = [0.5, 0.6, 0.7, 0.8, 0.9];
/** Inputs per embeddings request. */
const BATCH = 32;
const KS = [1, 5, 10];

const run = (...args) => execFileSync(LOCAL_MODEL, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const lastLine = (s) => s.split("\n").pop();

/** The embedding server: reused when one answers on the port, else started (and stopped after). */
export function embeddingServer(port) {
  try {
    return { url: lastLine(run("embeddings-status", port)), started: false };
  } catch {
    return { url: lastLine(run("embeddings-start", port)), started: true };
  }
}

/** A refused input that only a shorter one can fix (the server does not truncate). */
class TooLarge extends Error {}

/** The vectors of `inputs` (Float32Array each) in one request. */
async function embedBatch(url, model, inputs) {
  const response = await fetch(`${url}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, input: inputs, encoding_format: "base64" }),
  });
  const body = await response.text();
  // As llm/embeddings.rs decides: by the message, whatever the status (llama.cpp answers 400 or 500).
  if (!response.ok && /too large|too long|exceed|context length|maximum context|input length/i.test(body)) throw new TooLarge(body);
  if (!response.ok) throw new Error(`embeddings: HTTP ${response.status}: ${body.slice(0, 300)}`);
  const data = JSON.parse(body).data.sort((a, b) => a.index - b.index);
  return data.map((d) => {
    const raw = Buffer.from(d.embedding, "base64");
    return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  });
}

/** One input's vector; refused as too large, it is cut to three quarters (at a space) and retried. */
async function embedOne(url, model, input, stats) {
  for (let text = input; ; ) {
    try {
      return (await embedBatch(url, model, [text]))[0];
    } catch (error) {
      if (!(error instanceof TooLarge) || text.length < 16) throw error;
      const at = text.lastIndexOf(" ", Math.floor(text.length * 0.75));
      text = text.slice(0, at > 0 ? at : Math.floor(text.length * 0.75));
      stats.cuts += 1;
    }
  }
}

/** A cache of vectors by sha256 of model and text, one JSON file per model. */
export function vectorCache(model) {
  const file = path.join(CACHE_DIR, `${model.replace(/[^\w.-]+/g, "_")}.json`);
  const stored = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : { vectors: {}, timing: null };
  const key = (text) => createHash("sha256").update(`${model}\n${text}`).digest("hex");
  return {
    get: (text) => {
      const b64 = stored.vectors[key(text)];
      if (b64 === undefined) return undefined;
      const raw = Buffer.from(b64, "base64");
      return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    },
    set: (text, vector) => (stored.vectors[key(text)] = Buffer.from(vector.buffer).toString("base64")),
    timing: () => stored.timing,
    setTiming: (timing) => (stored.timing = timing),
    save: () => {
      mkdirSync(CACHE_DIR, { recursive: true });
      writeFileSync(file, JSON.stringify(stored));
    },
  };
}

/** Vectors for `texts` (cache first, then batches; a refused batch one input at a time). */
export async function embedAll(url, model, texts, cache, { cold }) {
  const stats = { embedded: 0, cuts: 0, seconds: 0 };
  const vectors = texts.map((t) => (cold ? undefined : cache.get(t)));
  const missing = texts.map((_, i) => i).filter((i) => vectors[i] === undefined);
  const start = performance.now();
  for (let b = 0; b < missing.length; b += BATCH) {
    const ids = missing.slice(b, b + BATCH);
    let got;
    try {
      got = await embedBatch(url, model, ids.map((i) => texts[i]));
    } catch (error) {
      if (!(error instanceof TooLarge)) throw error;
      got = [];
      for (const i of ids) got.push(await embedOne(url, model, texts[i], stats));
    }
    ids.forEach((i, n) => {
      vectors[i] = got[n];
      cache.set(texts[i], got[n]);
    });
    stats.embedded += ids.length;
  }
  stats.seconds = (performance.now() - start) / 1000;
  return { vectors, stats };
}

const dot = (a, b) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const norm = (v) => Math.sqrt(dot(v, v));

/** Lower-cased alphanumeric terms. */
export const terms = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A plain BM25 (k1 1.2, b 0.75) over the notes' whole text. */
function bm25Index(notes) {
  const docs = notes.map(({ text }) => {
    const tf = new Map();
    const ts = terms(text);
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { tf, length: ts.length };
  });
  const df = new Map();
  for (const { tf } of docs) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const avg = docs.reduce((s, d) => s + d.length, 0) / docs.length;
  const n = docs.length;
  return (query) => {
    const qs = [...new Set(terms(query))];
    const scored = [];
    docs.forEach((doc, i) => {
      let score = 0;
      for (const q of qs) {
        const f = doc.tf.get(q);
        if (!f) continue;
        const idf = Math.log(1 + (n - df.get(q) + 0.5) / (df.get(q) + 0.5));
        score += (idf * f * 2.2) / (f + 1.2 * (1 - 0.75 + (0.75 * doc.length) / avg));
      }
      if (score > 0) scored.push([notes[i].path, score]);
    });
    return scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, TOP);
  };
}

/** fusion.rs's `fuse`: each list min–max scaled within the query, summed with the weights. */
export function fuse(words, meaning, meaningWeight) {
  const fused = new Map();
  for (const [list, weight] of [[words, 1 - meaningWeight], [meaning, meaningWeight]]) {
    const scores = list.map(([, s]) => s);
    const low = Math.min(...scores);
    const high = Math.max(...scores);
    for (const [key, score] of list) {
      const scaled = high > low ? (score - low) / (high - low) : 1;
      fused.set(key, (fused.get(key) ?? 0) + weight * scaled);
    }
  }
  return [...fused].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** Equal-weight reciprocal rank fusion (k = 60), for comparison. */
function rrf(words, meaning) {
  const fused = new Map();
  for (const list of [words, meaning]) list.forEach(([key], rank) => fused.set(key, (fused.get(key) ?? 0) + 1 / (60 + rank + 1)));
  return [...fused].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** Runs the whole measurement; returns what the report prints. */
export async function meaningRecall({ cold = false, sample = 0, port = process.env.MEANING_BENCH_PORT ?? "8115" } = {}) {
  const dir = meaningVault();
  const notes = vaultNotes(dir).map((p) => ({ path: p, text: readFileSync(path.join(dir, p), "utf8") }));
  const questions = JSON.parse(readFileSync(path.join(ROOT, "bench/meaning-questions.json"), "utf8")).questions;
  const known = new Set(notes.map((n) => n.path));
  for (const q of questions) for (const a of q.answers) if (!known.has(a)) throw new Error(`${q.question}: no note ${a}`);
  const passages = notes.flatMap((n) => chunks(n.path, n.text).map((c) => ({ note: n.path, text: embedText(c) })));

  const model = run("embeddings-model");
  const server = embeddingServer(port);
  const cache = vectorCache(model);
  let embedded;
  let asked;
  let throughput = null;
  try {
    embedded = await embedAll(server.url, model, passages.map((p) => p.text), cache, { cold });
    if (embedded.stats.embedded === passages.length) cache.setTiming({ chunks: passages.length, seconds: embedded.stats.seconds });
    asked = await embedAll(server.url, model, questions.map((q) => q.question), cache, { cold: true });
    // Throughput on a spread of passages embedded again (the cache left aside): a figure for
    // the vault's embedding time without waiting for all of it.
    if (sample > 0) {
      const step = Math.max(1, Math.floor(passages.length / sample));
      const picked = passages.filter((_, i) => i % step === 0).slice(0, sample).map((p) => p.text);
      throughput = (await embedAll(server.url, model, picked, cache, { cold: true })).stats;
    }
  } finally {
    cache.save();
    if (server.started) run("embeddings-stop", port);
  }

  const words = bm25Index(notes);
  const rankings = { words: [], meaning: [], ...Object.fromEntries(WEIGHTS.map((w) => [`hybrid ${w}`, []])), "RRF (equal)": [] };
  questions.forEach((q, qi) => {
    const query = asked.vectors[qi];
    const best = new Map();
    passages.forEach((p, pi) => {
      const v = embedded.vectors[pi];
      const cos = dot(query, v) / (norm(query) * norm(v) || 1);
      if (cos > (best.get(p.note) ?? -Infinity)) best.set(p.note, cos);
    });
    const meaning = [...best].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, TOP);
    const byWords = words(q.question);
    rankings.words.push(byWords);
    rankings.meaning.push(meaning);
    for (const w of WEIGHTS) rankings[`hybrid ${w}`].push(fuse(byWords, meaning, w));
    rankings["RRF (equal)"].push(rrf(byWords, meaning));
  });
  const recall = Object.fromEntries(
    Object.entries(rankings).map(([name, lists]) => [
      name,
      Object.fromEntries(KS.map((k) => [k, lists.filter((list, qi) => list.slice(0, k).some(([p]) => questions[qi].answers.includes(p))).length / questions.length])),
    ]),
  );
  const bytes = notes.reduce((s, n) => s + Buffer.byteLength(n.text), 0);
  const packages = [...new Set(notes.map((n) => n.path.split("/")[0]))];
  const found = (name, qi) => rankings[name][qi].slice(0, 5).some(([p]) => questions[qi].answers.includes(p));
  const perPackage = packages.map((pkg) => {
    const asks = questions.map((q, qi) => [q, qi]).filter(([q]) => q.answers[0].startsWith(`${pkg}/`));
    const share = (name) => asks.filter(([, qi]) => found(name, qi)).length / asks.length;
    return { pkg, questions: asks.length, words: share("words"), meaning: share("meaning"), hybrid: share("hybrid 0.7") };
  });
  return { notes: notes.length, mb: bytes / 1e6, packages, chunks: passages.length, questions, recall, rankings, perPackage, embedded: embedded.stats, throughput, timing: cache.timing(), model };
}

const pct = (x) => `${(100 * x).toFixed(1)} %`;

/** The recall table, Markdown. */
export function recallTable(result) {
  const rows = Object.entries(result.recall).map(([name, r]) => `| ${name} | ${KS.map((k) => pct(r[k])).join(" | ")} |`);
  return `| ranking | recall@1 | recall@5 | recall@10 |\n|---|---|---|---|\n${rows.join("\n")}`;
}

/** The docs/BENCHMARKS.md section: the run's tables, then what they chose (read before rewriting). */
export function recallSection(r) {
  const full = r.timing ? `${r.timing.chunks} chunks in ${r.timing.seconds.toFixed(0)} s (${(r.timing.chunks / r.timing.seconds).toFixed(1)} a second)` : "not measured";
  const sample = r.throughput ? `; a sample of ${r.throughput.embedded} embedded again: ${(r.throughput.embedded / r.throughput.seconds).toFixed(1)} a second` : "";
  return `
## Search by meaning: recall (prototype)

\`node bench/meaning-recall.mjs --sample=256 --write\` (after \`node bench/meaning-vault.mjs\`; the
first run embeds the vault, later ones read \`target/meaning-cache/\`). A prototype outside the
product (issue 35): JavaScript doing what the core will do, before the core is wired. Vault: the
Markdown documentation of fastify 5.12.8, pino 10.4.0, undici 8.13.1, pip 26.3 and black 26.10.1
(\`bench/meaning-vault.mjs\`, pinned archives, all MIT): ${r.notes} notes, ${r.mb.toFixed(2)} MB, cut as
\`chunks.rs\` cuts them (\`bench/meaning-chunks.mjs\`) into ${r.chunks} passages. ${r.questions.length} questions in
everyday words (\`bench/meaning-questions.json\`), each with the notes that answer it. Model
${r.model} on the offline server (\`scripts/local-model.sh embeddings-start\`). Words: a plain BM25
(k1 1.2, b 0.75, lower-cased alphanumeric terms, no name boost). Meaning: a note's best passage's
cosine. Hybrid: \`fusion.rs\`'s min–max fusion of the top ${TOP} of each at the meaning weight shown.
RRF: equal-weight reciprocal rank fusion (k 60). Recall@k: the share of questions with one of their
answering notes in the first k.

${recallTable(r)}

Recall@5 by package:

${perPackageTable(r)}

Embedding the vault: ${full}${sample}; both on the 2 shared cores while other engineers' builds
ran (load 3–7), so far below the reference's 16–17 a second on an idle machine. One passage was
refused as too large (547 tokens) and embedded cut.

**Weight: keep \`MEANING_WEIGHT\` at 0.7.** Words alone find the right note in the first five for
about half the questions, meaning for about five in six. From 0.6 up the fusion keeps or betters
meaning's recall@5; 0.7 and 0.8 are best there, one question apart, and 0.7 puts the right note
first for three questions more than 0.8 (only 0.6 does better at @1, by one question, and it loses
four at @5). Below 0.6 the words' misses start to cost. Equal-weight RRF is below meaning alone, as
the reference found: BM25's misses drag right answers down. The margins are one to four questions
of ${r.questions.length}, and pip's questions do one worse fused than by meaning alone; the core's BM25 (which also weights a match in the note's name) may
move the words' column, so rerun this once the core is wired.
`;
}

/** Recall@5 per package (a question belongs to its first answer's package), Markdown. */
export function perPackageTable(result) {
  const rows = result.perPackage.map((r) => `| ${r.pkg} | ${r.questions} | ${pct(r.words)} | ${pct(r.meaning)} | ${pct(r.hybrid)} |`);
  return `| package | questions | words | meaning | hybrid 0.7 |\n|---|---|---|---|---|\n${rows.join("\n")}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = new Set(process.argv.slice(2));
  const sample = process.argv.find((a) => a.startsWith("--sample="));
  const result = await meaningRecall({ cold: args.has("--cold"), sample: sample ? Number(sample.slice(9)) : 0 });
  console.log(`${result.notes} notes (${result.mb.toFixed(2)} MB; ${result.packages.join(", ")}), ${result.chunks} chunks, ${result.questions.length} questions, model ${result.model}`);
  const { embedded, cuts, seconds } = result.embedded;
  console.log(`embedded now: ${embedded} chunks in ${seconds.toFixed(1)} s${embedded ? ` (${(embedded / seconds).toFixed(1)} a second)` : " (all cached)"}, ${cuts} cut to fit`);
  if (result.timing) console.log(`last full embedding of the vault: ${result.timing.chunks} chunks in ${result.timing.seconds.toFixed(1)} s (${(result.timing.chunks / result.timing.seconds).toFixed(1)} a second)`);
  if (result.throughput) {
    const t = result.throughput;
    console.log(`sample: ${t.embedded} chunks embedded again in ${t.seconds.toFixed(1)} s (${(t.embedded / t.seconds).toFixed(1)} a second)`);
  }
  console.log(recallTable(result));
  console.log(perPackageTable(result));
  if (args.has("--misses")) {
    result.questions.forEach((q, qi) => {
      const hybrid = result.rankings["hybrid 0.7"][qi].slice(0, 5).map(([p]) => p);
      if (hybrid.some((p) => q.answers.includes(p))) return;
      const meaningRank = result.rankings.meaning[qi].findIndex(([p]) => q.answers.includes(p));
      const wordsRank = result.rankings.words[qi].findIndex(([p]) => q.answers.includes(p));
      console.log(`MISS ${q.question}\n  want ${q.answers.join(", ")} (meaning #${meaningRank + 1 || "-"}, words #${wordsRank + 1 || "-"})\n  got  ${hybrid.join(", ")}`);
    });
  }
  if (args.has("--write")) {
    const doc = path.join(ROOT, "docs/BENCHMARKS.md");
    writeFileSync(doc, spliceSection(readFileSync(doc, "utf8"), "Search by meaning: recall (prototype)", recallSection(result)));
    console.log("spliced the recall section into docs/BENCHMARKS.md");
  }
}

// Regular-expression search on a real-sized vault against ripgrep (issue 37: within 2x of
// ripgrep's time on the same notes in the same run). The vault is bench/real-vault.mjs's (about
// 2,000 notes of real documentation, 20 MB). For each pattern — one the index narrows (it has a
// literal word), the wikilink-with-alias one it cannot, a case-insensitive one — the core's
// search_files in regex mode (tool started → finished through turns on nodeHost, the index
// built, warm, the median of RUNS) and ripgrep counting every match in the same `*.md` notes
// (warm, the median of RUNS after one that fills the page cache), and their ratio. Reported,
// never asserted. Alone: `node bench/regex-search.mjs` (after `make build`) prints the numbers
// and splices its section into docs/BENCHMARKS.md.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { realVault, realVaultNotes } from "./real-vault.mjs";
import { harness } from "./search.mjs";
import { spliceSection } from "./markdown.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const round = (x) => Number(x.toFixed(1));
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const RUNS = Number(process.env.REGEX_BENCH_RUNS ?? 7);

/** The patterns, what each stands for, and the same search for ripgrep. */
export const PATTERNS = [
  { kind: "narrowed by the index", query: "ForeignKey\\(\\w+", case_sensitive: true },
  { kind: "wikilink with an alias (not narrowed)", query: "\\[\\[[^\\]|]+\\|[^\\]]+\\]\\]", case_sensitive: true },
  { kind: "case-insensitive, not narrowed", query: "\\b(get|set)_\\w+_(id|name)\\b", case_sensitive: false },
];

/** ripgrep counting every match of one pattern in the vault's notes, warm (ms), and its total. */
function ripgrep(dir, { query, case_sensitive }) {
  const args = ["--count-matches", "--no-messages", "-g", "*.md", ...(case_sensitive ? [] : ["-i"]), "-e", query, dir];
  const times = [];
  let out = "";
  for (let i = 0; i <= RUNS; i++) {
    const started = performance.now();
    try {
      out = execFileSync("rg", args, { encoding: "utf8", maxBuffer: 1 << 26 });
    } catch (e) {
      if (e.status !== 1) throw e; // 1: no match
      out = "";
    }
    if (i > 0) times.push(performance.now() - started);
  }
  const lines = out.split("\n").filter(Boolean);
  const matches = lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(":") + 1)), 0);
  return { ms: round(median(times)), notes: lines.length, matches };
}

export async function regexBenchmarks() {
  const { newCore, nodeHost } = await import(path.join(ROOT, "js-shim/dist/node.js"));
  const dir = realVault();
  // The core's data from an earlier run goes first: the notes are listed without it.
  const dataDir = path.join(dir, ".smarthole");
  rmSync(dataDir, { recursive: true, force: true });
  const notes = realVaultNotes(dir);
  const out = { notes: notes.length, mb: round(notes.reduce((s, n) => s + readFileSync(path.join(dir, n)).length, 0) / 1e6) };
  const core = await newCore();
  const h = await harness(core, nodeHost, dir, { searchIndexMaxMb: 2048 }, dataDir);
  h.processor.startSearchIndex();
  await h.indexReady;
  out.patterns = [];
  for (const p of PATTERNS) {
    const input = { query: p.query, regex: true, case_sensitive: p.case_sensitive };
    const times = [];
    let output = "";
    for (let i = 0; i <= RUNS; i++) {
      const r = await h.call("search_files", input);
      if (/full scan/.test(r.output)) throw new Error("the index was not used");
      if (i > 0) times.push(r.ms);
      output = r.output;
    }
    const rg = ripgrep(dir, p);
    const found = Number(/^(\d+) notes match/.exec(output)?.[1] ?? 0);
    const searched = Number(/\((\d+) searched\)/.exec(output)?.[1] ?? 0);
    const core_ms = round(median(times));
    const row = { ...p, core_ms, rg_ms: rg.ms, ratio: round(core_ms / Math.max(0.1, rg.ms)), core_notes: found, rg_notes: rg.notes, rg_matches: rg.matches, searched };
    console.log(JSON.stringify(row));
    out.patterns.push(row);
  }
  await h.close();
  rmSync(dataDir, { recursive: true, force: true });
  return { regex_search: out };
}

/** What the numbers say, kept with the table. */
const REGEX_NOTES = `
Before (the same benchmark on the code before issue 37, one run): 758 / 3,451 / 4,345 ms against
ripgrep's 35.5 / 29.7 / 114.8 ms (21x, 116x, 38x). Where that went, profiled: regex-lite itself,
about 1.0-1.4 s natively over the 20 MB on every line whatever the pattern (it has no literal
optimisations) and 2-3x that in wasm; then each note's text crossing into wasm as a string
(wasm-bindgen's \`passStringToWasm0\` copies a mostly-ASCII string a character at a time in JS:
about 200 ms a search), then the reads one after another (about 380 ms for 2,007 notes through
nodeHost's checked reads; 200 ms with reads overlapped). \`Budget::pace\` and \`FileScan\`'s slicing
were not visible in the profile.

What changed: (1) a literal prefilter (\`src/vault/regex_literals.rs\`): the set of strings every
match contains one of, read from the pattern (\`[[\` for the wikilink, \`get_\`/\`set_\` any case for
the third), is looked for in the whole note with a \`memchr\` scan for its rarest byte, and the
regex runs on the lines holding one only; a pattern it cannot read plainly keeps the old line by
line search. A property test (\`a_prefiltered_search_finds_what_a_full_one_does\`) checks over
random patterns and texts that the answer is the one the plain regex gives on every line.
(2) \`search_files\` reads the notes it scans as bytes (one copy into wasm, decoded there as the host
decodes), 16 at a time. Wasm cost of (1): +21 KB raw, +6.4 KB gzip
(\`pkg/smarthole_agent_bg.wasm\` 1,705,569 → 1,726,554 bytes; gzip 637,242 → 643,689). The \`regex\`
crate in regex-lite's place (its lazy DFA and literal optimisations, default features) measured
+762 KB raw, +266 KB gzip: not taken.

Then (the second round of issue 37), profiled on this benchmark before each step (a search of
the wikilink pattern, 2,007 notes, about 200 ms under the machine's load): each note's own checked
read through the host (realpath, open, fstat, read, close through Node's thread pool, one host
call and one promise a note), the wasm scan, and garbage collection of the notes' buffers.
What changed: (3) \`Host::vault_read_many_bytes\`: the notes a search scans go to the host up
to 64 and about 1 MB a call (\`tools/find_scan.rs\`), each with \`vault_read_bytes\`'s checks and
a result of its own. On Node (\`js-shim/src/node/read-many.ts\`) a call's notes are read
synchronously in one go (1-2 ms a call: the event loop is never held near 10 ms), each note's
folder resolved once a call and the note opened with O_NOFOLLOW | O_NONBLOCK, then fstat-ed; a
note that is a link itself, or any failure that way, is read the long way with the single read's
own errors (\`tests/node/hostile-links.test.mjs\`: every hostile path gets from it what its own
read gives). realpath was the largest fs cost: about 240 → 35 ms of samples over 12 searches. The
plugin and the page overlap their reads instead. (4) A note whose raw bytes hold no literal of
the prefilter is settled without being decoded (\`search::settle_raw\`; a lossy decoding only
adds U+FFFD, so a literal holding one, or a note long enough for a decoded line to be cut, is
decoded as before; property test \`what_raw_bytes_settle_is_what_the_decoded_text_gives\`, with
invalid UTF-8). (5) When every match starts with a literal (the pattern's first literal run, only
assertions before it: \`[[\`, \`ForeignKey(\`, \`get_\`/\`set_\`), a candidate line is tried at
each literal's start only, with the pattern anchored there (the leading assertions checked at that
place, the rest compiled as \`\\A(?:rest)\`, \`vault/regex_prefilter.rs\`): regex-lite scans every
byte it is given and, unanchored, goes on to the line's end; anchored, it stops once no thread is
left. The prefiltered-search property test covers both (it fails when the leading assertion is
not checked). Tried and dropped: the notes of a call carved from 256 KB buffers (one
allocation a note made much of the garbage collection) measured slower (a zeroed Uint8Array
against Node's unzeroed Buffer). Wasm cost of (3)-(5): +6.4 KB raw, +2.8 KB gzip
(\`pkg/smarthole_agent_bg.wasm\` 1,641,863 → 1,648,219 bytes; gzip -9 623,917 → 626,726).

What is left: the not-narrowed patterns are at 2.5-4.5x ripgrep over seven runs on this 2-core
machine shared with other builds (load average 3-6; ripgrep itself ranged 24-110 ms), from 8.9x
and 11.1x in one run before (3)-(5) — the 2x budget is not met. Per search, roughly a quarter in the
fs calls (five a note), a quarter in regex-lite and the byte scan in wasm (no SIMD: \`memchr\` runs
its word-at-a-time fallback; simd128 would be a global build change and was not measured), and
the rest in garbage collection and the budget's turns of the event loop every 16 ms (about
1 ms each). ripgrep reads with many threads; the core reads on one. On a quiet machine after the merge
(the table above, 2026-11-27) the wikilink pattern took 6x and the case-insensitive one 3.5x, and a
profile of 16 wikilink searches (wasm names kept: wasm-bindgen \`--keep-debug\` on the cargo
output) put per search about 15 ms in \`FileScan::step\` itself and 9 ms in \`memchr\` (counting the
lines it passes over and finding line ends, 4 bytes at a time in wasm32), 17 ms in regex-lite's
PikeVM, and 20-30 ms in the host's reads. Then the lines a search passes over stopped being
counted once a note has all its excerpts (only they show line numbers): the wikilink search went
from 157 and 159 ms to 146 and 112 ms in paired runs beside a CI run. Not tried: simd128.

Then (a third round, profiled the same way, 25 wikilink searches): (6) the budget's turns of the
event loop were 0 ms timers, each a millisecond or more on Node: they are \`setImmediate\` there
now (\`src/wasm/event_turn.rs\`; on Node a timer could also fire again before the loop looked for
I/O, which held a Stop up to 300 ms). (7) Half of regex-lite's time went on the notes' *names*: the
pattern ran on every path (\`FileScan::new\`, \`Scope::names_matching\`); a name is now looked
through the prefilter first, as a line is (the prefiltered-search property test checks names
too). (8) After a note's last literal, the lines to its end were still counted (line numbers only
place excerpts): no longer. (9) Node's read of a call's notes opens and sizes them all, then reads
them into one unzeroed buffer (\`Buffer.allocUnsafeSlow\`) and hands out views of it: one
allocation a call, not one a note, and one fstat a note, not two (garbage collection 254 → 111 ms
of samples over 25 searches). The wikilink search went from about 80 to 57 ms in that profile; on
a quiet machine the two patterns not narrowed were then at 2.2-2.8x ripgrep over three runs (from
6x and 3.5x at the last round), the narrowed one at 1x: still over 2x. Per wikilink search then:
about 30 ms in wasm (the byte scan and \`memchr\` ~10, regex-lite ~5, decoding ~2, copies and
allocation the rest), about 21 ms in the kernel's opens and reads (one thread; ripgrep reads on
every core), about 4 ms of garbage collection. Tried then and dropped: reading the next batch on a
worker thread while the core searched the one before (the core started the next read first; the
worker did the same checked reads and moved its buffer back): slower in three paired rounds on a
quiet machine (wikilink 65-87 ms against 64-71 ms without it), the main thread idle about 48 ms a
search waiting on the worker's answers, one round trip a batch.

Then (a fourth round, the host's reads timed inside it and profiled): they took 23-37 ms of a
56-79 ms search, 37 calls of about a megabyte. (10) Each call's fresh 1 MB buffer faulted its
pages in: the same reads in a loop took 12.8 ms into one buffer reused from call to call, 22.7 ms
into a fresh one a call. A host may now answer \`vaultReadManyBytes\` at once (a list, not a
promise); the core copies such an answer before anything else runs, so its bytes may be views of a
buffer the host reuses at its next call (\`read-many.ts\`'s \`reusedRoom\`): wikilink about 63 → 58
ms. (11) The reads on another core, done otherwise than the try above: the core asks up to 8
batches ahead of the one it searches when the host answers with promises (\`find_scan.rs\`; a host
that answers at once is asked one batch at a time, as asking ahead would only hold more), so the
reader thread's answers are already there when the core comes back to the event loop; and the core
copies a promised answer in the promise's own reaction (\`js_host.rs\`'s \`taken_when_settled\`),
not at its task's next poll, so each buffer goes back to the thread at the next turn of the event
loop (\`read-thread.ts\`) and it reads into memory it has touched before. The thread checks with
NodeVault's own checks (\`vault-scope.ts\`; \`tests/node/hostile-links.test.mjs\` runs through it);
where it cannot start, the host reads on its own thread as in (10). Native test
\`a_search_asks_a_host_reading_elsewhere_ahead_and_finds_the_same\`: 1,500 notes through a fake
host that answers later give the answer an at-once host gives, each note read once, 2 to 9 reads
under way. Three runs on a quiet machine (2026-11-27, the Intel Xeon of the whole \`make bench\` run whose
figures the table holds: 0.5x / 1.3x / 1.4x): wikilink 1.5-1.7x, case-insensitive 1.3-1.4x,
narrowed 0.9-1.0x: within the 2x budget (this machine before (10)-(11), one run: 2.9x, 2.5x, 0.8x). A search now (25
wikilink searches, profiled): the main thread's wasm scan (the byte scan and \`memchr\`, regex-lite's
PikeVM at about 40 ns a byte natively over the ~80 KB of candidate text it is given, decoding, the
copy in), garbage collection, and some time idle waiting on the reader thread. Wasm cost of
(10)-(11): +6.3 KB raw (\`pkg/smarthole_agent_bg.wasm\` 1,664,410 → 1,670,693 bytes). Measured and
not taken: a faster engine in regex-lite's place, regex-automata's bounded backtracker and PikeVM
with regex-syntax (no Unicode tables), +232 KB raw and +78 KB gzip in a wasm32 test crate built
\`opt-level = "s"\`, its lazy DFA +335 KB and +113 KB. Not tried: SIMD in the scan (simd128 is a
global build change, and a phone without it could not load the core).
`;

export function regexSection(results) {
  const r = results.regex_search;
  if (!r) return "";
  const rows = r.patterns
    .map((p) => `| ${p.kind} | \`${p.query.replaceAll("|", "\\|")}\`${p.case_sensitive ? "" : " (any case)"} | ${p.core_ms} ms | ${p.rg_ms} ms | ${p.ratio}x | ${p.core_notes} / ${p.rg_notes} |`)
    .join("\n");
  return `
## Regular-expression search on a real vault (issue 37)

\`node bench/regex-search.mjs\` (part of \`make bench\`; the vault is made once by
\`bench/real-vault.mjs\`): ${r.notes.toLocaleString("en")} notes, ${r.mb} MB of seven packages' documentation with
planted \`[[Note|alias]]\` links. Core: \`search_files\` in regex mode, tool started → finished through
turns on nodeHost with the search index built, warm, the median of ${RUNS}. ripgrep:
\`rg --count-matches -g '*.md'\` on the same folder, warm, the median of ${RUNS}. Budget: core ≤ 2x ripgrep.

| pattern | query | core | ripgrep | core / ripgrep | notes matching (core / ripgrep) |
|---|---|---|---|---|---|
${rows}
${REGEX_NOTES}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await regexBenchmarks();
  const doc = path.join(ROOT, "docs/BENCHMARKS.md");
  writeFileSync(doc, spliceSection(readFileSync(doc, "utf8"), "Regular-expression search on a real vault (issue 37)", regexSection(results)));
  console.log("spliced the regex section into docs/BENCHMARKS.md");
  process.exit(0);
}

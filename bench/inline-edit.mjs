// Edit in place (issue 36) in headless Chromium with the real core and CodeMirror 6: the page's
// editor (`?editor=PATH`, tests/browser/harness.mjs) beside the chat.
//   (a) selection → first proposed text drawn: from Enter in the ask box to the first added line
//       in the editor's DOM, minus the model's own time to its first token (the scripted server's
//       request received → first delta written); p50 of 20 runs, each stopped with Escape.
//   (b) the inline diff of a 1 MB note with 40 scattered changes: from the approval_requested
//       event reaching the editor to its decorations drawn (the dispatch that installs the hunks,
//       then the next animation frame); median of 5. Target: under 50 ms.
// Reported, never asserted. `node bench/inline-edit.mjs` after `make build`.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { openChat } from "../tests/browser/harness.mjs";
import { tmpVault } from "../tests/node/helpers.mjs";

const round = (x) => Number(x.toFixed(2));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const epoch = () => performance.timeOrigin + performance.now();

/** A page with `text` as Notes/Bench.md open in its editor, and the page's clocks installed. */
async function openEditor(text) {
  const vault = tmpVault();
  mkdirSync(path.join(vault, "Notes"), { recursive: true });
  writeFileSync(path.join(vault, "Notes/Bench.md"), text);
  const chat = await openChat({ vault, query: `?model=scripted&editor=${encodeURIComponent("Notes/Bench.md")}` });
  const { page } = chat;
  await page.waitForSelector(".smarthole-send:not([disabled])");
  await page.waitForFunction(() => window.smarthole.editor !== undefined);
  await page.evaluate(() => {
    const now = () => performance.timeOrigin + performance.now();
    // Enter in the ask box (before the box handles it), and the first added line drawn.
    document.addEventListener("keydown", (e) => e.key === "Enter" && e.target.classList?.contains("smarthole-inline-ask-input") && (window.__askAt = now()), true);
    new MutationObserver(() => {
      if (window.__drawnAt === undefined && document.querySelector(".smarthole-inline-added")) window.__drawnAt = now();
    }).observe(window.smarthole.editor.dom, { subtree: true, childList: true });
  });
  return chat;
}

/** Selects [from, to) and asks through the "Edit selection" button and the ask box. */
async function ask(page, from, to, instruction) {
  await page.evaluate(([from, to]) => {
    const view = window.smarthole.editor;
    view.focus();
    view.dispatch({ selection: { anchor: from, head: to } });
  }, [from, to]);
  await page.click(".smarthole-edit-selection");
  await page.waitForFunction(() => document.activeElement?.classList.contains("smarthole-inline-ask-input"));
  await page.keyboard.type(instruction);
  await page.keyboard.press("Enter");
}

/** (a) Enter → the first proposed line drawn, less the model's own first-token time. */
export async function firstProposalOverhead({ runs = 20, warmup = 2 } = {}) {
  const note = "# Bench\n\nalpha is first\nbeta is second\ngamma is third\n\nthe end\n";
  const chat = await openEditor(note);
  const { page, model } = chat;
  const overheads = [];
  const totals = [];
  try {
    for (let i = 0; i < warmup + runs; i++) {
      await page.evaluate(() => {
        window.__askAt = undefined;
        window.__drawnAt = undefined;
      });
      const index = model.requests.length;
      let firstDelta;
      const onDelta = ({ requestIndex, deltaIndex }) => requestIndex === index && deltaIndex === 0 && (firstDelta = epoch());
      model.on("delta-sent", onDelta);
      model.enqueue({ kind: "text", text: "ALPHA is first\nbeta is second\ngamma is third", chunks: ["ALPHA is first\n", "beta is second\n", "gamma is third"], delayMs: 30 });
      await ask(page, note.indexOf("alpha"), note.indexOf("\n\nthe end"), "Capitalise the first word");
      await page.waitForFunction(() => window.__drawnAt !== undefined, null, { timeout: 30_000 });
      model.off("delta-sent", onDelta);
      const { askAt, drawnAt } = await page.evaluate(() => ({ askAt: window.__askAt, drawnAt: window.__drawnAt }));
      const modelFirstToken = firstDelta - (performance.timeOrigin + model.requests[index].receivedAt);
      if (i >= warmup) {
        totals.push(drawnAt - askAt);
        overheads.push(drawnAt - askAt - modelFirstToken);
      }
      // Stop and drop; the next run starts once the chat is idle.
      await page.keyboard.press("Escape");
      await page.waitForSelector(".smarthole-send:not(.smarthole-stop):not([disabled])");
    }
  } finally {
    await chat.close();
  }
  return { first_proposal_overhead_p50_ms: round(median(overheads)), first_proposal_total_p50_ms: round(median(totals)), first_proposal_runs: runs };
}

/** About 1 MB of Markdown (under the core's 1 MiB passage limit), and the same with `changes`
 * lines changed, scattered evenly. */
export function bigNote(changes = 40) {
  const lines = [];
  for (let i = 0; lines.join("\n").length < 990_000; i++) lines.push(`- item ${i}: some words about the garden, the bikes and the plan`);
  const every = Math.floor(lines.length / changes);
  const changed = lines.map((l, i) => (i % every === every >> 1 && i / every < changes ? l.replace("garden", "orchard") : l));
  return { old: `${lines.join("\n")}\n`, answer: changed.join("\n"), lines: lines.length };
}

/** (b) approval_requested reaching the editor → its decorations drawn, for a 1 MB note. */
export async function bigDiffDraw({ runs = 5 } = {}) {
  const { old, answer } = bigNote();
  const chat = await openEditor(old);
  const { page, model } = chat;
  const draws = [];
  const dispatches = [];
  let hunks = 0;
  try {
    // How many hunks the approval has (CodeMirror draws only the ones in view).
    await page.evaluate(() => window.smarthole.runtime.subscribe((e) => e.type === "approval_requested" && (window.__hunks = e.request.change?.hunks.length)));
    for (let i = 0; i < runs; i++) {
      // A few big chunks: the scripted server would otherwise write 250,000 deltas.
      const chunks = answer.match(/[\s\S]{1,65536}/g);
      model.enqueue({ kind: "text", text: answer, chunks });
      await ask(page, 0, old.length - 1, "Say orchard for garden, here and there");
      // The page times the dispatch that installs the approval's hunks and the frame after it.
      await page.waitForFunction((n) => window.smarthole.inlineDraws.length > n && window.smarthole.inlineDraws.at(-1).framed > 0, i, { timeout: 120_000 });
      hunks = await page.evaluate(() => window.__hunks);
      const d = await page.evaluate(() => window.smarthole.inlineDraws.at(-1));
      draws.push(d.framed - d.arrived);
      dispatches.push(d.dispatched - d.arrived);
      await page.keyboard.press("Escape");
      await page.waitForSelector(".smarthole-send:not(.smarthole-stop):not([disabled])");
    }
  } finally {
    await chat.close();
  }
  return { inline_diff_1mb_hunks: hunks, inline_diff_1mb_bytes: old.length, inline_diff_1mb_dispatch_ms: round(median(dispatches)), inline_diff_1mb_draw_ms: round(median(draws)) };
}

/** The results as `make bench` keeps them (target/bench/results.json). */
export async function inlineEditBenchmarks() {
  return { ...(await firstProposalOverhead()), ...(await bigDiffDraw()) };
}

/** Its section of docs/BENCHMARKS.md. */
export function inlineEditSection(r) {
  if (r?.inline_diff_1mb_draw_ms === undefined) return "";
  return `
## Edit in place

\`node bench/inline-edit.mjs\` (also run by \`make bench\`): headless Chromium, the page's CodeMirror 6 editor
beside the chat, the real core, the scripted model behind the page's proxy.
- Selection → first proposed text drawn: from Enter in the ask box to the first added line in the
  editor's DOM, less the model's own time to its first token (the scripted server's request
  received → first delta written): p50 ${r.first_proposal_overhead_p50_ms} ms over ${r.first_proposal_runs} runs (the whole wait
  ${r.first_proposal_total_p50_ms} ms).
- The inline diff of a ${(r.inline_diff_1mb_bytes / 1e6).toFixed(2)} MB note with ${r.inline_diff_1mb_hunks} scattered changes, from the
  \`approval_requested\` event reaching the editor to its decorations drawn (the dispatch that
  installs the hunks, then the next animation frame; the target is 50 ms): ${r.inline_diff_1mb_draw_ms} ms, of which
  the dispatch (state and view update) ${r.inline_diff_1mb_dispatch_ms} ms; median of 5.
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await inlineEditBenchmarks();
  console.log(`edit in place: selection → first proposed text drawn, p50 ${r.first_proposal_overhead_p50_ms} ms over the model's first token (whole wait ${r.first_proposal_total_p50_ms} ms, ${r.first_proposal_runs} runs)`);
  console.log(`edit in place: the inline diff of a ${(r.inline_diff_1mb_bytes / 1e6).toFixed(2)} MB note with ${r.inline_diff_1mb_hunks} changes drawn in ${r.inline_diff_1mb_draw_ms} ms (dispatch ${r.inline_diff_1mb_dispatch_ms} ms; target 50 ms)`);
}

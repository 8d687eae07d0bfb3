// Benchmarks in headless Chromium with the real core (tests/browser/harness.mjs): token
// visibility, Stop, and load → Send enabled with a large history.
import { performance } from "node:perf_hooks";
import path from "node:path";
import { openChat, type } from "../tests/browser/harness.mjs";
import { tmpVault } from "../tests/node/helpers.mjs";
import { writeHistory } from "./fixtures.mjs";
import { indexedVault, pluginLoadMs } from "./plugin-load.mjs";

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const round = (x) => Number(x.toFixed(2));
const epoch = () => performance.timeOrigin + performance.now();

/** Server writes a delta → the text is in the chat view's DOM (both clocks are epoch-based). */
async function tokenLatency(chat, { deltas = 120 } = {}) {
  const { page, model } = chat;
  const pieces = Array.from({ length: deltas }, (_, i) => `t${i} `);
  const sentAt = [];
  const onDelta = () => sentAt.push(epoch());
  model.on("delta-sent", onDelta);
  await page.evaluate(() => {
    window.__seen = [];
    const messages = document.querySelector(".smarthole-messages");
    new MutationObserver(() => {
      const body = document.querySelector(".smarthole-msg-assistant:last-of-type .smarthole-streaming");
      if (body) window.__seen.push({ at: performance.timeOrigin + performance.now(), length: body.textContent.length });
    }).observe(messages, { subtree: true, childList: true, characterData: true });
  });
  model.enqueue({ kind: "text", text: pieces.join(""), chunks: pieces, delayMs: 25 });
  await type(page, "count for me");
  await page.waitForFunction((n) => window.__seen.some((s) => s.length >= n), pieces.join("").length, { timeout: 30_000 });
  model.off("delta-sent", onDelta);
  const seen = await page.evaluate(() => window.__seen);
  const latencies = [];
  let cumulative = 0;
  pieces.forEach((piece, i) => {
    cumulative += piece.length;
    const visible = seen.find((s) => s.length >= cumulative);
    if (visible && sentAt[i]) latencies.push(visible.at - sentAt[i]);
  });
  latencies.sort((a, b) => a - b);
  return { token_visible_p50_ms: round(quantile(latencies, 0.5)), token_visible_p99_ms: round(quantile(latencies, 0.99)) };
}

/** Stop pressed → the view idle (measured at the next frame) and the request aborted at the server. */
async function stopLatency(chat, { runs = 8 } = {}) {
  const { page, model } = chat;
  const idle = [];
  const abort = [];
  for (let i = 0; i < runs; i++) {
    await page.waitForSelector(".smarthole-send:not(.smarthole-stop)");
    model.enqueue({ kind: "text", text: "word ".repeat(400), delayMs: 20 });
    const index = model.requests.length;
    const aborted = new Promise((resolve) => {
      const on = ({ requestIndex }) => {
        if (requestIndex === index) {
          model.off("aborted", on);
          resolve(epoch());
        }
      };
      model.on("aborted", on);
    });
    await type(page, `long answer ${i}`);
    await page.waitForFunction(() => (document.querySelector(".smarthole-msg-assistant:last-of-type .smarthole-body")?.textContent ?? "").length > 30);
    const { clicked, idleAt } = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const button = document.querySelector(".smarthole-send");
          const clicked = performance.timeOrigin + performance.now();
          button.click();
          const check = () => {
            if (!button.classList.contains("smarthole-stop")) resolve({ clicked, idleAt: performance.timeOrigin + performance.now() });
            else requestAnimationFrame(check);
          };
          requestAnimationFrame(check);
        }),
    );
    idle.push(idleAt - clicked);
    abort.push((await aborted) - clicked);
  }
  idle.sort((a, b) => a - b);
  abort.sort((a, b) => a - b);
  return { stop_idle_p50_ms: round(quantile(idle, 0.5)), stop_abort_p50_ms: round(quantile(abort, 0.5)), stop_abort_max_ms: round(abort.at(-1)) };
}

/** Page load → Send enabled: from navigation start, and from the page script's start (the
 * part a plugin load has), medians of `runs` loads. */
async function loadToSend(vault, runs = 5) {
  const fromNavigation = [];
  const fromScript = [];
  for (let i = 0; i < runs; i++) {
    const chat = await openChat({ vault });
    await chat.page.waitForSelector(".smarthole-send:not([disabled])", { timeout: 30_000 });
    const { send, script } = await chat.page.evaluate(() => ({
      send: window.__buttonTexts.find((t) => t.text === "Send" && !t.disabled).at,
      script: performance.getEntriesByName("smarthole:start")[0].startTime,
    }));
    fromNavigation.push(send);
    fromScript.push(send - script);
    await chat.close();
  }
  fromNavigation.sort((a, b) => a - b);
  fromScript.sort((a, b) => a - b);
  return { navigation: round(quantile(fromNavigation, 0.5)), script: round(quantile(fromScript, 0.5)) };
}

export async function browserBenchmarks() {
  const chat = await openChat();
  await chat.page.waitForSelector(".smarthole-send:not([disabled])");
  const tokens = await tokenLatency(chat);
  const stop = await stopLatency(chat);
  await chat.close();
  const big = tmpVault();
  writeHistory(path.join(big, ".smarthole"), { messages: 100_000, perConversation: 100 });
  const pageEmpty = await loadToSend(tmpVault());
  const pageBig = await loadToSend(big);
  return {
    ...tokens,
    ...stop,
    plugin_load_to_ready_empty_ms: pluginLoadMs(tmpVault()),
    plugin_load_to_ready_1000_conversations_ms: pluginLoadMs(big),
    plugin_load_to_ready_indexed_ms: pluginLoadMs(await indexedVault(100_000)),
    page_load_to_send_empty_ms: pageEmpty.navigation,
    page_load_to_send_1000_conversations_ms: pageBig.navigation,
    page_script_to_send_empty_ms: pageEmpty.script,
    page_script_to_send_1000_conversations_ms: pageBig.script,
  };
}

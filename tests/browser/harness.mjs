// The chat panel in headless Chromium (Debian's chromium, driven by playwright-core): a scripted
// Anthropic server, the panel server over a temporary vault, and a page mounting the panel with
// the real core inside.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { ROOT, tmpVault } from "../node/helpers.mjs";

export const SCREENSHOTS = path.join(ROOT, "target/screenshots");
export const CHROMIUM = process.env.SMARTHOLE_CHROMIUM ?? "/usr/bin/chromium";
/** Flags that keep Chromium quiet on a machine with no internet (see the environment notes). */
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Starts the panel server over `vault` against `modelUrl`; resolves with its URL and process. */
export async function startPanelServer(vault, modelUrl) {
  const child = spawn(process.execPath, [path.join(ROOT, "js-shim/dist/panel-server.js"), "--vault", vault, "--llm-base-url", modelUrl], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8").once("data", (d) => resolve(d.trim()));
    child.once("exit", (code) => reject(new Error(`panel server exited with ${code}`)));
  });
  return { url, child, stop: () => child.kill("SIGTERM") };
}

/** A phone's screen for the page (`openChat({ phone: true })`): 390x844, touch, mobile. */
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };

/** Everything a browser test needs; `close()` ends it all. */
export async function openChat({ vault = tmpVault(), query = "?model=scripted", fallback, modelUrl, phone = false } = {}) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // The scripted server, unless a real model is given.
  const model = modelUrl ? null : await startScriptedServer(fallback ? { fallback } : undefined);
  const panel = await startPanelServer(vault, modelUrl ?? model.url);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const page = await browser.newPage(phone ? PHONE : { viewport: { width: 800, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // Record every text the Send button shows, from the very first one.
  await page.addInitScript(() => {
    window.__buttonTexts = [];
    // And every text the search index's progress line shows.
    window.__indexTexts = [];
    // And the meaning index's.
    window.__meaningTexts = [];
    new MutationObserver(() => {
      const line = document.querySelector(".smarthole-index")?.textContent;
      if (line !== undefined && line !== window.__indexTexts.at(-1)) window.__indexTexts.push(line);
      const meaning = document.querySelector(".smarthole-meaning-index")?.textContent;
      if (meaning !== undefined && meaning !== window.__meaningTexts.at(-1)) window.__meaningTexts.push(meaning);
      const b = document.querySelector(".smarthole-send");
      const last = window.__buttonTexts.at(-1);
      if (b && (!last || last.text !== b.textContent || last.disabled !== b.disabled)) {
        window.__buttonTexts.push({ text: b.textContent, disabled: b.disabled, at: performance.now() });
      }
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await page.goto(panel.url + query);
  return {
    vault,
    model,
    page,
    errors,
    shot: (name) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) }),
    async close() {
      await browser.close();
      panel.stop();
      await model?.close();
    },
  };
}

/** Types a message and sends it with Enter. */
export async function type(page, text) {
  await page.fill(".smarthole-input", text);
  await page.press(".smarthole-input", "Enter");
}

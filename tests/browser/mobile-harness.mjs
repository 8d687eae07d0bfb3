// The plugin as a phone runs it: dist/main.js in Chromium with the mobile `obsidian` stub
// (tests/browser/mobile/obsidian-mobile.js: no Node, the vault in the page), a phone's screen
// (390x844, touch, device scale 3) and CPU (throttled 4x), served from http://localhost like the
// app's own origin; the model behind a front that answers CORS as the Anthropic API does.
import http from "node:http";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { chromium, devices } from "playwright-core";
import { build } from "esbuild";
import { startScriptedServer } from "../peers/anthropic-server.mjs";
import { ROOT, freePort } from "../node/helpers.mjs";
import { CHROMIUM, SCREENSHOTS } from "./harness.mjs";

const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/** The request headers the Anthropic API allows from a browser (its preflight answer). */
export const ALLOWED_HEADERS = ["accept", "anthropic-beta", "anthropic-dangerous-direct-browser-access", "anthropic-version", "authorization", "content-type", "x-api-key"];

const listen = (server) =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));

/**
 * A front for `target` (the scripted server) that behaves like the Anthropic API toward browsers:
 * preflights answered with the allowed headers, a request from an origin refused with 401 unless it
 * carries `anthropic-dangerous-direct-browser-access: true`. With `cors: false` it answers no CORS
 * at all (fetch from the page is refused; requestUrl, which has no origin, gets through). With
 * `models`, it lists those at GET /v1/models as the Anthropic API does.
 */
export async function startCorsFront(target, { cors = true, models = null } = {}) {
  const seen = { preflights: [], posts: [] };
  const server = http.createServer((req, res) => {
    const corsHeaders = cors ? { "access-control-allow-origin": "*", "access-control-expose-headers": "request-id, retry-after" } : {};
    if (req.method === "OPTIONS") {
      seen.preflights.push({ origin: req.headers.origin, headers: req.headers["access-control-request-headers"] ?? "" });
      if (!cors) return res.writeHead(403).end();
      res.writeHead(200, { ...corsHeaders, "access-control-allow-methods": "GET, POST, OPTIONS", "access-control-allow-headers": ALLOWED_HEADERS.join(", "), "access-control-max-age": "86400" });
      return res.end();
    }
    if (models && req.method === "GET" && new URL(req.url, target).pathname === "/v1/models") {
      res.writeHead(200, { ...corsHeaders, "content-type": "application/json" });
      return res.end(JSON.stringify({ data: models.map((id) => ({ type: "model", id, display_name: id, created_at: "2026-01-01T00:00:00Z" })), has_more: false }));
    }
    seen.posts.push({ origin: req.headers.origin ?? null, headers: { ...req.headers } });
    if (req.headers.origin && req.headers["anthropic-dangerous-direct-browser-access"] !== "true") {
      res.writeHead(401, { ...corsHeaders, "content-type": "application/json" });
      return res.end(JSON.stringify({ type: "error", error: { type: "authentication_error", message: "CORS requests must set 'anthropic-dangerous-direct-browser-access' header" } }));
    }
    const upstream = http.request(new URL(req.url, target), { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (up) => {
      res.writeHead(up.statusCode, { ...up.headers, ...corsHeaders });
      up.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    // The browser aborting (Stop) closes this side: pass it on.
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, seen, close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))) };
}

/** CodeMirror 6 as the app supplies it to plugins: one script setting window.__codemirror
 *  ({state, view}), from this project's own copies of the packages. */
async function codemirrorScript() {
  const out = await build({
    stdin: { contents: 'export * as state from "@codemirror/state"; export * as view from "@codemirror/view";', resolveDir: ROOT },
    bundle: true,
    format: "iife",
    globalName: "__codemirror",
    write: false,
  });
  return out.outputFiles[0].text;
}

/** Serves the phone's page on http://localhost:<port> (the app's origin is a localhost one). */
async function startPageServer() {
  const made = { "/codemirror.js": [await codemirrorScript(), "text/javascript"] };
  const files = {
    "/": [path.join(ROOT, "tests/browser/mobile/index.html"), "text/html"],
    "/obsidian-mobile.js": [path.join(ROOT, "tests/browser/mobile/obsidian-mobile.js"), "text/javascript"],
    "/styles.css": [path.join(ROOT, "styles.css"), "text/css"],
    "/main.js": [path.join(ROOT, "dist/main.js"), "text/javascript"],
  };
  const server = http.createServer((req, res) => {
    const at = new URL(req.url, "http://x").pathname;
    const file = files[at];
    const text = made[at];
    if (!file && !text) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": (file ?? text)[1], "cache-control": "no-store" });
    res.end(file ? readFileSync(file[0]) : text[0]);
  });
  const port = await listen(server);
  return { url: `http://localhost:${port}/`, close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))) };
}

/** requestUrl as the app has it: no origin, no CORS, the whole body (run here, in Node). */
async function requestUrlInNode(spec) {
  const res = await fetch(spec.url, { method: spec.method, headers: spec.headers, body: spec.body });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: Buffer.from(await res.arrayBuffer()).toString("base64") };
}

/** The whole phone: the model, its CORS fronts, the page, the browser. `close()` ends it all. */
export async function openPhone({ fallback = { kind: "text", text: "ok" }, throttle = 4, models = null } = {}) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const model = await startScriptedServer({ fallback });
  const front = await startCorsFront(model.url, { models });
  const closedFront = await startCorsFront(model.url, { cors: false });
  const site = await startPageServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const phone = devices["Pixel 7"] ?? {};
  const context = await browser.newContext({ ...phone, viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
  await context.exposeFunction("__requestUrl", requestUrlInNode);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: throttle });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.addInitScript(() => {
    // Every WebSocket the plugin opens (the hub's would be one).
    window.__sockets = [];
    const Socket = window.WebSocket;
    window.WebSocket = class extends Socket {
      constructor(url, ...rest) {
        super(url, ...rest);
        window.__sockets.push(String(url));
      }
    };
    window.__buttonTexts = [];
    new MutationObserver(() => {
      const b = document.querySelector(".smarthole-send");
      const last = window.__buttonTexts.at(-1);
      if (b && (!last || last.text !== b.textContent || last.disabled !== b.disabled)) {
        window.__buttonTexts.push({ text: b.textContent, disabled: b.disabled, at: performance.now() });
      }
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  const code = readFileSync(path.join(ROOT, "dist/main.js"), "utf8");
  const data = { baseUrl: front.url, model: "scripted" };
  const secrets = { "anthropic-api-key": "test-key" };

  /** Loads the page and the plugin; resolves with the ms from evaluating main.js to Send enabled.
   *  With `files`, the vault holds exactly those ({path: text}) when the plugin starts. */
  async function boot({ wipe = false, crashAt = null, settings = {}, desktop = false, files = null } = {}) {
    await page.goto(site.url);
    if (wipe) await page.evaluate(() => window.mobile.wipe());
    // Files already in the vault when the app starts (synced from a desktop): {path: text}.
    if (files) await page.evaluate(async (files) => {
      await window.mobile.wipe();
      for (const [p, text] of Object.entries(files)) await window.mobile.put(p, text);
    }, files);
    if (crashAt) await page.evaluate((src) => (window.mobile.control.crashAt = new Function("op", "path", src)), crashAt);
    const started = await page.evaluate(({ code, data, secrets, desktop }) => window.mobile.boot({ code, data, secrets, desktop }), { code, data: { ...data, ...settings }, secrets, desktop });
    if (crashAt) return null;
    await page.waitForSelector(".smarthole-send:not([disabled])");
    const ready = await page.evaluate(() => window.__buttonTexts.find((t) => t.text === "Send" && !t.disabled)?.at);
    return ready - started;
  }

  let mcp = null;
  /** @modelcontextprotocol/server-everything over Streamable HTTP (it answers CORS for any
   * origin, exposing mcp-session-id); resolves with its endpoint once it answers. */
  async function startMcp() {
    const port = await freePort();
    mcp = spawn(process.execPath, [path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: "ignore" });
    const url = `http://127.0.0.1:${port}/mcp`;
    for (let i = 0; !(await fetch(url, { method: "GET" }).then(() => true, () => false)); i++) {
      if (i > 200) throw new Error("server-everything over HTTP did not start");
      await new Promise((r) => setTimeout(r, 100));
    }
    return url;
  }

  return {
    model,
    startMcp,
    front,
    closedFront,
    page,
    cdp,
    errors,
    boot,
    /** A file of the page's vault, or undefined. */
    file: (p) => page.evaluate((p) => window.mobile.files.get(p)?.data, p),
    names: (prefix) => page.evaluate((prefix) => [...window.mobile.files.keys()].filter((k) => k.startsWith(prefix)), prefix),
    shot: (name) => page.screenshot({ path: path.join(SCREENSHOTS, `mobile-${name}.png`) }),
    async close() {
      mcp?.kill();
      await browser.close();
      await Promise.all([site.close(), front.close(), closedFront.close(), model.close()]);
    },
  };
}

/** Types a message and taps Send. */
export async function tapSend(page, text) {
  await page.fill(".smarthole-input", text);
  await page.tap(".smarthole-send");
}

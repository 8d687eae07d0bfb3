// Serves the chat panel on 127.0.0.1 over the real core, for the browser tests and the demo's
// browser mode: the page, its files (.smarthole/ of a vault and its notes, through the same Node
// code as the headless command) and a same-origin proxy to the model (streamed; the API key stays here).
//
//   node js-shim/dist/panel-server.js --vault DIR --llm-base-url URL [--api-key-env VAR] [--port N]
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { NodeIO } from "./node-io.ts";
import { NodeVault } from "./node-vault.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");

const { values } = parseArgs({
  options: {
    vault: { type: "string" },
    "llm-base-url": { type: "string" },
    "api-key-env": { type: "string" },
    port: { type: "string", default: "0" },
  },
});
if (!values.vault || !values["llm-base-url"]) {
  process.stderr.write("usage: panel-server --vault DIR --llm-base-url URL [--api-key-env VAR] [--port N]\n");
  process.exit(2);
}
const upstream = values["llm-base-url"].replace(/\/$/, "");
const apiKey = values["api-key-env"] ? (process.env[values["api-key-env"]] ?? "") : "";
const files = new NodeIO(path.join(path.resolve(values.vault), ".smarthole"));
const notes = new NodeVault(path.resolve(values.vault));

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SmartHole Agent</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/styles.css">
<style>html,body{height:100%;margin:0;font-family:system-ui,sans-serif}#app{height:calc(100% - 24px);max-width:720px;margin:0 auto;padding:12px;box-sizing:border-box}#banner{height:24px;text-align:center;color:#a60}
.smarthole-page-split{display:flex;height:calc(100% - 24px)}.smarthole-page-split #app{flex:1 1 50%;height:100%;min-width:0}
.smarthole-page-editor{flex:1 1 50%;display:flex;flex-direction:column;min-width:0;min-height:0;padding:12px;box-sizing:border-box;gap:6px}
.smarthole-page-editor-bar{display:flex;gap:8px;align-items:center;justify-content:space-between}
.smarthole-page-editor-view{flex:1;min-height:0;border:1px solid #ccc}.smarthole-page-editor-view .cm-editor{height:100%}
@media (max-width:600px){.smarthole-page-split{flex-direction:column}.smarthole-page-split #app{height:auto;min-height:0}}
@media (pointer:coarse){.smarthole-edit-selection{min-height:44px;min-width:44px}}</style>
</head><body><div id="banner"></div><div id="app"></div><script type="module" src="/page.js"></script></body></html>`;

async function bodyBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function body(req: IncomingMessage): Promise<string> {
  return (await bodyBytes(req)).toString("utf8");
}

function send(res: ServerResponse, status: number, type: string, data: string | Buffer): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(data);
}

/** Streams the model's answer through; a closed page aborts the upstream request. */
async function proxy(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  const headers: Record<string, string> = { "content-type": "application/json", "anthropic-version": "2023-06-01" };
  if (apiKey) headers["x-api-key"] = apiKey;
  try {
    const upstreamRes = await fetch(`${upstream}/v1/messages`, { method: "POST", headers, body: await body(req), signal: controller.signal });
    res.writeHead(upstreamRes.status, { "content-type": upstreamRes.headers.get("content-type") ?? "application/json" });
    if (upstreamRes.body) for await (const chunk of upstreamRes.body) res.write(chunk);
    res.end();
  } catch (error) {
    if (!res.headersSent) send(res, 502, "application/json", JSON.stringify({ type: "error", error: { type: "api_error", message: String(error) } }));
    else res.destroy();
  }
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const p = url.searchParams;
  const route = `${req.method} ${url.pathname}`;
  void (async () => {
    try {
      switch (route) {
        case "GET /":
          return send(res, 200, "text/html; charset=utf-8", PAGE);
        case "GET /page.js":
          return send(res, 200, "text/javascript", readFileSync(path.join(root, "js-shim/dist/page.js")));
        case "GET /styles.css":
          return send(res, 200, "text/css", readFileSync(path.join(root, "styles.css")));
        case "POST /v1/messages":
          return await proxy(req, res);
        case "GET /fs/file": {
          const text = await files.readFile(p.get("path") ?? "");
          return text === null ? send(res, 404, "text/plain", "missing") : send(res, 200, "text/plain; charset=utf-8", text);
        }
        case "GET /fs/bytes": {
          const bytes = await files.readFileBytes(p.get("path") ?? "");
          return bytes === null ? send(res, 404, "text/plain", "missing") : send(res, 200, "application/octet-stream", Buffer.from(bytes));
        }
        case "PUT /fs/bytes":
          await files.writeFileAtomicBytes(p.get("path") ?? "", await bodyBytes(req));
          return send(res, 204, "text/plain", "");
        case "GET /fs/size": {
          const size = await files.fileSize(p.get("path") ?? "");
          return size === null ? send(res, 404, "text/plain", "missing") : send(res, 200, "application/json", JSON.stringify(size));
        }
        case "PUT /fs/file":
          await files.writeFileAtomic(p.get("path") ?? "", await body(req));
          return send(res, 204, "text/plain", "");
        case "POST /fs/append":
          await files.appendFile(p.get("path") ?? "", await body(req));
          return send(res, 204, "text/plain", "");
        case "GET /fs/list":
          return send(res, 200, "application/json", JSON.stringify(await files.listDir(p.get("dir") ?? "")));
        case "DELETE /fs/file":
          await files.removeFile(p.get("path") ?? "");
          return send(res, 204, "text/plain", "");
        case "POST /fs/rename":
          await files.renameFile(p.get("from") ?? "", p.get("to") ?? "");
          return send(res, 204, "text/plain", "");
        case "GET /vault/list":
          return send(res, 200, "application/json", JSON.stringify(await notes.vaultList(p.get("follow") === "1")));
        case "GET /vault/file":
          return send(res, 200, "text/plain; charset=utf-8", await notes.vaultRead(p.get("path") ?? ""));
        case "GET /vault/bytes":
          return send(res, 200, "application/octet-stream", Buffer.from(await notes.vaultReadBytes(p.get("path") ?? "")));
        case "POST /vault/file":
          await notes.vaultCreate(p.get("path") ?? "", await body(req));
          return send(res, 204, "text/plain", "");
        case "POST /vault/process": {
          const { before, after } = JSON.parse(await body(req)) as { before: string; after: string };
          let conflict = false;
          await notes.vaultProcess(p.get("path") ?? "", (text) => {
            conflict = text !== before;
            return conflict ? undefined : after;
          });
          return conflict ? send(res, 409, "text/plain", "the note changed while it was being edited") : send(res, 204, "text/plain", "");
        }
        case "POST /vault/append":
          await notes.vaultAppend(p.get("path") ?? "", await body(req));
          return send(res, 204, "text/plain", "");
        case "POST /vault/folder":
          await notes.vaultCreateFolder(p.get("path") ?? "");
          return send(res, 204, "text/plain", "");
        case "POST /vault/trash":
          await notes.vaultTrash(p.get("path") ?? "");
          return send(res, 204, "text/plain", "");
        case "POST /vault/rename":
          await notes.vaultRename(p.get("from") ?? "", p.get("to") ?? "");
          return send(res, 204, "text/plain", "");
        default:
          return send(res, 404, "text/plain", "not found");
      }
    } catch (error) {
      send(res, 500, "text/plain", String(error));
    }
  })();
});

server.listen(Number(values.port), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`http://127.0.0.1:${port}/\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));

// A small MCP server over streamable HTTP (one JSON-RPC message per POST, a JSON answer; no
// server-sent stream), standing for the plugin's own `smarthole` server when an agent is driven
// directly (acp-agents.test.mjs): `read_file` reads a note under `folder`. Every request is
// recorded (method, the Authorization header).
//
//   const notes = await startNotesMcpServer(folder);
//   // session/new: mcpServers: [{ type: "http", name: "smarthole", url: notes.url, headers: [] }]
import http from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";

const TOOLS = [
  {
    name: "read_file",
    description: "Read a note.",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

export async function startNotesMcpServer(folder) {
  const requests = [];
  const answer = (message) => {
    switch (message.method) {
      case "initialize":
        return { protocolVersion: message.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "smarthole", version: "0.0.0" } };
      case "tools/list":
        return { tools: TOOLS };
      case "tools/call": {
        const file = path.join(folder, path.basename(String(message.params?.arguments?.path ?? "")));
        return { content: [{ type: "text", text: readFileSync(file, "utf8") }] };
      }
      default:
        return {};
    }
  };
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    let message = null;
    try {
      message = JSON.parse(body);
    } catch {
      // a GET, or not JSON
    }
    requests.push({ method: message?.method ?? req.method, authorization: req.headers.authorization });
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" });
      return res.end();
    }
    if (!message || message.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: answer(message) }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

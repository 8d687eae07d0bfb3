// A gate in front of a Streamable HTTP MCP server, for the "expired sign-in" tests: it passes
// every request through, except the JSON-RPC methods it is told to refuse, which get
// 401 Unauthorized — as a server does when a token expires mid-session.
//
//   const gate = await startMcpGate({ upstream: "http://127.0.0.1:3001/mcp", refuse: ["tools/call"] });
//   gate.url  // point the client here
import http from "node:http";

export async function startMcpGate({ upstream, refuse = [] }) {
  const refused = new Set(refuse);
  const seen = [];
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    let method = null;
    try {
      method = JSON.parse(body.toString("utf8")).method ?? null;
    } catch {
      /* not JSON (a GET for the event stream) */
    }
    seen.push(method ?? req.method);
    if (method && refused.has(method)) {
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer error="invalid_token"' });
      return res.end(JSON.stringify({ error: "invalid_token", error_description: "The access token expired" }));
    }
    const headers = { ...req.headers };
    delete headers.host;
    delete headers["content-length"];
    try {
      const upstreamRes = await fetch(upstream, { method: req.method, headers, body: req.method === "GET" || req.method === "DELETE" ? undefined : body });
      const out = {};
      upstreamRes.headers.forEach((v, k) => (out[k] = v));
      res.writeHead(upstreamRes.status, out);
      if (upstreamRes.body) for await (const chunk of upstreamRes.body) res.write(chunk);
      res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}

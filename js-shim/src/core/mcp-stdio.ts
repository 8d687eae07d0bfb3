// Command-line MCP servers: the SDK's stdio transport, loaded only when such a server is
// configured (so nothing Node-specific runs where processes cannot be started), with the
// default environment plus the server's own variables; the server's stderr goes to our log.
import type { McpServerConfig, StdioFactory } from "./mcp.ts";

export function stdioTransport(log: (line: string) => void): StdioFactory {
  return async (config: McpServerConfig) => {
    const { StdioClientTransport, getDefaultEnvironment } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const transport = new StdioClientTransport({
      command: config.command ?? "",
      args: config.args ?? [],
      env: { ...getDefaultEnvironment(), ...(config.env ?? {}) },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Uint8Array) => log(`MCP ${config.name}: ${new TextDecoder().decode(chunk).trim()}`));
    return transport;
  };
}

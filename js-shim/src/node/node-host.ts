// Node as a platform of the core: `.smarthole/` and HTTP (node-io.ts), the notes on a real folder
// and its watcher (node-vault.ts), hub sockets on `ws`, MCP servers over stdio or HTTP, the agent
// API on node:http, the time zone (SMARTHOLE_TIME_ZONE first). The headless command runs the
// core on it through CoreRuntime, as the plugin does; nodeHost gives benchmarks and tools the
// same host, composed the same way (core/compose-host.ts), to drive a processor in-process.
import path from "node:path";
import * as childProcess from "node:child_process";
import * as fs from "node:fs";
import process from "node:process";
import WebSocket from "ws";
import type { CoreEvent, CoreHost, HttpRequestSpec, LogLevel } from "smarthole-core";
import type { SocketLike } from "../core/hub-sockets.ts";
import { localTimeZone } from "../core/clock.ts";
import { stdioTransport } from "../core/mcp-stdio.ts";
import { CoreLinks } from "../core/links.ts";
import { composeHost } from "../core/compose-host.ts";
import { agentSystem } from "../core/agent-process.ts";
import type { Platform } from "../core/runtime.ts";
import { NodeIO } from "./node-io.ts";
import { nodeInflate } from "./inflate.ts";
import { CONFIG_FOLDER, NodeVault } from "./node-vault.ts";

/** Larger than the hub's 1 MB limit on purpose: an oversized frame reaches the core, which logs
 * and drops it, instead of the socket library closing the connection. */
const SOCKET_MAX_PAYLOAD = 8 * 1024 * 1024;

export interface NodePlatformOptions {
  /** Each model request as it goes out (benchmarks measure from here). */
  onHttpStart?: (request: HttpRequestSpec) => void;
  /** Where an MCP server's stderr lines go. */
  log?: (level: LogLevel, message: string) => void;
}

/** Node's parts, for the vault whose data folder is `dataDir` (`<vault>/.smarthole`). */
export function nodePlatform(dataDir: string, options: NodePlatformOptions = {}): Platform & { io: NodeIO; vault: NodeVault } {
  const root = path.dirname(path.resolve(dataDir));
  const vault = new NodeVault(root);
  return {
    io: new NodeIO(dataDir, options.onHttpStart),
    vault,
    openSocket: (url): SocketLike => new WebSocket(url, { maxPayload: SOCKET_MAX_PAYLOAD }),
    mcpStdio: stdioTransport((line) => options.log?.("debug", line)),
    loadHttp: () => import("node:http"),
    agentSystem: () => agentSystem(childProcess, process, { setTimeout, clearTimeout }, fs),
    vaultFolder: () => root,
    inflate: nodeInflate,
    timeZone: () => process.env.SMARTHOLE_TIME_ZONE ?? localTimeZone(),
    configFolder: CONFIG_FOLDER,
    watchVault: (changed) => vault.watch(changed),
  };
}

export interface NodeHostOptions {
  /** Each model request as it goes out (benchmarks measure from here). */
  onHttpStart?: (request: HttpRequestSpec) => void;
  /** Every event of the core, synchronously. */
  onEvent?: (event: CoreEvent) => void;
  onLog?: (level: LogLevel, message: string) => void;
}

/** The core's host on Node for a processor driven in-process; its links (hub sockets, MCP, the
 * agent API) are `attach`ed by the caller once the processor exists. */
export function nodeHost(dataDir: string, options: NodeHostOptions = {}): CoreHost & { links: CoreLinks; vault: NodeVault } {
  const log = (level: LogLevel, message: string) => options.onLog?.(level, message);
  const platform = nodePlatform(dataDir, { onHttpStart: options.onHttpStart, log });
  const links = new CoreLinks({ openSocket: platform.openSocket, mcpStdio: platform.mcpStdio ?? null, loadHttp: platform.loadHttp ?? null, log, agentSystem: platform.agentSystem, vaultFolder: platform.vaultFolder });
  const host = composeHost({ ...platform, links, emit: (event) => options.onEvent?.(event), log });
  return { ...host, links, vault: platform.vault };
}

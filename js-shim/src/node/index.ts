// The core and its Node host as a library, for benchmarks and tools that drive the processor
// in-process (the headless command runs the same pieces through CoreRuntime, behind a CLI).
import { loadCore as loadShared, newCore as newOwn } from "../core/load.ts";
import { nodeInflate } from "./inflate.ts";
export { wasmMemoryBytes } from "../core/load.ts";

/** The shared core, inflated by Node's zlib. */
export const loadCore = () => loadShared(nodeInflate);
/** A core of its own, inflated by Node's zlib. */
export const newCore = () => newOwn(nodeInflate);
export { nodeHost, nodePlatform } from "./node-host.ts";
export { NodeIO } from "./node-io.ts";
export { NodeVault } from "./node-vault.ts";
export type { NodeHostOptions } from "./node-host.ts";
export type { LogLevel } from "smarthole-core";
export { HubSockets } from "../core/hub-sockets.ts";
export { cronNext, localTimeZone } from "../core/clock.ts";
export { McpConnections } from "../core/mcp.ts";
export { terminalSafe, terminalSafeJson } from "./terminal-text.ts";
export { AgentProcesses, agentSystem } from "../core/agent-process.ts";
export { AgentRecords } from "../core/agent-leftovers.ts";

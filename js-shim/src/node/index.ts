// The core and its Node host as a library, for benchmarks and tools that drive the processor
// in-process (the headless command runs the same pieces through CoreRuntime, behind a CLI).
export { loadCore, newCore, wasmMemoryBytes } from "../core/load.ts";
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

// What this device lets the plugin offer: the host's facts in, the core's features out.
// One of the declaration files of the values crossing the JS boundary (src/wasm/types/), each
// emitted into pkg/smarthole_agent.d.ts by src/wasm/mod.rs, where they see each other; checked
// against the core's JSON by scripts/contract.mjs.

/** What the host can do, as it reports it (a missing field counts as a computer's). */
export interface PlatformFacts {
  /** A phone or tablet. */
  mobile?: boolean;
  /** Programs can be started (command-line MCP servers). */
  canStartPrograms?: boolean;
  /** A local server can listen on a port (the agent API). */
  canListen?: boolean;
}

/** One feature on this device: available, or why not. */
export interface Feature {
  available: boolean;
  whyNot?: string;
}

/** The features that depend on the device, as the core decides them from its facts. */
export interface PlatformFeatures {
  hub: Feature;
  mcpStdio: Feature;
  agentApi: Feature;
  ownAgent: Feature;
  /** What the settings say in place of the missing features' sections. */
  missing?: string;
}

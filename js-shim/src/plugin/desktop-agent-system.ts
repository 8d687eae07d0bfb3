// Node's child_process and process on the desktop app (Electron), for the user's coding agent's
// processes (core/agent-process.ts). Required only when the core starts an agent, and only on
// the desktop app: the mobile app has no processes to start.
import { FileSystemAdapter, Platform, type App } from "obsidian";
import { agentSystem, type AgentSystem } from "../core/agent-process.ts";

type ChildProcess = typeof import("node:child_process");
type NodeProcess = typeof import("node:process");

/** The desktop app's AgentSystem; null on mobile. */
export function desktopAgentSystem(): AgentSystem | null {
  if (Platform.isDesktop && Platform.isDesktopApp) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports, no-undef -- Obsidian's plugins are CommonJS; child_process on desktop only
    const childProcess = require("node:child_process") as ChildProcess;
    // eslint-disable-next-line @typescript-eslint/no-require-imports, no-undef -- as above
    const proc = require("node:process") as NodeProcess;
    // eslint-disable-next-line @typescript-eslint/no-require-imports, no-undef -- as above (the record of the agents started)
    const fs = require("node:fs") as typeof import("node:fs");
    return agentSystem(childProcess, proc, window, fs);
  }
  return null;
}

/** The vault's folder on disk, where an agent works; null where the vault has none (mobile). */
export function vaultFolder(app: App): string | null {
  const adapter = app.vault.adapter;
  return Platform.isDesktopApp && adapter instanceof FileSystemAdapter ? adapter.getBasePath() : null;
}

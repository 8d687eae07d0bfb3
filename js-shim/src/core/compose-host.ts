// The one place the core's host is put together, for every platform: the platform's files and
// HTTP (HostIO), its notes (VaultIO), the links (hub sockets, MCP servers), croner, the image
// scaler (null where images cannot be decoded: Node), the time zone and the vault's configuration
// folder (a fact: the core protects it), with events and logs
// going where the caller says. CoreRuntime (the plugin, a page, the headless command) and
// nodeHost (in-process use: benchmarks) both call it. Each call goes, as it is, to the part that
// does it; nothing is decided here.
import type { CoreEvent, CoreHost, LogLevel } from "smarthole-core";
import { cronNext, localTimeZone } from "./clock.ts";
import { scaleImage } from "./scale-image.ts";
import type { AgentHost } from "./agent-process.ts";

/** The host calls the platform's files (paths relative to `.smarthole/`) and HTTP answer. */
const IO_CALLS = ["readFile", "writeFileAtomic", "readFileBytes", "writeFileAtomicBytes", "appendFile", "listDir", "removeFile", "renameFile", "fileSize", "httpStart"] as const;
/** The host calls the platform's notes (paths relative to the vault, checked by the core) answer. */
const VAULT_CALLS = ["vaultList", "vaultRead", "vaultReadBytes", "vaultReadManyBytes", "vaultCreate", "vaultProcess", "vaultAppend", "vaultCreateFolder", "vaultTrash", "vaultRename", "activeNote"] as const;
/** The host calls the links (core/links.ts) answer. */
const LINK_CALLS = ["mcpServers", "mcpCall", "hubConnect", "hubDisconnect", "hubSend"] as const;
/** The host calls the agent's processes (core/agent-process.ts, through the links) answer. */
const AGENT_CALLS = ["agentStart", "agentWrite", "agentStop", "environment", "agentFolder"] as const;

export type HostIO = Pick<CoreHost, (typeof IO_CALLS)[number]>;
export type VaultIO = Pick<CoreHost, (typeof VAULT_CALLS)[number]>;
export type LinkedHost = Pick<CoreHost, (typeof LINK_CALLS)[number]>;

/** What a host is made of. */
export interface HostParts {
  io: HostIO;
  vault: VaultIO;
  links: LinkedHost & AgentHost;
  /** Every event, synchronously (it must not call back into the processor). */
  emit: (event: CoreEvent) => void;
  log: (level: LogLevel, message: string) => void;
  /** The user's IANA time zone; default: the platform's. */
  timeZone?: () => string;
  /** The vault's configuration folder (Obsidian's `Vault#configDir`). */
  configFolder: string;
}

/** The calls `names` of `part`, each made on it as it is. */
function forward<T extends object, K extends keyof T & string>(part: T, names: readonly K[]): Pick<T, K> {
  return Object.fromEntries(names.map((name) => [name, (...args: unknown[]): unknown => Reflect.apply(part[name] as (...a: unknown[]) => unknown, part, args)])) as Pick<T, K>;
}

/** The host the core runs on. */
export function composeHost(parts: HostParts): CoreHost {
  return {
    ...forward(parts.io, IO_CALLS),
    ...forward(parts.vault, VAULT_CALLS),
    ...forward(parts.links, LINK_CALLS),
    ...forward(parts.links, AGENT_CALLS),
    scaleImage,
    cronNext: (e, z, after) => cronNext(e, z, after),
    timeZone: parts.timeZone ?? (() => localTimeZone()),
    configFolder: () => parts.configFolder,
    emit: parts.emit,
    log: parts.log,
    randomU32: () => crypto.getRandomValues(new Uint32Array(1))[0],
  };
}

// A message in and its result out (seed 003's shapes), what it carries and what the agent sends
// back.
// One of the declaration files of the values crossing the JS boundary (src/wasm/types/), each
// emitted into pkg/smarthole_agent.d.ts by src/wasm/mod.rs, where they see each other; checked
// against the core's JSON by scripts/contract.mjs.

/** How much a log line matters (the host's log, the shim's own). */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** Where a message came from. */
export type MessageSource = "websocket" | "direct" | "worker" | "system" | "api";

/** A message to process (seed 003). */
export interface RoutedMessage {
  id: string;
  text: string;
  timestamp?: string;
  source?: MessageSource;
  metadata?: Record<string, unknown>;
  /** What the user attached (from attachVault / attachBytes); typed and agent API messages only. */
  attachments?: Attachment[];
  /** An edit in place: the passage its answer rewrites (made by editInPlace only). */
  edit?: EditTarget;
}

/** The passage of a note an edit in place rewrites. */
export interface EditTarget {
  path: string;
  /** The first of the whole lines the passage lies in (1-based), as the note was at the ask. */
  startLine: number;
  /** Those lines, exactly. */
  lines: string;
  /** The passage inside `lines`: byte offsets of its start and end. */
  from: number;
  to: number;
  scope: "selection" | "paragraph" | "line";
  instruction: string;
}

/** A note, folder, image or PDF the user attached: what was sent is kept under its hash. */
export interface Attachment {
  kind: "note" | "folder" | "image" | "pdf";
  /** The vault path, or a pasted file's name. */
  path: string;
  hash: string;
  mediaType: string;
  bytes: number;
  pasted?: boolean;
  /** Where a long note was cut ("cut at line 812 of 3000"). */
  cut?: string;
  /** An image's [width, height]. */
  pixels?: [number, number];
  pages?: number;
}

/** One answer of the @ picker. */
export interface Mention {
  path: string;
  isFolder: boolean;
}

/** What process() resolves with (seed 003, plus errorCode, retryable, cancelled and notice). */
export interface ProcessResult {
  success: boolean;
  messageId: string;
  response?: string;
  toolsUsed?: string[];
  error?: string;
  errorCode?: string;
  /** The view may offer Retry (the same message again). */
  retryable?: boolean;
  isWaitingForResponse?: boolean;
  cancelled?: boolean;
  notice?: string;
  /** What the turn's model calls consumed, with the estimated cost. */
  usage?: Usage;
}

export interface ReprocessSummary {
  results: ProcessResult[];
  movedToFailed: string[];
}

export type QuestionType = "confirmation" | "choice" | "input";

export interface AgentMessage {
  messageId: string;
  /** The conversation a scheduled run's message names (see `message_received`). */
  conversationId?: string;
  content: string;
  isQuestion: boolean;
  questionType?: QuestionType;
  options?: string[];
}

//! The JS API: `MessageProcessor` with seed 003's method names, over the JS-backed host.

mod callbacks;
mod convert;
mod js_host;

pub use js_host::JsHostObject;

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::approval::Decision;
use crate::processor::{MessageProcessor, ScheduleChange};
use crate::settings::Settings;
use callbacks::Callbacks;
use convert::{from_js, to_js};
use js_host::JsHost;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
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

export interface CoreSettings {
  baseUrl?: string;
  /** The server's wire format: Anthropic Messages or OpenAI Chat Completions. */
  apiFormat?: "anthropic" | "openai";
  /** How the API key is sent: Anthropic's header, a bearer token, or not at all. */
  authStyle?: "x-api-key" | "bearer" | "none";
  model?: string;
  maxTokens?: number;
  apiKey?: string;
  /** The model for titles, summaries, retrospection and scheduled runs; empty: the chat's. */
  backgroundModel?: string;
  /** Its server; empty: the chat's server, format, auth and key. */
  backgroundBaseUrl?: string;
  backgroundApiFormat?: "anthropic" | "openai";
  backgroundAuthStyle?: "x-api-key" | "bearer" | "none";
  /** The background server's own key (the chat's key never goes to another server). */
  backgroundApiKey?: string;
  streaming?: boolean;
  maxIterations?: number;
  streamIdleTimeoutMs?: number;
  responseStartTimeoutMs?: number;
  notificationTitle?: string;
  contextTokenBudget?: number;
  informationArchitecture?: string;
  verboseLogging?: boolean;
  conversationIdleTimeoutMinutes?: number;
  conversationStateTimeoutMinutes?: number;
  /** Keep each conversation as a Markdown note too, added to after each turn. */
  markdownCopies?: boolean;
  /** The vault folder of those notes. */
  markdownCopiesFolder?: string;
  enableConversationRetrospection?: boolean;
  retrospectionPrompt?: string;
  hubEnabled?: boolean;
  hubUrl?: string;
  hubClientName?: string;
  hubDescription?: string;
  /** Folders the note tools may not touch, besides .obsidian, .smarthole, .git and .trash. */
  protectedFolders?: string[];
  /** Tools approved in advance: any of "write_file", "edit_file", "delete_file", "move_file". */
  autoApproveTools?: string[];
  /** Let the agent read, list and search folders linked from outside the vault (never write). */
  followLinkedFolders?: boolean;
  searchIndexMaxMb?: number;
  /** The user's MCP servers (integrations). */
  mcpServers?: McpServerConfig[];
  /** Serve the local agent API (desktop only). */
  agentApiEnabled?: boolean;
  agentApiPort?: number;
  /** From secret storage; never saved in data.json. */
  agentApiToken?: string;
  verificationTimeoutSeconds?: number;
  agentContexts?: AgentContext[];
  /** Prices per model for the estimated cost (defaults: the current Claude models). */
  modelPrices?: ModelPrice[];
}

/** An instruction context of the agent API. */
export interface AgentContext {
  name: string;
  port?: number;
  system: string;
  role: string;
  baseInstruction: string;
  allowedActions: string[];
  verificationRequired: boolean;
}

/** An agent API request as the shim's HTTP server received it. */
export interface ApiRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  bodyTooLarge: boolean;
  localPort: number;
}

/** What the shim writes back: a JSON body, a status, extra headers. */
export interface ApiResponse {
  status: number;
  body: string;
  headers?: [string, string][];
}

/** An MCP server: a command (stdio, desktop only) or a URL (Streamable HTTP). */
export interface McpServerConfig {
  name: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
}

export type ScheduleChange = "pause" | "resume" | "delete";

/** A conversation's schedule. */
export interface Schedule {
  type: "cron" | "scheduled" | "immediate";
  expression?: string;
  timeZone?: string;
  runAt?: string;
  nextRunAt?: string;
  task: string;
  endAt?: string;
  maxRuns?: number;
  runs: number;
  failures: number;
  paused: boolean;
  lastError?: string;
  lastRunAt?: string;
  integrations?: string[];
  /** The model its runs use, when the job names one. */
  model?: string;
  currentRun?: string;
}

export type ApprovalStatus = "pending" | "approved" | "rejected" | "expired";
/** Why a request stopped being pending. */
export type SettleReason =
  | "approved"
  | "rejected"
  | "timeout"
  | "stopped"
  | "restarted"
  | "not_allowed"
  | "not_required"
  | "session_grant";
export type ApprovalDecision = "approve_once" | "approve_conversation" | "reject";

/** Something the agent may not do without the user's yes. */
export interface ApprovalRequest {
  id: string;
  action: string;
  summary: string;
  reason?: string;
  details?: unknown;
  origin: "tool" | "api";
  conversationId?: string;
  messageId?: string;
  /** The agent API session ("api:<context>") that "approve for this session" covers. */
  session?: string;
  createdMs: number;
  expiresMs: number;
  status: ApprovalStatus;
  scope?: "once" | "conversation";
  note?: string;
  settleReason?: SettleReason;
  /** The change to a note it would make, as a diff (edit, overwrite, move, delete). */
  change?: ProposedChange;
  /** The hunks (by number) the approval accepted; absent means all of them. */
  acceptedHunks?: number[];
  /** The tool call that asked: its card sits at that tool's chip. */
  toolUseId?: string;
}

/** A change to a note the agent proposes (or made): the diff a card shows, hunk by hunk. */
export interface ProposedChange {
  kind: "edit" | "overwrite" | "create" | "move" | "delete";
  path: string;
  /** A move's new path. */
  to?: string;
  /** SHA-256 (hex) of the content the diff was made from. */
  baseHash: string;
  hunks: DiffHunk[];
}

/** A run of changes with up to 3 lines of context: what the user accepts or rejects. */
export interface DiffHunk {
  /** From 1, as "/approve ID 1,3" and the model name it. */
  number: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

/** One line, exactly as in the note (with its line break, if it has one). */
export interface DiffLine {
  kind: "context" | "removed" | "added";
  text: string;
  /** The line in pieces, the changed words marked (removed/added lines of a small change). */
  words?: { text: string; changed: boolean }[];
}

/** A change a turn applied, as a reopened conversation redraws it. */
export interface AppliedChange {
  toolUseId: string;
  change: ProposedChange;
  appliedHunks: number[];
  undone: boolean;
}

/** What a turn asked and changed: its approval requests and the changes it applied. */
export interface TurnReview {
  approvals: ApprovalRequest[];
  changes: AppliedChange[];
}

/** What undoing a turn did, note by note. */
export interface UndoReport {
  messageId: string;
  restored: string[];
  refused: { path: string; reason: string }[];
}

/** An MCP server as the core sees it. */
export interface McpServerInfo {
  name: string;
  state: "connected" | "connecting" | "failed" | "unauthorized" | "unsupported";
  error?: string;
  tools: { name: string; description?: string; inputSchema?: unknown }[];
}

/** A file or folder of the vault. */
export interface VaultEntry {
  path: string;
  isFolder: boolean;
  size: number;
  createdMs: number;
  modifiedMs: number;
  /** What it really is (absent: a plain file or folder, or a link to one inside the vault). */
  kind?: VaultEntryKind;
  /** A link whose real location is inside the vault: that location, vault-relative. */
  realPath?: string;
}

/** outside: a link out of the vault; linked: inside a folder linked from outside (listed only
 * when following them); the rest are never opened. */
export type VaultEntryKind = "plain" | "outside" | "linked" | "dangling" | "loop" | "fifo" | "socket" | "device";

export type ConversationStatus = "active" | "background" | "waiting_input" | "archived";

export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } }
  | { type: "document"; source: { type: "base64"; media_type: string; data: string }; title?: string }
  | { type: "attachment"; attachment: Attachment };

/** One line of a conversation's history. */
export interface HistoryLine {
  id: string;
  messageId: string;
  role: "user" | "assistant" | "system";
  content: ContentBlock[];
  source: MessageSource;
  visible: boolean;
  ts: string;
  turn?: { toolsUsed: string[]; waiting?: boolean; endsConversation?: string; usage?: Usage };
  /** The message context sent ahead of the user's text (time, source, state); not shown. */
  context?: string;
}

/** A page of a conversation: its lines oldest first, and the cursor for the page before it. */
export interface ConversationPage {
  lines: HistoryLine[];
  before?: number;
}

/** What model calls consumed (the API's usage) and, for a turn, the context filled and the cost. */
export interface Usage {
  inputTokens: number;
  cacheCreationInputTokens: number;
  cacheCreation1hTokens?: number;
  cacheReadInputTokens: number;
  outputTokens: number;
  modelCalls?: number;
  contextTokens?: number;
  model?: string;
  contextWindow?: number;
  costUsd?: number;
}

/** The day's and the month's usage, local time. */
export interface UsageTotals {
  today: Usage;
  month: Usage;
  dayStart: string;
  monthStart: string;
}

/** A provider's connection defaults; "custom" (empty base URL) changes nothing. */
export interface ProviderPreset {
  id: string;
  name: string;
  baseUrl: string;
  apiFormat: "anthropic" | "openai";
  authStyle: "x-api-key" | "bearer" | "none";
  note: string;
}

/** One line of the connection check: what was checked, whether it passed, what to change. */
export interface CheckLine {
  step: string;
  ok: boolean;
  text: string;
  /** A capability the chat works without (images): its failure does not fail the check. */
  optional?: boolean;
}

/** The connection check's report, and the models the server lists. */
export interface ConnectionCheck {
  lines: CheckLine[];
  models: string[];
  ok: boolean;
}

/** A model's price (dollars per million tokens) and context window. */
export interface ModelPrice {
  model: string;
  inputPerMtok: number;
  outputPerMtok: number;
  contextWindow: number;
}

export interface PendingQuestion {
  type: "confirmation" | "choice" | "input";
  prompt: string;
  options?: string[];
  createdAt: string;
}

export interface Conversation {
  id: string;
  status: ConversationStatus;
  title?: string;
  summary?: string;
  createdAt: string;
  endedAt?: string;
  endReason?: string;
  schedule?: Schedule;
  state: { context: Record<string, unknown>; step?: string; data: Record<string, unknown>; pendingQuestion?: PendingQuestion };
  providerSessionId?: string;
  /** The vault path of its Markdown copy, once one is written. */
  markdownCopy?: string;
  /** The conversation whose scheduled job this one took over. */
  continues?: string;
  /** The conversation its scheduled job went on in. */
  continuedIn?: string;
}

export type PipelineStage = "inbox_written" | "ack_sent" | "model_request" | "history_recorded" | "inbox_cleaned";

/** Everything the core tells the UI. */
export type CoreEvent =
  | { type: "message_received"; message: RoutedMessage; conversationId?: string }
  | { type: "stage"; messageId: string; conversationId?: string; stage: PipelineStage }
  | { type: "text_delta"; messageId: string; conversationId?: string; text: string }
  | { type: "retrying"; messageId: string; conversationId?: string; attempt: number; delayMs: number; delaySeconds: number; errorCode: string; error: string }
  | { type: "waiting"; messageId: string; conversationId?: string; text: string }
  | { type: "tool_started"; messageId: string; conversationId?: string; toolUseId: string; name: string; input: unknown }
  | { type: "tool_finished"; messageId: string; conversationId?: string; toolUseId: string; name: string; isError: boolean; output: string }
  | ({ type: "agent_message" } & AgentMessage)
  | { type: "response"; result: ProcessResult; conversationId?: string }
  | { type: "notice"; level: "info" | "warning" | "error"; text: string }
  | { type: "conversation_updated"; conversation: Conversation }
  | { type: "retrospection"; conversationId: string; conversationTitle: string; content: string }
  | { type: "search_index"; state: "building" | "ready" | "off"; done: number; total: number; bytes: number }
  | { type: "hub_status"; status: HubStatus; detail: string | null }
  | { type: "approval_requested"; request: ApprovalRequest }
  | { type: "approval_resolved"; request: ApprovalRequest }
  | { type: "change_applied"; messageId: string; conversationId?: string; toolUseId: string; change: ProposedChange; appliedHunks: number[] }
  | { type: "turn_undone"; report: UndoReport }
  | { type: "scheduled_run"; conversationId: string; messageId: string; ok: boolean; text: string };

export type HubStatus = "disabled" | "disconnected" | "connecting" | "connected" | "error";

export interface HttpRequestSpec {
  method: string;
  url: string;
  headers: [string, string][];
  body: string;
  stream: boolean;
}

/** A request in flight: its head, its body chunk by chunk, and a way to stop it. */
export interface HttpHandle {
  readonly response: Promise<{ status: number; headers: [string, string][] }>;
  /** The next body chunk, null at the end. */
  read(): Promise<Uint8Array | null>;
  abort(): void;
}

/** What the shim provides to the core. Paths are relative to the `.smarthole/` folder. */
export interface CoreHost {
  readFile(path: string): Promise<string | null>;
  writeFileAtomic(path: string, text: string): Promise<void>;
  appendFile(path: string, text: string): Promise<void>;
  listDir(dir: string): Promise<string[]>;
  removeFile(path: string): Promise<void>;
  renameFile(from: string, to: string): Promise<void>;
  /** The file's size in bytes, null when it does not exist (asked before every read); what it
   *  is when it is not a regular file ("fifo", "socket", "device", "folder"; never opened, the
   *  core sets it aside). readFile and appendFile never open such a file either. */
  fileSize(path: string): Promise<number | string | null>;
  /** Every file and folder of the vault, paths relative to its root (hidden folders left out).
   * Links are reported with their kind and real path, not walked through; the content of
   * folders linked from outside only when followLinkedFolders. */
  vaultList(followLinkedFolders: boolean): Promise<VaultEntry[]>;
  vaultRead(path: string): Promise<string>;
  /** A file's bytes (an attached image or PDF; its size was checked first). */
  vaultReadBytes(path: string): Promise<Uint8Array>;
  /** An image scaled down to at most maxSide pixels on its longest side and maxBytes (PNG kept
   *  PNG where that fits, others JPEG); null where the platform cannot decode images (Node). */
  scaleImage(bytes: Uint8Array, mediaType: string, maxSide: number, maxBytes: number): Promise<Uint8Array | null>;
  /** Creates a note that does not exist yet, and its folders. */
  vaultCreate(path: string, text: string): Promise<void>;
  /** Atomic read-modify-write (Vault.process); edit returns the new text, or undefined for no
   *  change. Resolves with whether the note was written. */
  vaultProcess(path: string, edit: (text: string) => string | undefined): Promise<boolean>;
  /** Adds text at the end of an existing note (Vault.append). */
  vaultAppend(path: string, text: string): Promise<void>;
  vaultCreateFolder(path: string): Promise<void>;
  /** To the trash, as the user's settings say (fileManager.trashFile). */
  vaultTrash(path: string): Promise<void>;
  /** Renames or moves, updating links (fileManager.renameFile). */
  vaultRename(from: string, to: string): Promise<void>;
  /** The path of the note open in the editor, or null. */
  activeNote(): Promise<string | null>;
  /** The next time (ms) a 5-field cron expression fires strictly after afterMs, in IANA zone
   *  timeZone (croner); null when never again; throws with the reason when invalid. */
  cronNext(expression: string, timeZone: string, afterMs: number): number | null;
  /** The user's IANA time zone. */
  timeZone(): string;
  /** The configured MCP servers, their state and tools. */
  mcpServers(): Promise<McpServerInfo[]>;
  /** Calls an MCP tool; the result is the raw tools/call result. Errors carry a kind. */
  mcpCall(server: string, tool: string, input: unknown): { result: Promise<unknown>; abort(): void };
  httpStart(request: HttpRequestSpec): HttpHandle;
  /** Opens WebSocket `socket` to the hub; report its events with hubOpened/hubFrame/hubClosed. */
  hubConnect(socket: number, url: string): void;
  /** Closes WebSocket `socket` (a no-op if it is closed already). */
  hubDisconnect(socket: number): void;
  /** Sends a text frame on WebSocket `socket`. */
  hubSend(socket: number, frame: string): void;
  /** Called synchronously; must not call back into the processor. */
  emit(event: CoreEvent): void;
  log(level: LogLevel, message: string): void;
  randomU32(): number;
}
"#;

fn js_error(message: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&message.to_string()).into()
}

/// A promise of the core's result, its value crossing as JSON; an error rejects with its message.
/// The future is boxed so the promise glue exists once in the module, not once per export.
fn promise<T, E>(work: impl std::future::Future<Output = Result<T, E>> + 'static) -> Promise
where
    T: serde::Serialize,
    E: std::fmt::Display,
{
    let boxed: LocalBoxFuture<'static, Result<JsValue, JsValue>> =
        Box::pin(async move { work.await.map(|value| to_js(&value)).map_err(js_error) });
    future_to_promise(boxed)
}

fn settings_from(value: JsValue) -> Result<Settings, JsValue> {
    let json: serde_json::Value = if value.is_undefined() || value.is_null() {
        serde_json::Value::Object(Default::default())
    } else {
        match from_js(&value) {
            v @ serde_json::Value::Object(_) => v,
            _ => return Err(js_error("settings are not valid: expected an object")),
        }
    };
    Settings::from_json(json).map_err(js_error)
}

/// The message processor, as the shim sees it.
#[wasm_bindgen(js_name = MessageProcessor)]
pub struct WasmMessageProcessor {
    core: MessageProcessor<JsHost>,
    callbacks: Rc<Callbacks>,
}

#[wasm_bindgen(js_class = MessageProcessor)]
impl WasmMessageProcessor {
    /// `new MessageProcessor(host, settings)`; throws on invalid settings.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: JsHostObject,
        #[wasm_bindgen(unchecked_param_type = "CoreSettings")] settings: JsValue,
    ) -> Result<WasmMessageProcessor, JsValue> {
        let callbacks = Rc::new(Callbacks::default());
        let core = MessageProcessor::new(JsHost::new(host, Rc::clone(&callbacks)), settings_from(settings)?)
            .map_err(js_error)?;
        Ok(WasmMessageProcessor { core, callbacks })
    }

    /// Loads the history and the inbox state; rejects when the data folder cannot be read.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn initialize(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.initialize().await })
    }

    /// Processes a message; always resolves, with a failed result for bad input.
    #[wasm_bindgen(unchecked_return_type = "Promise<ProcessResult>")]
    pub fn process(&self, #[wasm_bindgen(unchecked_param_type = "RoutedMessage")] message: JsValue) -> Promise {
        let raw = from_js(&message);
        let work = self.core.process(raw);
        promise(async move { Ok::<_, String>(work.await) })
    }

    /// A message the user typed, with the id (`direct-…`) and time the core gives it.
    #[wasm_bindgen(js_name = newMessage, unchecked_return_type = "RoutedMessage")]
    pub fn new_message(&self, text: &str) -> JsValue {
        to_js(&self.core.new_message(text))
    }

    /// Finishes what a previous session left in the inbox.
    #[wasm_bindgen(js_name = reprocessPending, unchecked_return_type = "Promise<ReprocessSummary>")]
    pub fn reprocess_pending(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.reprocess_pending().await })
    }

    /// Stops the message in flight; returns whether there was one.
    #[wasm_bindgen(js_name = cancelCurrentProcessing)]
    pub fn cancel_current_processing(&self) -> bool {
        self.core.cancel_current_processing()
    }

    /// Drops pending questions older than the state timeout; resolves with the ids of the
    /// conversations that had one.
    #[wasm_bindgen(js_name = cleanupStaleStates, unchecked_return_type = "Promise<string[]>")]
    pub fn cleanup_stale_states(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.cleanup_stale_states().await })
    }

    /// Every conversation's metadata, oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Conversation[]>")]
    pub fn conversations(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.conversations().await })
    }

    /// Writes a hidden system line (UC014: the chat opened); resolves with the conversation id.
    #[wasm_bindgen(js_name = recordSystemLine, unchecked_return_type = "Promise<string>")]
    pub fn record_system_line(&self, text: String) -> Promise {
        let core = self.core.clone();
        promise(async move { core.record_system_line(&text).await })
    }

    /// A conversation's lines, oldest first (hidden ones included).
    #[wasm_bindgen(js_name = conversationLines, unchecked_return_type = "Promise<HistoryLine[]>")]
    pub fn conversation_lines(&self, id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { core.conversation_lines(&id).await })
    }

    /// Writes a conversation as a Markdown note (or what its note lacks); resolves with the
    /// note's path.
    #[wasm_bindgen(js_name = exportConversation, unchecked_return_type = "Promise<string>")]
    pub fn export_conversation(&self, id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { core.export_conversation(&id).await })
    }

    /// A page of a conversation: its newest `limit` turns before the cursor `before` (from an
    /// earlier page; the end when absent), oldest first.
    #[wasm_bindgen(js_name = conversationPage, unchecked_return_type = "Promise<ConversationPage>")]
    pub fn conversation_page(&self, id: String, before: Option<f64>, limit: u32) -> Promise {
        let core = self.core.clone();
        let before = before.filter(|b| b.is_finite() && *b >= 0.0).map(|b| b as u64);
        promise(async move { core.conversation_page(&id, before, limit as usize).await })
    }

    /// What a conversation has cost so far: every turn's usage added up.
    #[wasm_bindgen(js_name = conversationUsage, unchecked_return_type = "Promise<Usage>")]
    pub fn conversation_usage(&self, id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { core.conversation_usage(&id).await })
    }

    /// The conversation new messages go to, or null.
    #[wasm_bindgen(js_name = currentConversation, unchecked_return_type = "Promise<Conversation | null>")]
    pub fn current_conversation(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.current_conversation().await) })
    }

    /// "New chat": ends the current conversation.
    #[wasm_bindgen(js_name = newConversation, unchecked_return_type = "Promise<void>")]
    pub fn new_conversation(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.new_conversation().await })
    }

    /// Makes a past conversation current again.
    #[wasm_bindgen(js_name = openConversation, unchecked_return_type = "Promise<Conversation>")]
    pub fn open_conversation(&self, id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { core.open_conversation(&id).await })
    }

    /// Checks the model server line by line, for "Check connection" and `--check`.
    #[wasm_bindgen(js_name = checkConnection, unchecked_return_type = "Promise<ConnectionCheck>")]
    pub fn check_connection(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.check_connection().await) })
    }

    /// Attaches a note, folder, image or PDF of the vault for the next message; rejects with
    /// what to show on the chip.
    #[wasm_bindgen(js_name = attachVault, unchecked_return_type = "Promise<Attachment>")]
    pub fn attach_vault(&self, path: String) -> Promise {
        let core = self.core.clone();
        promise(async move { core.attach_vault(&path).await })
    }

    /// The `@` picker's best matches for what was typed after the `@` (the newest notes for
    /// nothing yet).
    #[wasm_bindgen(unchecked_return_type = "Promise<Mention[]>")]
    pub fn mentions(&self, query: String, limit: u32) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.mentions(&query, limit as usize).await) })
    }

    /// Attaches an image or PDF pasted or dropped into the chat (scaled down by the view first
    /// when large); rejects with what to show on the chip.
    #[wasm_bindgen(js_name = attachBytes, unchecked_return_type = "Promise<Attachment>")]
    pub fn attach_bytes(&self, name: String, bytes: Vec<u8>) -> Promise {
        let core = self.core.clone();
        promise(async move { core.attach_bytes(&name, &bytes).await })
    }

    /// The day's and the month's token use and estimated cost, for the settings.
    #[wasm_bindgen(js_name = usageTotals, unchecked_return_type = "Promise<UsageTotals>")]
    pub fn usage_totals(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.usage_totals().await })
    }

    /// Deletes every conversation; resolves with how many.
    #[wasm_bindgen(js_name = clearHistory, unchecked_return_type = "Promise<number>")]
    pub fn clear_history(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { core.clear_history().await })
    }

    /// The user's answer to an approval request; resolves with the request as it now stands,
    /// rejects when it is unknown or already settled. `hunks` (numbers from 1) accepts only
    /// those hunks of a proposed change; left out, all of them.
    #[wasm_bindgen(js_name = decideApproval, unchecked_return_type = "Promise<ApprovalRequest>")]
    pub fn decide_approval(
        &self,
        id: String,
        #[wasm_bindgen(unchecked_param_type = "ApprovalDecision")] decision: String,
        #[wasm_bindgen(unchecked_optional_param_type = "number[]")] hunks: Option<Vec<u32>>,
    ) -> Promise {
        let core = self.core.clone();
        promise(async move {
            let decision: Decision =
                crate::lean::from_value(&serde_json::Value::String(decision.clone())).map_err(|_| {
                    format!("unknown approval decision {decision:?}: use approve_once, approve_conversation or reject")
                })?;
            let hunks = hunks.map(|h| h.into_iter().map(|n| n as usize).collect());
            core.decide_approval_hunks(&id, decision, hunks).await.map_err(|e| e.to_string())
        })
    }

    /// Undoes every change to the notes the message's turn made; resolves with which notes were
    /// restored and which refused (changed since), and why.
    #[wasm_bindgen(js_name = undoTurn, unchecked_return_type = "Promise<UndoReport>")]
    pub fn undo_turn(&self, message_id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.undo_turn(&message_id).await) })
    }

    /// What a turn asked and changed (approval requests, applied changes and whether each was
    /// undone): the chat view redraws a reopened conversation's cards from it.
    #[wasm_bindgen(js_name = turnReview, unchecked_return_type = "Promise<TurnReview>")]
    pub fn turn_review(&self, message_id: String) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.turn_review(&message_id).await) })
    }

    /// The newest turn of the current conversation whose changes to the notes can be undone
    /// (null when none): what the headless `/undo` reverts.
    #[wasm_bindgen(js_name = lastUndoableTurn, unchecked_return_type = "Promise<string | null>")]
    pub fn last_undoable_turn(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.last_undoable_turn().await) })
    }

    /// Approval requests waiting for an answer, oldest first.
    #[wasm_bindgen(js_name = pendingApprovals, unchecked_return_type = "ApprovalRequest[]")]
    pub fn pending_approvals(&self) -> JsValue {
        to_js(&self.core.pending_approvals())
    }

    /// Pauses, resumes or deletes a conversation's schedule; resolves with the conversation.
    #[wasm_bindgen(js_name = changeSchedule, unchecked_return_type = "Promise<Conversation>")]
    pub fn change_schedule(
        &self,
        id: String,
        #[wasm_bindgen(unchecked_param_type = "ScheduleChange")] change: String,
    ) -> Promise {
        let core = self.core.clone();
        promise(async move {
            let change = match change.as_str() {
                "pause" => ScheduleChange::Pause,
                "resume" => ScheduleChange::Resume,
                "delete" => ScheduleChange::Delete,
                other => return Err(format!("unknown schedule change {other:?}: use pause, resume or delete")),
            };
            core.change_schedule(&id, change).await.map_err(|e| e.to_string())
        })
    }

    /// Conversations with a schedule, soonest run first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Conversation[]>")]
    pub fn scheduled(&self) -> Promise {
        let core = self.core.clone();
        promise(async move { Ok::<_, String>(core.scheduled().await) })
    }

    /// Answers an agent API request the shim's HTTP server received; always resolves (errors
    /// are answers with a status).
    #[wasm_bindgen(js_name = handleApiRequest, unchecked_return_type = "Promise<ApiResponse>")]
    pub fn handle_api_request(&self, #[wasm_bindgen(unchecked_param_type = "ApiRequest")] request: JsValue) -> Promise {
        let core = self.core.clone();
        let request = crate::lean::from_value::<crate::api::ApiRequest>(&from_js(&request));
        promise(async move {
            match request {
                Ok(request) => Ok::<_, String>(core.handle_api(request).await),
                Err(e) => Err(format!("the shim passed an unreadable request: {e}")),
            }
        })
    }

    /// The ports the agent API should listen on (none when it is off).
    #[wasm_bindgen(js_name = agentApiListeners, unchecked_return_type = "{ port: number; context?: string }[]")]
    pub fn agent_api_listeners(&self) -> JsValue {
        to_js(&self.core.api_listeners())
    }

    /// The `/config` document (the "Download config" command), with the token only if asked.
    #[wasm_bindgen(js_name = agentApiConfig, unchecked_return_type = "Record<string, unknown>")]
    pub fn agent_api_config(&self, include_token: bool) -> JsValue {
        to_js(&self.core.api_config_document(include_token))
    }

    /// A fresh agent API token for the settings to keep in secret storage.
    #[wasm_bindgen(js_name = newApiToken)]
    pub fn new_api_token(&self) -> String {
        self.core.new_api_token()
    }

    /// Stops the message in flight and every background task (the plugin unloading).
    pub fn dispose(&self) {
        self.core.dispose();
    }

    /// Hub socket `socket` opened.
    #[wasm_bindgen(js_name = hubOpened)]
    pub fn hub_opened(&self, socket: u32) {
        self.core.hub_opened(u64::from(socket));
    }

    /// A text frame arrived on hub socket `socket`.
    #[wasm_bindgen(js_name = hubFrame)]
    pub fn hub_frame(&self, socket: u32, text: &str) {
        self.core.hub_frame(u64::from(socket), text);
    }

    /// Hub socket `socket` closed, failed to open, or was dropped; `why` is shown in the status.
    #[wasm_bindgen(js_name = hubClosed)]
    pub fn hub_closed(&self, socket: u32, why: &str) {
        self.core.hub_closed(u64::from(socket), why);
    }

    /// Starts building the vault's search index in the background (after `initialize`);
    /// progress arrives as `search_index` events.
    #[wasm_bindgen(js_name = startSearchIndex)]
    pub fn start_search_index(&self) {
        self.core.start_search_index();
    }

    /// A note or folder was created, modified, deleted or renamed (`kind`): the search index
    /// repairs itself before its next answer. A rename is reported for both paths.
    #[wasm_bindgen(js_name = vaultChanged)]
    pub fn vault_changed(&self, path: &str, kind: &str) {
        self.core.vault_changed(path, kind);
    }

    /// The search index: `{state, notes, bytes}` (its size in wasm memory, about).
    #[wasm_bindgen(getter, js_name = searchIndexStatus, unchecked_return_type = "{ state: string; notes: number; bytes: number }")]
    pub fn search_index_status(&self) -> JsValue {
        let (state, notes, bytes) = self.core.search_index_status();
        to_js(&serde_json::json!({"state": state, "notes": notes, "bytes": bytes}))
    }

    /// The hub connection's status: `{status, detail?}`.
    #[wasm_bindgen(getter, js_name = hubStatus, unchecked_return_type = "{ status: HubStatus; detail: string | null }")]
    pub fn hub_status(&self) -> JsValue {
        let (status, detail) = self.core.hub_status();
        to_js(&serde_json::json!({"status": status, "detail": detail}))
    }

    /// Replaces the settings; throws on invalid ones.
    #[wasm_bindgen(js_name = updateSettings)]
    pub fn update_settings(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CoreSettings")] settings: JsValue,
    ) -> Result<(), JsValue> {
        self.core.update_settings(settings_from(settings)?).map_err(js_error)
    }

    /// The id of the message in flight.
    #[wasm_bindgen(getter, js_name = currentMessageId)]
    pub fn current_message_id(&self) -> Option<String> {
        self.core.current_message_id()
    }

    /// Messages waiting behind the one in flight.
    #[wasm_bindgen(getter)]
    pub fn queued(&self) -> usize {
        self.core.queued()
    }

    /// `onResponse((messageId, response, toolsUsed) => …)`.
    #[wasm_bindgen(js_name = onResponse)]
    pub fn on_response(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "(messageId: string, response: string | undefined, toolsUsed: string[]) => void"
        )]
        callback: Function,
    ) {
        self.callbacks.response.borrow_mut().push(callback);
    }

    /// `onMessageReceived((message) => …)`, after the inbox write.
    #[wasm_bindgen(js_name = onMessageReceived)]
    pub fn on_message_received(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(message: RoutedMessage) => void")] callback: Function,
    ) {
        self.callbacks.received.borrow_mut().push(callback);
    }

    /// `onAgentMessage((message) => …)` for `send_message`.
    #[wasm_bindgen(js_name = onAgentMessage)]
    pub fn on_agent_message(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(message: AgentMessage) => void")] callback: Function,
    ) {
        self.callbacks.agent.borrow_mut().push(callback);
    }

    /// `onRetrospection((result) => …)` after a conversation's retrospection is written.
    #[wasm_bindgen(js_name = onRetrospection)]
    pub fn on_retrospection(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(result: { conversationTitle: string; content: string }) => void")]
        callback: Function,
    ) {
        self.callbacks.retrospection.borrow_mut().push(callback);
    }
}

/// The settings the core uses when none are given (the settings tab shows them).
#[wasm_bindgen(js_name = defaultSettings, unchecked_return_type = "Required<CoreSettings>")]
pub fn default_settings() -> JsValue {
    to_js(&Settings::default())
}

/// The provider presets the settings offer (base URL, format, auth style each).
#[wasm_bindgen(js_name = providerPresets, unchecked_return_type = "ProviderPreset[]")]
pub fn provider_presets() -> JsValue {
    to_js(&crate::llm::presets::provider_presets())
}

/// Why a pasted or dropped file of this size cannot be attached (checked before it is read), or
/// undefined.
#[wasm_bindgen(js_name = pasteSizeProblem)]
pub fn paste_size_problem(name: &str, size: f64) -> Option<String> {
    crate::attachment::check_paste_size(name, size as u64).err().map(|e| e.to_string())
}

/// The chat input's text for "Ask the agent about the selection".
#[wasm_bindgen(js_name = selectionQuote)]
pub fn selection_quote(path: &str, from_line: u32, to_line: u32, text: &str) -> String {
    crate::attachment::selection_quote(path, from_line, to_line, text)
}

/// The largest agent API request body, in bytes: the shim stops reading after it.
#[wasm_bindgen(js_name = agentApiBodyLimit)]
pub fn agent_api_body_limit() -> usize {
    crate::api::BODY_LIMIT
}

/// The fields of a settings document its reader would ignore (misspelled or unknown), each with
/// where it is, the name probably meant and a sentence saying so: the headless command refuses
/// `--api-config`/`--mcp-config` files with any; the plugin keeps them in `data.json` and says
/// they are not used. `document`: `settings`, `pluginData`, `apiConfig` or `mcpConfig`;
/// `source` names the file in the sentence.
#[wasm_bindgen(
    js_name = unknownSettingsFields,
    unchecked_return_type = "{ at: string; field: string; suggestion?: string; message: string }[]"
)]
pub fn unknown_settings_fields(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
    #[wasm_bindgen(unchecked_param_type = "\"settings\" | \"pluginData\" | \"apiConfig\" | \"mcpConfig\"")]
    document: &str,
    source: &str,
) -> Result<JsValue, JsValue> {
    let document = crate::SettingsDocument::from_name(document)
        .ok_or_else(|| js_error(format!("unknown settings document {document:?}")))?;
    let found: Vec<serde_json::Value> = crate::unknown_fields(&from_js(&value), document)
        .into_iter()
        .map(|u| {
            let message = u.describe(source);
            let mut v = serde_json::json!({"at": u.at, "field": u.field, "message": message});
            if let Some(s) = u.suggestion {
                v["suggestion"] = serde_json::Value::String(s);
            }
            v
        })
        .collect();
    Ok(to_js(&found))
}

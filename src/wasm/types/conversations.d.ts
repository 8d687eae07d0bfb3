// Conversations as the core keeps them (seed 001): status, schedule, state, history lines, pages,
// usage.
// One of the declaration files of the values crossing the JS boundary (src/wasm/types/), each
// emitted into pkg/smarthole_agent.d.ts by src/wasm/mod.rs, where they see each other; checked
// against the core's JSON by scripts/contract.mjs.

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
  /** The agent its runs use, when the job names one (else the built-in agent). */
  agent?: "builtin" | "claude-code" | "codex" | "gemini" | "opencode" | "acp";
  currentRun?: string;
}

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
  /** An ACP session's cumulative cost (USD) as the usage ledger last counted it. */
  agentSessionCost?: number;
  /** The vault path of its Markdown copy, once one is written. */
  markdownCopy?: string;
  /** The conversation whose scheduled job this one took over. */
  continues?: string;
  /** The conversation its scheduled job went on in. */
  continuedIn?: string;
}

// What the chat panel needs from the outside: the core's runtime (ChatBackend) and the place it
// is mounted in (PanelOptions). CoreRuntime is the backend in the plugin and on a page.
import type {
  ApprovalDecision,
  ApprovalRequest,
  Conversation,
  ConversationPage,
  HistoryLine,
  ProcessResult,
  RoutedMessage,
  ScheduleChange,
  TurnReview,
  UndoReport,
  Usage,
} from "smarthole-core";
import type { RuntimeEvent } from "../core/runtime.ts";
import type { AttachBackend } from "./attachments.ts";

/** What the panel needs from the core's runtime. */
export interface ChatBackend extends AttachBackend {
  readonly ready: boolean;
  subscribe(listener: (event: RuntimeEvent) => void): () => void;
  /** A typed message with the id and time the core gives it. */
  newMessage(text: string): RoutedMessage;
  process(message: RoutedMessage): Promise<ProcessResult>;
  cancel(): boolean;
  conversations(): Promise<Conversation[]>;
  conversationLines(id: string): Promise<HistoryLine[]>;
  /** A page of a conversation, newest first (ui/history-pages.ts); without it the whole history is read. */
  conversationPage?(id: string, before: number | undefined, limit: number): Promise<ConversationPage>;
  /** What a conversation has cost so far: every turn's usage, added up by the core. */
  conversationUsage(id: string): Promise<Usage>;
  currentConversation(): Promise<Conversation | null>;
  newConversation(): Promise<void>;
  openConversation(id: string): Promise<Conversation>;
  recordSystemLine(text: string): Promise<string>;
  pendingApprovals(): ApprovalRequest[];
  decideApproval(id: string, decision: ApprovalDecision, hunks?: number[]): Promise<ApprovalRequest>;
  turnReview(messageId: string): Promise<TurnReview>;
  undoTurn(messageId: string): Promise<UndoReport>;
  scheduled(): Promise<Conversation[]>;
  changeSchedule(id: string, change: ScheduleChange): Promise<Conversation>;
}

export interface PanelOptions {
  /** Renders Markdown into an element (MarkdownRenderer in Obsidian). */
  renderMarkdown(markdown: string, el: HTMLElement): Promise<void>;
  copy(text: string): Promise<void>;
  /** Shows a note in the editor, at a line (1-based) when given. */
  openNote(path: string, line?: number): void;
  /** The note open in the editor, followed as it changes (none on a page). */
  activeNote?: { current(): string | null; subscribe(listener: (path: string | null) => void): () => void };
}

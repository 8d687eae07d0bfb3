// The chat panel: a DOM component the Obsidian ItemView mounts, and a plain page too (browser
// tests, the demo's browser mode), with Obsidian's DOM helpers (page/dom-helpers.ts there). It
// renders what the core reports and sends what the user types; every decision is the core's.
// Its parts: answer-bubble.ts, cards.ts (questions, approvals, changes), diff-view.ts, review.ts
// (cards at their tool calls, Undo), lists.ts (History, Tasks), replay.ts and history-pages.ts
// (the history drawn a page at a time, in a window), chat-text.ts (the words).
import type {} from "obsidian";
import type {
  ApprovalRequest,
  Attachment,
  Conversation,
  MessageSource,
  ProcessResult,
  QuestionType,
  RoutedMessage,
  ScheduleChange,
  Usage,
} from "smarthole-core";
import type { RuntimeEvent } from "../core/runtime.ts";
import type { ChatBackend, PanelOptions } from "./panel-api.ts";
import { addErrorBox, AnswerBubble } from "./answer-bubble.ts";
import { addQuestionCard, ApprovalCards } from "./cards.ts";
import { ConversationLists, scheduleControls } from "./lists.ts";
import { searchIndexLine, sourceLabel } from "./chat-text.ts";
import { replayLines } from "./replay.ts";
import { HistoryPages } from "./history-pages.ts";
import { drawReview, onReviewEvent, placeApproval } from "./review.ts";
import { ConversationUsage } from "./usage.ts";
import { AttachmentTray, drawSentChips, MentionPicker, takeFiles } from "./attachments.ts";

export type { ChatBackend, PanelOptions };

/** The hidden line written when the chat opens (UC014). */
export const CHAT_OPENED = "Chat opened";
const PREPARING = "Preparing…";
/** Turns answered in the view since its history was drawn before it starts again from the newest
 * page: a conversation kept going all day (the hub, a job) does not grow the page without end. */
const LIVE_TURNS = 60;
/** How near the end (px) counts as at the end: streamed text follows, and the view may start again. */
const AT_END = 80;

export class ChatPanel {
  readonly root: HTMLElement;
  private readonly title: HTMLElement;
  private readonly lists: ConversationLists;
  private readonly scheduleBar: HTMLElement;
  /** The search index's progress while it builds (empty once it is ready). */
  private readonly indexLine: HTMLElement;
  private readonly messages: HTMLElement;
  /** The shown conversation's history, a page at a time. */
  private readonly pages: HistoryPages;
  private readonly input: HTMLTextAreaElement;
  private readonly button: HTMLButtonElement;
  private readonly usage: ConversationUsage;
  /** The chips of the message being written, and the `@` picker. */
  private readonly tray: AttachmentTray;
  readonly picker: MentionPicker;
  /** Why the message could not go (an attachment that cannot be sent); the text stays. */
  private readonly problem: HTMLElement;
  private sending = false;
  private unfollowNote: (() => void) | null = null;
  private readonly answers = new Map<string, AnswerBubble>();
  private readonly users = new Map<string, HTMLElement>();
  private readonly sent = new Map<string, RoutedMessage>();
  private readonly approvals: ApprovalCards;
  /** Messages received and not answered yet (from any source). */
  private readonly inflight = new Set<string>();
  private current: string | null = null;
  /** The conversation on screen (null for a new chat not started yet). */
  private shownId: string | null = null;
  /** Scheduled runs of other conversations: their events are not drawn here. */
  private unsubscribe: (() => void) | null = null;
  private opened = false;
  /** Turns answered below the history drawn (see LIVE_TURNS). */
  private liveTurns = 0;

  constructor(
    parent: HTMLElement,
    private readonly backend: ChatBackend,
    private readonly options: PanelOptions,
  ) {
    this.root = parent.createDiv({ cls: "smarthole-chat" });
    const header = this.root.createDiv({ cls: "smarthole-header" });
    this.title = header.createSpan({ cls: "smarthole-title", text: "New conversation" });
    const historyButton = header.createEl("button", { text: "History", cls: "smarthole-history-button" });
    const tasksButton = header.createEl("button", { text: "Tasks", cls: "smarthole-tasks-button" });
    const newButton = header.createEl("button", { text: "New chat", cls: "smarthole-new-button" });
    this.lists = new ConversationLists(this.root, backend, {
      open: (id) => this.open(id),
      changeSchedule: (conversation, what) => this.changeSchedule(conversation, what),
    });
    this.scheduleBar = this.root.createDiv({ cls: "smarthole-schedule smarthole-hidden" });
    this.indexLine = this.root.createDiv({ cls: "smarthole-hint smarthole-index" });
    const frame = this.root.createDiv({ cls: "smarthole-messages-frame" });
    this.messages = frame.createDiv({ cls: "smarthole-messages", attr: { "aria-live": "polite" } });
    // Away from the end (reading back, or while an answer streams below), a button goes back to it.
    const jump = frame.createEl("button", { cls: "smarthole-jump smarthole-hidden", text: "Jump to newest", attr: { "aria-label": "Go to the newest message" } });
    jump.addEventListener("click", () => this.scrollToEnd());
    this.messages.addEventListener("scroll", () => jump.toggleClass("smarthole-hidden", this.atEnd()), { passive: true });
    const review = async (id: string, b: AnswerBubble) => drawReview(this.approvals, b, id, await this.backend.turnReview(id), this.backend);
    const usage = (bubble: AnswerBubble, used: Usage | undefined) => this.usage.line(bubble, used);
    const target = (into: HTMLElement) => ({
      addUser: (id: string, text: string, source: MessageSource, attachments: Attachment[]) => this.addUser(id, text, source, undefined, into, attachments),
      answer: (id: string) => this.answer(id, into), notice: (text: string) => this.notice(text, into), usage, review,
    });
    // A page no longer drawn: its bubbles are let go of (a live one is kept).
    const forget = (ids: Set<string>) => ids.forEach((id) => this.inflight.has(id) || (this.users.delete(id), this.answers.delete(id)));
    this.pages = new HistoryPages(this.messages, backend, (lines, into) => replayLines(lines, target(into), options), forget);
    this.usage = new ConversationUsage(this.root);
    const compose = this.root.createDiv({ cls: "smarthole-compose" });
    this.tray = new AttachmentTray(compose, backend);
    this.problem = compose.createDiv({ cls: "smarthole-compose-problem" });
    const composer = compose.createDiv({ cls: "smarthole-composer" });
    this.input = composer.createEl("textarea", { cls: "smarthole-input", attr: { placeholder: "Message the agent… (@ to attach a note)", rows: "3" } });
    // Before the Enter handler below: while the picker is open, Enter chooses.
    this.picker = new MentionPicker(compose, this.input, backend, (path) => this.tray.addVault(path));
    takeFiles(this.tray, this.root, this.input, composer);
    this.button = composer.createEl("button", { cls: "smarthole-send mod-cta", text: PREPARING });
    this.button.disabled = true;
    this.approvals = new ApprovalCards({
      decideApproval: (id, decision, hunks) => backend.decideApproval(id, decision, hunks),
      openNote: (path, line) => options.openNote(path, line),
    });

    historyButton.addEventListener("click", () => void this.lists.toggleHistory());
    tasksButton.addEventListener("click", () => void this.lists.toggleTasks());
    newButton.addEventListener("click", () => void this.newChat());
    this.button.addEventListener("click", () => (this.busy ? this.stop() : void this.sendTyped()));
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.sendTyped();
      }
    });
    const note = options.activeNote;
    if (note) {
      this.tray.setCurrentNote(note.current());
      this.unfollowNote = note.subscribe((path) => this.tray.setCurrentNote(path));
    }
  }

  /** Puts text in the input (the selection command's quote), ready to be completed and sent. */
  quote(text: string): void {
    const before = this.input.value.trimEnd();
    this.input.value = before ? `${before}\n\n${text}` : text;
    this.input.focus();
    this.input.setSelectionRange(this.input.value.length, this.input.value.length);
  }

  /** Starts listening; shows the current conversation once the core is ready. */
  mount(): void {
    this.unsubscribe = this.backend.subscribe((event) => this.onEvent(event));
    if (this.backend.ready) void this.onReady();
  }

  destroy(): void {
    this.unsubscribe?.();
    this.unfollowNote?.();
    this.root.remove();
  }

  private get busy(): boolean { return this.inflight.size > 0; }

  private updateButton(): void {
    const ready = this.backend.ready;
    this.button.setText(!ready ? PREPARING : this.busy ? "Stop" : "Send");
    this.button.disabled = !ready;
    this.button.toggleClass("smarthole-stop", ready && this.busy);
  }

  private async onReady(): Promise<void> {
    this.updateButton();
    if (!this.opened) {
      this.opened = true;
      await this.backend.recordSystemLine(CHAT_OPENED);
    }
    await this.showCurrent();
  }

  /** Stop: the core aborts; the view is idle now, not when the core confirms. */
  private stop(): void {
    const id = this.current;
    this.backend.cancel();
    if (id) {
      this.answers.get(id)?.stopped();
      this.inflight.delete(id);
    }
    this.current = null;
    this.updateButton();
  }

  /**
   * Sends what was typed with its chips. With none it goes at once; with some, once each has
   * settled (they were read when added: a pasted 5 MB image is already copied) — and not at all
   * when one cannot go, the text and chips staying for the user to fix.
   */
  private async sendTyped(): Promise<void> {
    const text = this.input.value.trim();
    if (!text || !this.backend.ready || this.sending) return;
    let attachments: Attachment[] = [];
    if (this.tray.count > 0) {
      this.sending = true;
      const collected = await this.tray.collect().finally(() => (this.sending = false));
      if (typeof collected === "string") {
        this.problem.setText(collected);
        return;
      }
      attachments = collected;
      this.tray.sent();
    }
    this.problem.setText("");
    this.input.value = "";
    void this.send(text, attachments);
  }

  /** Sends a typed message (or a card's answer). */
  async send(text: string, attachments: Attachment[] = []): Promise<void> {
    const typed = this.backend.newMessage(text);
    const message = attachments.length > 0 ? { ...typed, attachments } : typed;
    this.sent.set(message.id, message);
    this.addUser(message.id, text, "direct", undefined, this.messages, attachments);
    this.inflight.add(message.id);
    this.updateButton();
    await this.backend.process(message);
  }

  private scrollToEnd(): void {
    this.messages.scrollTop = this.messages.scrollHeight;
  }

  /** Whether the view is at the newest message. An answer being written follows the end only
   *  then: a user who scrolls up to read while it streams stays where they are. Read before the
   *  change, since the change itself moves the end. */
  private atEnd(): boolean {
    const box = this.messages;
    return box.scrollHeight - box.scrollTop - box.clientHeight <= AT_END;
  }

  private addUser(id: string, text: string, source: MessageSource | undefined, metadata?: Record<string, unknown>, parent = this.messages, attachments: Attachment[] = []): void {
    if (this.users.has(id)) return;
    const bubble = parent.createDiv({ cls: "smarthole-msg smarthole-msg-user", attr: { "data-message-id": id } });
    const label = sourceLabel(source, metadata);
    if (label) bubble.createDiv({ cls: "smarthole-label", text: label });
    drawSentChips(bubble, attachments);
    bubble.createDiv({ cls: "smarthole-body", text });
    this.users.set(id, bubble);
    if (parent === this.messages) this.scrollToEnd();
  }

  private answer(id: string, parent = this.messages): AnswerBubble {
    const bubble = this.answers.get(id) ?? new AnswerBubble(parent, id);
    this.answers.set(id, bubble);
    return bubble;
  }

  /**
   * Whether an event is about a message of a scheduled run of a conversation not on screen: every
   * event about a message names the conversation when the core knows it is not the current one.
   * (`scheduled_run` and `retrospection` name a conversation too, and are shown wherever it is.)
   */
  private isElsewhere(event: RuntimeEvent): boolean {
    if (event.type === "scheduled_run" || event.type === "retrospection" || !("conversationId" in event)) return false;
    return event.conversationId !== undefined && event.conversationId !== this.shownId;
  }

  private onEvent(event: RuntimeEvent): void {
    if (this.isElsewhere(event)) return;
    if (onReviewEvent(event, this.approvals, (id, make) => (make ? this.answer(id) : this.answers.get(id)), this.backend)) return;
    switch (event.type) {
      case "ready":
        void this.onReady();
        return;
      case "core_restarted":
        this.inflight.clear();
        this.current = null;
        this.notice("The agent restarted after an internal error; nothing was lost.");
        this.updateButton();
        return;
      case "message_received":
        this.addUser(event.message.id, event.message.text, event.message.source, event.message.metadata, this.messages, event.message.attachments);
        this.inflight.add(event.message.id);
        this.updateButton();
        return;
      case "stage":
        if (event.stage === "model_request") {
          this.current = event.messageId;
          this.answer(event.messageId).commit();
        }
        return;
      case "text_delta": {
        const follow = this.atEnd();
        this.answer(event.messageId).append(event.text);
        if (follow) this.scrollToEnd();
        return;
      }
      case "retrying":
        this.answer(event.messageId).retrying(`${event.error} Retrying in ${event.delaySeconds} s…`);
        return;
      case "waiting":
        this.answer(event.messageId).setStatus(event.text);
        return;
      case "tool_started":
        this.answer(event.messageId).toolStarted(event.toolUseId, event.name, event.input);
        return;
      case "tool_finished":
        this.answer(event.messageId).toolFinished(event.toolUseId, event.isError, event.output);
        if (event.isError) this.approvals.failed(event.toolUseId, event.output);
        return;
      case "agent_message":
        if (event.isQuestion) this.addQuestion(event.content, event.questionType ?? "input", event.options ?? [], event.messageId);
        else this.addAgentUpdate(event.content);
        return;
      case "response":
        void this.onResult(event.result);
        return;
      case "conversation_updated":
        void this.onConversationUpdated(event.conversation);
        return;
      case "notice":
        this.notice(event.text);
        return;
      case "search_index":
        this.indexLine.setText(event.state === "building" ? searchIndexLine(event) : "");
        return;
      case "approval_requested":
        this.addApproval(event.request);
        return;
      case "scheduled_run":
        // A run in the conversation on screen was drawn as it happened.
        if (event.conversationId !== this.shownId) this.notice(event.text);
        return;
      default:
        return;
    }
  }

  private async onResult(result: ProcessResult): Promise<void> {
    const id = result.messageId;
    this.inflight.delete(id);
    if (this.current === id) this.current = null;
    this.updateButton();
    const bubble = this.answers.get(id);
    if (result.cancelled) {
      if (bubble && !bubble.finished) bubble.stopped();
      return;
    }
    if (!result.success) {
      if (bubble && !bubble.text && !bubble.finished) bubble.el.remove();
      this.answers.delete(id);
      this.addError(result);
      return;
    }
    const follow = this.atEnd();
    await this.answer(id).finish(result.response ?? "", result.notice, this.options);
    this.usage.line(this.answer(id), result.usage);
    void this.usage.refresh(async () => {
      const current = await this.backend.currentConversation();
      return current ? this.backend.conversationUsage(current.id) : null;
    });
    if (follow) this.scrollToEnd();
    await this.trimLive();
  }

  /** After LIVE_TURNS answers, with nothing running and the user at the end, the view is drawn
   * again from the newest page: the turns above it are in the history, a scroll away. */
  private async trimLive(): Promise<void> {
    if (++this.liveTurns < LIVE_TURNS || this.inflight.size > 0 || !this.atEnd()) return;
    await this.showCurrent();
  }

  private addError(result: ProcessResult): void {
    const original = this.sent.get(result.messageId);
    const retry = original && (() => {
      this.inflight.add(original.id);
      this.updateButton();
      void this.backend.process(original);
    });
    addErrorBox(this.messages, result, retry);
    this.scrollToEnd();
  }

  private addAgentUpdate(text: string): void {
    void this.options.renderMarkdown(text, this.messages.createDiv({ cls: "smarthole-msg smarthole-msg-agent" }).createDiv({ cls: "smarthole-body" }));
    this.scrollToEnd();
  }

  /** A question as a card (under the answer that asked it): buttons for a confirmation or a
   *  choice; a free answer goes in the box. */
  private addQuestion(prompt: string, kind: QuestionType, options: string[], messageId?: string): void {
    const bubble = messageId ? this.answers.get(messageId) : undefined;
    addQuestionCard(bubble?.cardSlot() ?? this.messages, prompt, kind, options, {
      renderMarkdown: (markdown, el) => this.options.renderMarkdown(markdown, el),
      answer: (option) => void this.send(option),
      focusInput: () => this.input.focus(),
    });
    this.scrollToEnd();
  }

  /** A card for an action that waits on the user, under the tool call that asked. */
  private addApproval(request: ApprovalRequest): void {
    if (placeApproval(this.approvals, this.answers.get(request.messageId ?? ""), this.messages, request)) this.scrollToEnd();
  }

  private notice(text: string, parent = this.messages): void {
    parent.createDiv({ cls: "smarthole-notice", text });
    if (parent === this.messages) this.scrollToEnd();
  }

  private async onConversationUpdated(conversation: Conversation): Promise<void> {
    const current = await this.backend.currentConversation();
    if (current?.id === conversation.id) this.title.setText(conversation.title ?? "New conversation");
    if (conversation.id === this.shownId || (this.shownId === null && current?.id === conversation.id)) {
      this.shownId = conversation.id;
      this.renderScheduleBar(conversation);
    }
    await this.lists.refresh();
  }

  /** The schedule of the conversation on screen, with its buttons. */
  private renderScheduleBar(conversation: Conversation | null): void {
    this.scheduleBar.empty();
    const schedule = conversation?.schedule;
    this.scheduleBar.toggleClass("smarthole-hidden", !schedule);
    if (conversation && schedule) scheduleControls(this.scheduleBar, schedule, (what) => this.changeSchedule(conversation, what));
  }

  /** A schedule's button was pressed (in the bar or the Tasks list). */
  private async changeSchedule(conversation: Conversation, what: ScheduleChange): Promise<void> {
    try {
      const updated = await this.backend.changeSchedule(conversation.id, what);
      if (updated.id === this.shownId) this.renderScheduleBar(updated);
      await this.lists.refreshTasks();
    } catch (error) {
      this.notice(error instanceof Error ? error.message : String(error));
    }
  }

  /** Shows the current conversation from its history. */
  private async showCurrent(): Promise<void> {
    const current = await this.backend.currentConversation();
    this.title.setText(current?.title ?? "New conversation");
    this.shownId = current?.id ?? null;
    this.renderScheduleBar(current);
    if (!current) {
      this.showPendingApprovals();
      return;
    }
    this.clearMessages();
    await this.pages.first(current.id);
    const question = current.state.pendingQuestion;
    if (current.status === "waiting_input" && question) this.addQuestion(question.prompt, question.type, question.options ?? []);
    this.showPendingApprovals();
    this.scrollToEnd();
    // Last: the total reads the whole history (megabytes for a long one), and the newest answer
    // must not wait for it.
    await this.usage.refresh(() => this.backend.conversationUsage(current.id));
  }

  private async newChat(): Promise<void> {
    await this.backend.newConversation();
    this.clearMessages();
    this.title.setText("New conversation");
    this.shownId = null;
    this.renderScheduleBar(null);
    this.showPendingApprovals();
  }

  private clearMessages(): void {
    this.liveTurns = 0;
    this.pages.reset();
    this.messages.empty();
    this.usage.reset();
    this.answers.clear();
    this.users.clear();
    this.approvals.clear();
  }

  /** Requests still waiting stay answerable whatever the panel shows. */
  private showPendingApprovals(): void {
    for (const request of this.backend.pendingApprovals()) this.addApproval(request);
  }

  private async open(id: string): Promise<void> {
    await this.backend.openConversation(id);
    this.lists.hideHistory();
    await this.showCurrent();
  }
}

// The chat panel: a DOM component that the Obsidian ItemView mounts, and that a plain page can
// mount too (browser tests, the demo's browser mode). It renders what the core reports and sends
// what the user types; every decision (order, retries, questions, history) is the core's.
// It builds DOM with Obsidian's helpers (createDiv, createEl…); a plain page installs them first
// (page/dom-helpers.ts).
import type {} from "obsidian";
import type {
  ApprovalDecision,
  ApprovalRequest,
  Conversation,
  HistoryLine,
  MessageSource,
  ProcessResult,
  QuestionType,
  RoutedMessage,
  Schedule,
  ScheduleChange,
} from "smarthole-core";
import type { RuntimeEvent } from "../core/runtime.ts";

/** What the panel needs from the core's runtime. */
export interface ChatBackend {
  readonly ready: boolean;
  subscribe(listener: (event: RuntimeEvent) => void): () => void;
  process(message: RoutedMessage): Promise<ProcessResult>;
  cancel(): boolean;
  conversations(): Promise<Conversation[]>;
  conversationLines(id: string): Promise<HistoryLine[]>;
  currentConversation(): Promise<Conversation | null>;
  newConversation(): Promise<void>;
  openConversation(id: string): Promise<Conversation>;
  recordSystemLine(text: string): Promise<string>;
  pendingApprovals(): ApprovalRequest[];
  decideApproval(id: string, decision: ApprovalDecision): Promise<ApprovalRequest>;
  scheduled(): Promise<Conversation[]>;
  changeSchedule(id: string, change: ScheduleChange): Promise<Conversation>;
}

export interface PanelOptions {
  /** Renders Markdown into an element (MarkdownRenderer in Obsidian). */
  renderMarkdown(markdown: string, el: HTMLElement): Promise<void>;
  copy(text: string): Promise<void>;
}

/** The hidden line written when the chat opens (UC014). */
export const CHAT_OPENED = "Chat opened";
const PREPARING = "Preparing…";
/** Longest details shown on an approval card (a note's new content can be long). */
const APPROVAL_DETAILS_CHARS = 4000;

/** How a settled approval reads on its card. */
export function approvalOutcome(request: ApprovalRequest): string {
  switch (request.status) {
    case "approved":
      if (request.scope !== "conversation") return "Approved";
      return request.origin === "api" ? "Approved for this session" : "Approved for this conversation";
    case "rejected":
      return request.note && request.note !== "rejected by the user" ? `Not done: ${request.note}` : "Rejected";
    case "expired":
      return request.note === "timeout" ? "No answer in time: not done" : `Not done: ${request.note ?? "expired"}`;
    default:
      return "";
  }
}

/** A schedule in words: when it runs, and how it stands. */
export function scheduleText(schedule: Schedule): string {
  const when =
    schedule.type === "cron"
      ? `Runs on cron “${schedule.expression ?? ""}” (${schedule.timeZone ?? "UTC"})`
      : schedule.type === "scheduled"
        ? `Runs once at ${new Date(schedule.runAt ?? "").toLocaleString()}`
        : "Runs once in the background";
  if (schedule.paused) return `${when} · paused${schedule.lastError ? ` after ${schedule.failures} failures: ${schedule.lastError}` : ""}`;
  if (schedule.currentRun) return `${when} · running now`;
  return schedule.nextRunAt ? `${when} · next run ${new Date(schedule.nextRunAt).toLocaleString()}` : when;
}

/** Where a message came from, as the label under it says. */
export function sourceLabel(source: MessageSource | undefined, metadata?: Record<string, unknown>): string {
  switch (source) {
    case "websocket":
      if (metadata?.inputMethod === "voice") return "Voice via SmartHole";
      if (metadata?.inputMethod === "text") return "Text via SmartHole";
      return "Via SmartHole";
    case "worker":
      return "Scheduled run";
    case "api":
      return "From an agent";
    case "system":
      return "SmartHole";
    default:
      return "Typed here";
  }
}

/** One answer being built: text streamed by each model call, tool chips, status. */
class AnswerBubble {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private readonly tools: HTMLElement;
  private readonly status: HTMLElement;
  private committed = "";
  private live = "";
  private readonly liveNode: Text;
  private readonly chips = new Map<string, HTMLElement>();
  finished = false;

  constructor(parent: HTMLElement, messageId: string) {
    this.el = parent.createDiv({ cls: "smarthole-msg smarthole-msg-assistant", attr: { "data-message-id": messageId } });
    this.tools = this.el.createDiv({ cls: "smarthole-tools" });
    this.body = this.el.createDiv({ cls: "smarthole-body smarthole-streaming" });
    this.liveNode = this.body.ownerDocument.createTextNode("");
    this.body.appendChild(this.liveNode);
    this.status = this.el.createDiv({ cls: "smarthole-status" });
  }

  /** Everything streamed so far. */
  get text(): string {
    return this.committed + this.live;
  }

  append(text: string): void {
    this.live += text;
    this.liveNode.appendData(text);
    this.status.setText("");
  }

  /** A new model call starts: what the previous one streamed stays. */
  commit(): void {
    if (this.live) this.committed += (this.committed ? "\n\n" : "") + this.live;
    this.live = "";
    this.liveNode.data = this.committed;
  }

  /** The call failed and is retried: its partial text is void. */
  retrying(text: string): void {
    this.live = "";
    this.liveNode.data = this.committed;
    this.status.setText(text);
  }

  toolStarted(id: string, name: string, input: unknown): void {
    const chip = this.tools.createEl("details", { cls: "smarthole-tool" });
    chip.createEl("summary", { text: name, cls: "smarthole-tool-name" });
    chip.createEl("pre", { text: JSON.stringify(input, null, 2), cls: "smarthole-tool-input" });
    chip.createDiv({ cls: "smarthole-tool-result", text: "Running…" });
    this.chips.set(id, chip);
  }

  toolFinished(id: string, isError: boolean, output: string): void {
    const chip = this.chips.get(id);
    if (!chip) return;
    chip.toggleClass("smarthole-tool-error", isError);
    chip.querySelector(".smarthole-tool-result")?.setText(output);
  }

  setStatus(text: string): void {
    this.status.setText(text);
  }

  /** The partial answer stays, marked as stopped. */
  stopped(): void {
    this.finished = true;
    this.el.addClass("smarthole-stopped");
    this.body.removeClass("smarthole-streaming");
    this.status.setText("Stopped");
  }

  /** The final text, rendered as Markdown, with a copy button. */
  async finish(markdown: string, notice: string | undefined, options: PanelOptions): Promise<void> {
    this.finished = true;
    this.body.removeClass("smarthole-streaming");
    this.status.setText(notice ?? "");
    if (!markdown.trim()) {
      if (!this.text.trim() && this.chips.size === 0) this.el.addClass("smarthole-empty");
      return;
    }
    this.body.empty();
    await options.renderMarkdown(markdown, this.body);
    const copy = this.el.createEl("button", { cls: "smarthole-copy", text: "Copy", attr: { "aria-label": "Copy the answer" } });
    copy.addEventListener("click", () => void options.copy(markdown));
  }
}

export class ChatPanel {
  readonly root: HTMLElement;
  private readonly title: HTMLElement;
  private readonly historyList: HTMLElement;
  private readonly tasksList: HTMLElement;
  private readonly scheduleBar: HTMLElement;
  private readonly messages: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly button: HTMLButtonElement;
  private readonly answers = new Map<string, AnswerBubble>();
  private readonly users = new Map<string, HTMLElement>();
  private readonly sent = new Map<string, RoutedMessage>();
  private readonly approvals = new Map<string, HTMLElement>();
  /** Messages received and not answered yet (from any source). */
  private readonly inflight = new Set<string>();
  private current: string | null = null;
  /** The conversation on screen (null for a new chat not started yet). */
  private shownId: string | null = null;
  /** Scheduled runs of other conversations: their events are not drawn here. */
  private readonly elsewhere = new Set<string>();
  private unsubscribe: (() => void) | null = null;
  private opened = false;

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
    this.historyList = this.root.createDiv({ cls: "smarthole-history smarthole-hidden" });
    this.tasksList = this.root.createDiv({ cls: "smarthole-history smarthole-tasks smarthole-hidden" });
    this.scheduleBar = this.root.createDiv({ cls: "smarthole-schedule smarthole-hidden" });
    this.messages = this.root.createDiv({ cls: "smarthole-messages", attr: { "aria-live": "polite" } });
    const composer = this.root.createDiv({ cls: "smarthole-composer" });
    this.input = composer.createEl("textarea", { cls: "smarthole-input", attr: { placeholder: "Message the agent…", rows: "3" } });
    this.button = composer.createEl("button", { cls: "smarthole-send mod-cta", text: PREPARING });
    this.button.disabled = true;

    historyButton.addEventListener("click", () => void this.toggleHistory());
    tasksButton.addEventListener("click", () => void this.toggleTasks());
    newButton.addEventListener("click", () => void this.newChat());
    this.button.addEventListener("click", () => this.onButton());
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.sendTyped();
      }
    });
  }

  /** Starts listening; shows the current conversation once the core is ready. */
  mount(): void {
    this.unsubscribe = this.backend.subscribe((event) => this.onEvent(event));
    if (this.backend.ready) void this.onReady();
  }

  destroy(): void {
    this.unsubscribe?.();
    this.root.remove();
  }

  private get busy(): boolean {
    return this.inflight.size > 0;
  }

  private updateButton(): void {
    if (!this.backend.ready) {
      this.button.setText(PREPARING);
      this.button.disabled = true;
      this.button.removeClass("smarthole-stop");
      return;
    }
    this.button.disabled = false;
    this.button.setText(this.busy ? "Stop" : "Send");
    this.button.toggleClass("smarthole-stop", this.busy);
  }

  private async onReady(): Promise<void> {
    this.updateButton();
    if (!this.opened) {
      this.opened = true;
      await this.backend.recordSystemLine(CHAT_OPENED);
    }
    await this.showCurrent();
  }

  private onButton(): void {
    if (this.busy) this.stop();
    else this.sendTyped();
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

  private sendTyped(): void {
    const text = this.input.value.trim();
    if (!text || !this.backend.ready) return;
    this.input.value = "";
    void this.send(text);
  }

  /** Sends a typed message (or a card's answer). */
  async send(text: string): Promise<void> {
    const message: RoutedMessage = { id: `direct-${crypto.randomUUID()}`, text, timestamp: new Date().toISOString(), source: "direct" };
    this.sent.set(message.id, message);
    this.addUser(message.id, text, "direct");
    this.inflight.add(message.id);
    this.updateButton();
    await this.backend.process(message);
  }

  private scrollToEnd(): void {
    this.messages.scrollTop = this.messages.scrollHeight;
  }

  private addUser(id: string, text: string, source: MessageSource | undefined, metadata?: Record<string, unknown>): void {
    if (this.users.has(id)) return;
    const bubble = this.messages.createDiv({ cls: "smarthole-msg smarthole-msg-user", attr: { "data-message-id": id } });
    bubble.createDiv({ cls: "smarthole-label", text: sourceLabel(source, metadata) });
    bubble.createDiv({ cls: "smarthole-body", text });
    this.users.set(id, bubble);
    this.scrollToEnd();
  }

  private answer(id: string): AnswerBubble {
    let bubble = this.answers.get(id);
    if (!bubble) {
      bubble = new AnswerBubble(this.messages, id);
      this.answers.set(id, bubble);
    }
    return bubble;
  }

  /** Whether an event belongs to a scheduled run of a conversation not on screen. */
  private isElsewhere(event: RuntimeEvent): boolean {
    if (event.type === "message_received") {
      const conversation = event.message.metadata?.conversationId;
      if (event.message.source === "worker" && typeof conversation === "string" && conversation !== this.shownId) {
        this.elsewhere.add(event.message.id);
      }
      return this.elsewhere.has(event.message.id);
    }
    if (event.type === "response") {
      const was = this.elsewhere.delete(event.result.messageId);
      return was;
    }
    return "messageId" in event && event.type !== "scheduled_run" && this.elsewhere.has(event.messageId);
  }

  private onEvent(event: RuntimeEvent): void {
    if (this.isElsewhere(event)) return;
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
        this.addUser(event.message.id, event.message.text, event.message.source, event.message.metadata);
        this.inflight.add(event.message.id);
        this.updateButton();
        return;
      case "stage":
        if (event.stage === "model_request") {
          this.current = event.messageId;
          this.answer(event.messageId).commit();
        }
        return;
      case "text_delta":
        this.answer(event.messageId).append(event.text);
        this.scrollToEnd();
        return;
      case "retrying":
        this.answer(event.messageId).retrying(`${event.error} Retrying in ${Math.ceil(event.delayMs / 1000)} s…`);
        return;
      case "tool_started":
        this.answer(event.messageId).toolStarted(event.toolUseId, event.name, event.input);
        return;
      case "tool_finished":
        this.answer(event.messageId).toolFinished(event.toolUseId, event.isError, event.output);
        return;
      case "agent_message":
        if (event.isQuestion) this.addQuestion(event.content, event.questionType ?? "input", event.options ?? []);
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
      case "approval_requested":
        this.addApproval(event.request);
        return;
      case "approval_resolved":
        this.settleApproval(event.request);
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
    await this.answer(id).finish(result.response ?? "", result.notice, this.options);
    this.scrollToEnd();
  }

  private addError(result: ProcessResult): void {
    const box = this.messages.createDiv({ cls: "smarthole-msg smarthole-msg-error", attr: { "data-message-id": result.messageId } });
    box.createDiv({ cls: "smarthole-body", text: result.error ?? "Something went wrong." });
    const original = this.sent.get(result.messageId);
    if (original && result.errorCode !== "invalid_message" && result.errorCode !== "core_restarted") {
      const retry = box.createEl("button", { text: "Retry", cls: "smarthole-retry" });
      retry.addEventListener("click", () => {
        box.remove();
        this.inflight.add(original.id);
        this.updateButton();
        void this.backend.process(original);
      });
    }
    this.scrollToEnd();
  }

  private addAgentUpdate(text: string): void {
    const bubble = this.messages.createDiv({ cls: "smarthole-msg smarthole-msg-agent" });
    const body = bubble.createDiv({ cls: "smarthole-body" });
    void this.options.renderMarkdown(text, body);
    this.scrollToEnd();
  }

  /** A question as a card: buttons for a confirmation or a choice; a free answer goes in the box. */
  private addQuestion(prompt: string, kind: QuestionType, options: string[]): void {
    const card = this.messages.createDiv({ cls: `smarthole-card smarthole-question smarthole-question-${kind}` });
    const body = card.createDiv({ cls: "smarthole-body" });
    void this.options.renderMarkdown(prompt, body);
    if (options.length > 0) {
      const buttons = card.createDiv({ cls: "smarthole-options" });
      for (const option of options) {
        const button = buttons.createEl("button", { text: option, cls: "smarthole-option" });
        button.addEventListener("click", () => {
          card.addClass("smarthole-answered");
          for (const b of Array.from(buttons.querySelectorAll("button"))) b.disabled = true;
          void this.send(option);
        });
      }
    } else {
      card.createDiv({ cls: "smarthole-hint", text: "Reply in the box below." });
      this.input.focus();
    }
    this.scrollToEnd();
  }

  /** A card for an action that waits on the user: what will happen, and three answers. */
  private addApproval(request: ApprovalRequest): void {
    if (this.approvals.has(request.id)) return;
    const card = this.messages.createDiv({ cls: "smarthole-card smarthole-approval", attr: { "data-approval-id": request.id } });
    const external = request.origin === "api";
    card.createDiv({ cls: "smarthole-approval-title", text: external ? "An agent on this computer asks for approval" : "Approval needed" });
    card.createDiv({ cls: "smarthole-body", text: request.summary });
    if (request.details !== undefined) {
      const details = card.createEl("details", { cls: "smarthole-approval-details" });
      details.createEl("summary", { text: "Details" });
      const text = JSON.stringify(request.details, null, 2);
      details.createEl("pre", { text: text.length > APPROVAL_DETAILS_CHARS ? `${text.slice(0, APPROVAL_DETAILS_CHARS)}…` : text });
    }
    const expires = new Date(request.expiresMs).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    card.createDiv({ cls: "smarthole-hint", text: `Not done unless you approve by ${expires}.` });
    const buttons = card.createDiv({ cls: "smarthole-options" });
    const choices: [string, ApprovalDecision, string][] = [
      ["Approve once", "approve_once", "mod-cta"],
      [external ? "Approve for this session" : "Approve for this conversation", "approve_conversation", ""],
      ["Reject", "reject", "mod-warning"],
    ];
    for (const [label, decision, cls] of choices) {
      const button = buttons.createEl("button", { text: label, cls: `smarthole-approval-${decision} ${cls}`.trim() });
      button.addEventListener("click", () => void this.decide(request.id, decision));
    }
    card.createDiv({ cls: "smarthole-approval-outcome" });
    this.approvals.set(request.id, card);
    this.scrollToEnd();
  }

  private async decide(id: string, decision: ApprovalDecision): Promise<void> {
    const card = this.approvals.get(id);
    for (const b of Array.from(card?.querySelectorAll("button") ?? [])) b.disabled = true;
    try {
      this.settleApproval(await this.backend.decideApproval(id, decision));
    } catch (error) {
      card?.querySelector(".smarthole-approval-outcome")?.setText(error instanceof Error ? error.message : String(error));
    }
  }

  private settleApproval(request: ApprovalRequest): void {
    const card = this.approvals.get(request.id);
    if (!card) return;
    card.addClass("smarthole-answered", `smarthole-approval-${request.status}`);
    for (const b of Array.from(card.querySelectorAll("button"))) b.disabled = true;
    card.querySelector(".smarthole-approval-outcome")?.setText(approvalOutcome(request));
  }

  private notice(text: string): void {
    this.messages.createDiv({ cls: "smarthole-notice", text });
    this.scrollToEnd();
  }

  private async onConversationUpdated(conversation: Conversation): Promise<void> {
    const current = await this.backend.currentConversation();
    if (current?.id === conversation.id) this.title.setText(conversation.title ?? "New conversation");
    if (conversation.id === this.shownId || (this.shownId === null && current?.id === conversation.id)) {
      this.shownId = conversation.id;
      this.renderScheduleBar(conversation);
    }
    if (!this.historyList.hasClass("smarthole-hidden")) await this.renderHistory();
    if (!this.tasksList.hasClass("smarthole-hidden")) await this.renderTasks();
  }

  /** The schedule of the conversation on screen, with its buttons. */
  private renderScheduleBar(conversation: Conversation | null): void {
    this.scheduleBar.empty();
    const schedule = conversation?.schedule;
    this.scheduleBar.toggleClass("smarthole-hidden", !schedule);
    if (conversation && schedule) this.scheduleControls(this.scheduleBar, conversation, schedule);
  }

  /** A schedule's description and its Pause / Resume / Delete buttons. */
  private scheduleControls(el: HTMLElement, conversation: Conversation, schedule: Schedule): void {
    el.createDiv({ cls: "smarthole-schedule-text", text: `${scheduleText(schedule)} — ${schedule.task}` });
    const buttons = el.createDiv({ cls: "smarthole-options" });
    const change = (what: ScheduleChange) => async () => {
      try {
        const updated = await this.backend.changeSchedule(conversation.id, what);
        if (updated.id === this.shownId) this.renderScheduleBar(updated);
        if (!this.tasksList.hasClass("smarthole-hidden")) await this.renderTasks();
      } catch (error) {
        this.notice(error instanceof Error ? error.message : String(error));
      }
    };
    const toggle = schedule.paused ? "resume" : "pause";
    buttons.createEl("button", { text: schedule.paused ? "Resume" : "Pause", cls: `smarthole-schedule-${toggle}` }).addEventListener("click", () => void change(toggle)());
    buttons.createEl("button", { text: "Delete", cls: "smarthole-schedule-delete mod-warning" }).addEventListener("click", () => void change("delete")());
  }

  private async toggleTasks(): Promise<void> {
    const hidden = this.tasksList.hasClass("smarthole-hidden");
    this.tasksList.toggleClass("smarthole-hidden", !hidden);
    if (hidden) await this.renderTasks();
  }

  /** Every conversation with background work. */
  private async renderTasks(): Promise<void> {
    const scheduled = await this.backend.scheduled();
    this.tasksList.empty();
    if (scheduled.length === 0) this.tasksList.createDiv({ cls: "smarthole-notice", text: "No scheduled tasks." });
    for (const c of scheduled) {
      if (!c.schedule) continue;
      const item = this.tasksList.createDiv({ cls: "smarthole-task" });
      const title = item.createEl("button", { cls: "smarthole-history-item", text: c.title ?? "Untitled" });
      title.addEventListener("click", () => {
        this.tasksList.addClass("smarthole-hidden");
        void this.open(c.id);
      });
      this.scheduleControls(item, c, c.schedule);
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
    const lines = await this.backend.conversationLines(current.id);
    this.clearMessages();
    await this.renderLines(lines);
    const question = current.state.pendingQuestion;
    if (current.status === "waiting_input" && question) this.addQuestion(question.prompt, question.type, question.options ?? []);
    this.showPendingApprovals();
    this.scrollToEnd();
  }

  private async renderLines(lines: HistoryLine[]): Promise<void> {
    const results = new Map<string, { content: string; isError: boolean }>();
    for (const line of lines) {
      for (const block of line.content) {
        if (block.type === "tool_result") results.set(block.tool_use_id, { content: block.content, isError: block.is_error === true });
      }
    }
    for (const line of lines) {
      if (!line.visible) continue;
      if (line.role === "user") {
        const text = line.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
        if (text) this.addUser(line.messageId, text, line.source);
      } else if (line.role === "assistant") {
        const bubble = this.answer(line.messageId);
        bubble.commit();
        for (const block of line.content) {
          if (block.type === "text") bubble.append(block.text);
          if (block.type === "tool_use") {
            bubble.toolStarted(block.id, block.name, block.input);
            const result = results.get(block.id);
            if (result) bubble.toolFinished(block.id, result.isError, result.content);
          }
        }
        if (line.turn) {
          bubble.commit();
          await bubble.finish(bubble.text, undefined, this.options);
        }
      }
    }
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
    this.messages.empty();
    this.answers.clear();
    this.users.clear();
    this.approvals.clear();
  }

  /** Requests still waiting stay answerable whatever the panel shows. */
  private showPendingApprovals(): void {
    for (const request of this.backend.pendingApprovals()) this.addApproval(request);
  }

  private async toggleHistory(): Promise<void> {
    const hidden = this.historyList.hasClass("smarthole-hidden");
    this.historyList.toggleClass("smarthole-hidden", !hidden);
    if (hidden) await this.renderHistory();
  }

  private async renderHistory(): Promise<void> {
    const all = (await this.backend.conversations()).slice().sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    this.historyList.empty();
    if (all.length === 0) this.historyList.createDiv({ cls: "smarthole-notice", text: "No conversations yet." });
    for (const c of all) {
      const item = this.historyList.createEl("button", { cls: "smarthole-history-item" });
      item.createSpan({ cls: "smarthole-history-title", text: c.title ?? "Untitled" });
      item.createSpan({ cls: "smarthole-history-meta", text: `${c.createdAt.slice(0, 10)} · ${c.status.replace("_", " ")}` });
      item.addEventListener("click", () => void this.open(c.id));
    }
  }

  private async open(id: string): Promise<void> {
    await this.backend.openConversation(id);
    this.historyList.addClass("smarthole-hidden");
    await this.showCurrent();
  }
}

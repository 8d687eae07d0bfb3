// The conversation in the chat panel, as the core reports it: the user's messages (typed here, or
// arrived from the hub, a scheduled run, the agent API) and the answers — text streamed, tool
// calls, retries, questions and approval cards under the answer that asked, results, errors with
// Retry, notices; whether it is busy is the core's list of messages in flight, read when drawn.
// Results arrive one way, as `response` events, whoever sent the message. The history above is
// drawn a page at a time (history-pages.ts); every decision is the core's.
import type {} from "obsidian";
import type { ApprovalRequest, Attachment, Conversation, InFlightMessage, MessageSource, ProcessResult, QuestionType, RoutedMessage, Usage } from "smarthole-core";
import type { RuntimeEvent } from "../core/runtime-event.ts";
import type { CoreCalls, PanelOptions } from "./panel-api.ts";
import { addErrorBox, AnswerBubble } from "./answer-bubble.ts";
import { addQuestionCard, ApprovalCards } from "./cards.ts";
import { sourceLabel } from "./chat-text.ts";
import { replayLines } from "./replay.ts";
import { HistoryPages } from "./history-pages.ts";
import { drawReview, onReviewEvent, placeApproval } from "./review.ts";
import { ConversationUsage } from "./usage.ts";
import { drawSentChips } from "./attachments.ts";

/** Turns answered in the view since its history was drawn before it starts again from the newest
 * page: a conversation kept going all day (the hub, a job) does not grow the page without end. */
const LIVE_TURNS = 60;
/** How near the end (px) counts as at the end: streamed text follows, and the view may start again. */
const AT_END = 80;

/** The core's calls the transcript makes. */
type TranscriptCalls = Pick<
  CoreCalls,
  "process" | "conversationPage" | "currentConversation" | "conversationUsage" | "pendingApprovals" | "decideApproval" | "turnReview" | "undoTurn" | "toolWords" | "messagesInFlight"
>;

/** What the transcript asks of the panel around it. */
export interface TranscriptHooks {
  /** What is in flight changed: the Send / Stop button follows. */
  changed(): void;
  /** Whether a message of this conversation (none named: the current one) is on another
   *  conversation than the one shown. */
  elsewhere(conversationId: string | undefined): boolean;
  /** A question card's answer, sent as a typed message. */
  answer(text: string): void;
  focusInput(): void;
  /** Draws the conversation again from its newest page. */
  redraw(): Promise<void>;
}

export class Transcript {
  readonly messages: HTMLElement;
  /** The shown conversation's history, a page at a time. */
  private readonly pages: HistoryPages;
  private readonly usage: ConversationUsage;
  private readonly approvals: ApprovalCards;
  private readonly answers = new Map<string, AnswerBubble>();
  private readonly users = new Map<string, HTMLElement>();
  /** Messages typed here, for Retry. */
  private readonly sent = new Map<string, RoutedMessage>();
  /** Turns answered below the history drawn (see LIVE_TURNS). */
  private liveTurns = 0;

  constructor(
    root: HTMLElement,
    private readonly core: TranscriptCalls,
    private readonly options: PanelOptions,
    private readonly hooks: TranscriptHooks,
  ) {
    const frame = root.createDiv({ cls: "smarthole-messages-frame" });
    this.messages = frame.createDiv({ cls: "smarthole-messages", attr: { "aria-live": "polite" } });
    // Away from the end (reading back, or while an answer streams below), a button goes back to it.
    const jump = frame.createEl("button", { cls: "smarthole-jump smarthole-hidden", text: "Jump to newest", attr: { "aria-label": "Go to the newest message" } });
    jump.addEventListener("click", () => this.scrollToEnd());
    this.messages.addEventListener("scroll", () => jump.toggleClass("smarthole-hidden", this.atEnd()), { passive: true });
    const review = async (id: string, b: AnswerBubble) => drawReview(this.approvals, b, id, await this.core.turnReview(id), this.core);
    const usage = (bubble: AnswerBubble, used: Usage | undefined) => this.usage.line(bubble, used);
    const target = (into: HTMLElement) => ({
      addUser: (id: string, text: string, source: MessageSource, attachments: Attachment[]) => this.addUser(id, text, source, undefined, into, attachments),
      answer: (id: string) => this.answer(id, into), notice: (text: string) => this.notice(text, into), usage, review,
      toolWords: (name: string, input: unknown) => this.core.toolWords(name, input),
    });
    // A page no longer drawn: its bubbles are let go of (a live one is kept).
    const forget = (ids: Set<string>) => {
      const live = new Set(this.inFlight().map((m) => m.messageId));
      ids.forEach((id) => live.has(id) || (this.users.delete(id), this.answers.delete(id)));
    };
    this.pages = new HistoryPages(this.messages, core, (lines, into) => replayLines(lines, target(into), options), forget);
    this.usage = new ConversationUsage(root);
    this.approvals = new ApprovalCards({
      decideApproval: (id, decision, hunks) => core.decideApproval(id, decision, hunks),
      openNote: (path, line) => options.openNote(path, line),
    });
  }

  /** Whether a message of the conversation shown is in flight, as the core lists them (read
   *  once the core is ready). */
  get busy(): boolean {
    return this.inFlight().some((m) => !this.hooks.elsewhere(m.conversationId));
  }

  /** The core's messages in flight; none while it is being rebuilt after a trap (the new one
   *  lists those it finishes from the inbox). */
  private inFlight(): InFlightMessage[] {
    try {
      return this.core.messagesInFlight();
    } catch {
      return [];
    }
  }

  /** A message typed here and handed to the core: drawn at once (the core lists it in flight). */
  typed(message: RoutedMessage): void {
    this.sent.set(message.id, message);
    this.addUser(message.id, message.text, "direct", undefined, this.messages, message.attachments ?? []);
  }

  /** Stop was pressed, and the core answered at once with the message it stopped: its answer
   *  shows as stopped now, not when the cancelled result arrives. */
  stopped(messageId: string | undefined): void {
    const bubble = messageId ? this.answers.get(messageId) : undefined;
    if (bubble && !bubble.finished) bubble.stopped();
  }

  /** Shows a conversation from its history (the newest page), its open question and the
   *  approvals still waiting; with none, only those approvals. */
  async show(conversation: Conversation | null): Promise<void> {
    if (!conversation) {
      this.showPendingApprovals();
      return;
    }
    this.clear();
    await this.pages.first(conversation.id);
    const question = conversation.state.pendingQuestion;
    if (conversation.status === "waiting_input" && question) this.addQuestion(question.prompt, question.type, question.options ?? []);
    this.showPendingApprovals();
    this.scrollToEnd();
    // Last: the total reads the whole history (megabytes for a long one), and the newest answer
    // must not wait for it.
    await this.usage.refresh(() => this.core.conversationUsage(conversation.id));
  }

  clear(): void {
    this.liveTurns = 0;
    this.pages.reset();
    this.messages.empty();
    this.usage.reset();
    this.answers.clear();
    this.users.clear();
    this.approvals.clear();
  }

  /** Requests still waiting stay answerable whatever the panel shows. */
  showPendingApprovals(): void {
    for (const request of this.core.pendingApprovals()) this.addApproval(request);
  }

  /** Draws an event about the conversation (others are not the transcript's). */
  onEvent(event: RuntimeEvent): void {
    if (onReviewEvent(event, this.approvals, (id, make) => (make ? this.answer(id) : this.answers.get(id)), this.core)) return;
    switch (event.type) {
      case "core_restarted":
        this.notice("The agent restarted after an internal error; nothing was lost.");
        this.hooks.changed();
        return;
      case "message_received":
        this.addUser(event.message.id, event.message.text, event.message.source, event.message.metadata, this.messages, event.message.attachments);
        return;
      case "stage":
        if (event.stage === "model_request") this.answer(event.messageId).commit();
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
        this.answer(event.messageId).toolStarted(event.toolUseId, event.name, event.words, event.input);
        return;
      case "plan":
        this.answer(event.messageId).plan(event.entries);
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
      case "notice":
        this.notice(event.text);
        return;
      case "approval_requested":
        this.addApproval(event.request);
        return;
    }
  }

  notice(text: string, parent = this.messages): void {
    parent.createDiv({ cls: "smarthole-notice", text });
    if (parent === this.messages) this.scrollToEnd();
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

  private async onResult(result: ProcessResult): Promise<void> {
    const id = result.messageId;
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
    if (this.startsAgain(follow)) {
      await this.hooks.redraw();
      return;
    }
    await this.answer(id).finish(result.response ?? "", result.notice, this.options);
    this.usage.line(this.answer(id), result.usage);
    void this.usage.refresh(async () => {
      const current = await this.core.currentConversation();
      return current ? this.core.conversationUsage(current.id) : null;
    });
    if (follow) this.scrollToEnd();
  }

  /** After LIVE_TURNS answers, with nothing running and the user at the end, the view is drawn
   * again from the newest page (this answer in it): the turns above are in the history, a scroll
   * away. Asked as the result arrives, when the core has just listed nothing in flight: a message
   * sent the moment this one's result is known (a job's next run, a program on the agent API) is
   * in flight by the time the answer is drawn, and the view never started again (9,000 elements
   * after 1,000 such messages on the emulated phone, each slower than the last). */
  private startsAgain(atEnd: boolean): boolean {
    return ++this.liveTurns >= LIVE_TURNS && atEnd && !this.busy;
  }

  private addError(result: ProcessResult): void {
    const original = this.sent.get(result.messageId);
    const retry = original && (() => {
      // The same message again; its result arrives as a `response` event, as the first did.
      void this.core.process(original);
      this.hooks.changed();
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
      answer: (option) => this.hooks.answer(option),
      focusInput: () => this.hooks.focusInput(),
    });
    this.scrollToEnd();
  }

  /** A card for an action that waits on the user, under the tool call that asked. */
  private addApproval(request: ApprovalRequest): void {
    if (placeApproval(this.approvals, this.answers.get(request.messageId ?? ""), this.messages, request)) this.scrollToEnd();
  }
}

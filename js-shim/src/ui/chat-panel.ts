// The chat panel: a DOM component the Obsidian ItemView mounts, and a plain page too (browser
// tests, the demo's browser mode), with Obsidian's DOM helpers (page/dom-helpers.ts there). It is
// the frame and the user's actions — the header (title, History, Tasks, New chat), the schedule
// bar, the search index's line, the input with its chips and Send / Stop — around the
// conversation drawn by transcript.ts. It sends what the user types and draws what the core
// reports — Send or Stop from the core's messages in flight, Stop's idle from the core's
// synchronous answer; the "Chat opened" line is the core's to write when told the view opened —;
// every decision is the core's, reached through the runtime's processor.
// Its parts: transcript.ts (the conversation, in flight and from history: answer-bubble.ts,
// cards.ts, diff-view.ts, review.ts, replay.ts, history-pages.ts), lists.ts (History, Tasks),
// attachments.ts (chips, the @ picker), chat-text.ts (the words).
import type {} from "obsidian";
import type { Attachment, Conversation, ScheduleChange } from "smarthole-core";
import type { RuntimeEvent } from "../core/runtime-event.ts";
import type { ChatBackend, PanelOptions } from "./panel-api.ts";
import { ConversationLists, scheduleControls } from "./lists.ts";
import { meaningIndexLine, meaningIndexShown, searchIndexLine } from "./chat-text.ts";
import { Transcript } from "./transcript.ts";
import { AttachmentTray, MentionPicker, takeFiles } from "./attachments.ts";

export type { ChatBackend, PanelOptions };

const PREPARING = "Preparing…";

export class ChatPanel {
  readonly root: HTMLElement;
  private readonly title: HTMLElement;
  private readonly lists: ConversationLists;
  private readonly scheduleBar: HTMLElement;
  /** The search index's progress while it builds (empty once it is ready). */
  private readonly indexLine: HTMLElement;
  private readonly meaningLine: HTMLElement;
  private readonly transcript: Transcript;
  private readonly input: HTMLTextAreaElement;
  private readonly button: HTMLButtonElement;
  /** The chips of the message being written, and the `@` picker. */
  private readonly tray: AttachmentTray;
  readonly picker: MentionPicker;
  /** Why the message could not go (an attachment that cannot be sent); the text stays. */
  private readonly problem: HTMLElement;
  private sending = false;
  private unfollowNote: (() => void) | null = null;
  /** The conversation on screen (null for a new chat not started yet). */
  private shownId: string | null = null;
  private unsubscribe: (() => void) | null = null;
  private opened = false;
  /** The core's calls (the runtime's processor). */
  private readonly core: ChatBackend["processor"];

  constructor(
    parent: HTMLElement,
    private readonly backend: ChatBackend,
    options: PanelOptions,
  ) {
    const core = (this.core = backend.processor);
    this.root = parent.createDiv({ cls: "smarthole-chat" });
    const header = this.root.createDiv({ cls: "smarthole-header" });
    this.title = header.createSpan({ cls: "smarthole-title", text: "New conversation" });
    const historyButton = header.createEl("button", { text: "History", cls: "smarthole-history-button" });
    const tasksButton = header.createEl("button", { text: "Tasks", cls: "smarthole-tasks-button" });
    const newButton = header.createEl("button", { text: "New chat", cls: "smarthole-new-button" });
    this.lists = new ConversationLists(this.root, core, {
      open: (id) => this.open(id),
      changeSchedule: (conversation, what) => this.changeSchedule(conversation, what),
      agentName: (id) => this.agentName(id),
    });
    this.scheduleBar = this.root.createDiv({ cls: "smarthole-schedule smarthole-hidden" });
    this.indexLine = this.root.createDiv({ cls: "smarthole-hint smarthole-index" });
    this.meaningLine = this.root.createDiv({ cls: "smarthole-hint smarthole-meaning-index" });
    this.transcript = new Transcript(this.root, core, options, {
      changed: () => this.updateButton(),
      elsewhere: (conversationId) => conversationId !== undefined && conversationId !== this.shownId,
      answer: (text) => this.send(text),
      focusInput: () => this.input.focus(),
      redraw: () => this.showCurrent(),
    });
    const compose = this.root.createDiv({ cls: "smarthole-compose" });
    this.tray = new AttachmentTray(compose, core);
    this.problem = compose.createDiv({ cls: "smarthole-compose-problem" });
    const composer = compose.createDiv({ cls: "smarthole-composer" });
    this.input = composer.createEl("textarea", { cls: "smarthole-input", attr: { placeholder: "Message the agent… (@ to attach a note)", rows: "3" } });
    // Before the Enter handler below: while the picker is open, Enter chooses.
    this.picker = new MentionPicker(compose, this.input, core, (path) => this.tray.addVault(path));
    takeFiles(this.tray, this.root, this.input, composer);
    this.button = composer.createEl("button", { cls: "smarthole-send mod-cta", text: PREPARING });
    this.button.disabled = true;

    historyButton.addEventListener("click", () => void this.lists.toggleHistory());
    tasksButton.addEventListener("click", () => void this.lists.toggleTasks());
    newButton.addEventListener("click", () => void this.newChat());
    this.button.addEventListener("click", () => (this.backend.ready && this.transcript.busy ? this.stop() : void this.sendTyped()));
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

  private updateButton(): void {
    const ready = this.backend.ready;
    const busy = ready && this.transcript.busy;
    this.button.setText(!ready ? PREPARING : busy ? "Stop" : "Send");
    this.button.disabled = !ready;
    this.button.toggleClass("smarthole-stop", ready && busy);
  }

  private async onReady(): Promise<void> {
    this.updateButton();
    // The view opened (once per view, not per core rebuild): the core records what follows.
    if (!this.opened) {
      this.opened = true;
      await this.core.chatOpened();
    }
    await this.showCurrent();
  }

  /** Stop: the core aborts and answers at once with what it stopped and what is left in flight,
   *  so the view is idle in this frame, not when the cancelled result arrives. */
  private stop(): void {
    this.transcript.stopped(this.core.stop().stopped);
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
    this.send(text, attachments);
  }

  /** Sends a typed message (or a card's answer): one call, the message made and queued by the
   *  core; its result arrives as a `response` event. */
  send(text: string, attachments: Attachment[] = []): void {
    this.transcript.typed(this.core.send(text, attachments.length > 0 ? attachments : undefined));
    this.updateButton();
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
    switch (event.type) {
      case "ready":
        void this.onReady();
        return;
      case "in_flight":
        this.updateButton();
        return;
      case "conversation_updated":
        void this.onConversationUpdated(event.conversation);
        return;
      case "search_index":
        this.indexLine.setText(event.state === "building" ? searchIndexLine(event) : "");
        return;
      case "meaning_index":
        this.meaningLine.setText(meaningIndexShown(event.state) ? meaningIndexLine(event) : "");
        return;
      case "scheduled_run":
        // A run in the conversation on screen was drawn as it happened.
        if (event.conversationId !== this.shownId) this.transcript.notice(event.text);
        return;
      default:
        this.transcript.onEvent(event);
    }
  }

  private async onConversationUpdated(conversation: Conversation): Promise<void> {
    const current = await this.core.currentConversation();
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
    if (conversation && schedule) scheduleControls(this.scheduleBar, schedule, (what) => this.changeSchedule(conversation, what), (id) => this.agentName(id));
  }

  /** The core's name for an agent ("Claude Code"), for a job that names one. */
  private agentName(id: string): string | undefined {
    return this.backend.agents.find((a) => a.id === id)?.name;
  }

  /** A schedule's button was pressed (in the bar or the Tasks list). */
  private async changeSchedule(conversation: Conversation, what: ScheduleChange): Promise<void> {
    try {
      const updated = await this.core.changeSchedule(conversation.id, what);
      if (updated.id === this.shownId) this.renderScheduleBar(updated);
      await this.lists.refreshTasks();
    } catch (error) {
      this.transcript.notice(error instanceof Error ? error.message : String(error));
    }
  }

  /** Shows the current conversation from its history. */
  private async showCurrent(): Promise<void> {
    const current = await this.core.currentConversation();
    this.title.setText(current?.title ?? "New conversation");
    this.shownId = current?.id ?? null;
    this.renderScheduleBar(current);
    await this.transcript.show(current);
  }

  private async newChat(): Promise<void> {
    await this.core.newConversation();
    this.transcript.clear();
    this.title.setText("New conversation");
    this.shownId = null;
    this.renderScheduleBar(null);
    this.transcript.showPendingApprovals();
  }

  private async open(id: string): Promise<void> {
    await this.core.openConversation(id);
    this.lists.hideHistory();
    await this.showCurrent();
  }
}

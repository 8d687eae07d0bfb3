// The chat panel's lists: past conversations (History) and conversations with background work
// (Tasks), and a schedule's description with its Pause / Resume / Delete buttons (in the Tasks
// list and in the bar above the conversation on screen).
import type {} from "obsidian";
import type { Conversation, Schedule, ScheduleChange } from "smarthole-core";
import type { CoreCalls } from "./panel-api.ts";
import { scheduleText } from "./chat-text.ts";

/** A schedule's description and its Pause / Resume / Delete buttons; `change` does the change.
 *  A job on the user's own agent names it (`agentName`: the core's name for an agent's id). */
export function scheduleControls(el: HTMLElement, schedule: Schedule, change: (what: ScheduleChange) => Promise<void>, agentName: (id: string) => string | undefined): void {
  el.createDiv({ cls: "smarthole-schedule-text", text: `${scheduleText(schedule)} — ${schedule.task}` });
  if (schedule.agent && schedule.agent !== "builtin") {
    const text = `Runs on ${agentName(schedule.agent) ?? schedule.agent}. Providers may count unattended runs on a subscription differently.`;
    el.createDiv({ cls: "smarthole-schedule-agent smarthole-hint", text });
  }
  const buttons = el.createDiv({ cls: "smarthole-options" });
  const toggle = schedule.paused ? "resume" : "pause";
  buttons.createEl("button", { text: schedule.paused ? "Resume" : "Pause", cls: `smarthole-schedule-${toggle}` }).addEventListener("click", () => void change(toggle));
  buttons.createEl("button", { text: "Delete", cls: "smarthole-schedule-delete mod-warning" }).addEventListener("click", () => void change("delete"));
}

export interface ListHooks {
  /** Opens a conversation from either list. */
  open(id: string): Promise<void>;
  /** A schedule's button was pressed. */
  changeSchedule(conversation: Conversation, what: ScheduleChange): Promise<void>;
  /** The name of an agent by its id (a job's). */
  agentName(id: string): string | undefined;
}

/** The History and Tasks lists, each hidden until its header button shows it. */
export class ConversationLists {
  private readonly history: HTMLElement;
  private readonly tasks: HTMLElement;

  constructor(
    root: HTMLElement,
    private readonly backend: Pick<CoreCalls, "conversations" | "scheduled">,
    private readonly hooks: ListHooks,
  ) {
    this.history = root.createDiv({ cls: "smarthole-history smarthole-hidden" });
    this.tasks = root.createDiv({ cls: "smarthole-history smarthole-tasks smarthole-hidden" });
  }

  async toggleHistory(): Promise<void> {
    const hidden = this.history.hasClass("smarthole-hidden");
    this.history.toggleClass("smarthole-hidden", !hidden);
    if (hidden) await this.renderHistory();
  }

  async toggleTasks(): Promise<void> {
    const hidden = this.tasks.hasClass("smarthole-hidden");
    this.tasks.toggleClass("smarthole-hidden", !hidden);
    if (hidden) await this.renderTasks();
  }

  hideHistory(): void {
    this.history.addClass("smarthole-hidden");
  }

  /** Conversations changed: the lists on screen are drawn again. */
  async refresh(): Promise<void> {
    if (!this.history.hasClass("smarthole-hidden")) await this.renderHistory();
    await this.refreshTasks();
  }

  /** A schedule changed: the Tasks list, if on screen, is drawn again. */
  async refreshTasks(): Promise<void> {
    if (!this.tasks.hasClass("smarthole-hidden")) await this.renderTasks();
  }

  private async renderHistory(): Promise<void> {
    const all = (await this.backend.conversations()).slice().sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    this.history.empty();
    if (all.length === 0) this.history.createDiv({ cls: "smarthole-notice", text: "No conversations yet." });
    for (const c of all) {
      const item = this.history.createEl("button", { cls: "smarthole-history-item" });
      item.createSpan({ cls: "smarthole-history-title", text: c.title ?? "Untitled" });
      item.createSpan({ cls: "smarthole-history-meta", text: `${c.createdAt.slice(0, 10)} · ${c.status.replace("_", " ")}` });
      item.addEventListener("click", () => void this.hooks.open(c.id));
    }
  }

  /** Every conversation with background work. */
  private async renderTasks(): Promise<void> {
    const scheduled = await this.backend.scheduled();
    this.tasks.empty();
    if (scheduled.length === 0) this.tasks.createDiv({ cls: "smarthole-notice", text: "No scheduled tasks." });
    for (const c of scheduled) {
      if (!c.schedule) continue;
      const item = this.tasks.createDiv({ cls: "smarthole-task" });
      const title = item.createEl("button", { cls: "smarthole-history-item", text: c.title ?? "Untitled" });
      title.addEventListener("click", () => {
        this.tasks.addClass("smarthole-hidden");
        void this.hooks.open(c.id);
      });
      scheduleControls(item, c.schedule, (what) => this.hooks.changeSchedule(c, what), (id) => this.hooks.agentName(id));
    }
  }
}

// What the plugin shows of the core outside the chat: the hub's status and the search and meaning
// indexes' progress in the status bar; with the chat closed, a notice that stays for each approval asked
// (a click opens the chat; it closes once answered) and one for each scheduled run.
import { Notice, type Plugin } from "obsidian";
import type { HubStatus } from "smarthole-core";
import type { CoreRuntime } from "../core/runtime.ts";
import { meaningIndexLine, meaningIndexShown, searchIndexLine } from "../ui/chat-text.ts";

const STATUS_TEXT: Record<HubStatus, string> = {
  disabled: "SmartHole: off",
  disconnected: "SmartHole: disconnected",
  connecting: "SmartHole: connecting…",
  connected: "SmartHole: connected",
  error: "SmartHole: error",
};

export interface StatusHooks {
  /** Whether the chat is open somewhere in the workspace. */
  chatOpen(): boolean;
  openChat(): void;
}

/** Shows the core's status for the plugin's life (registered on the plugin). */
export function showCoreStatus(plugin: Plugin, runtime: Pick<CoreRuntime, "subscribe">, hooks: StatusHooks): void {
  const status = plugin.addStatusBarItem();
  status.setText(STATUS_TEXT.disconnected);
  let index: HTMLElement | null = null;
  let meaning: HTMLElement | null = null;
  /** Notices for approvals asked while the chat was closed, by request id. */
  const approvals = new Map<string, Notice>();
  plugin.register(
    runtime.subscribe((event) => {
      if (event.type === "search_index") {
        // One line while the index builds; nothing once it is ready.
        index ??= plugin.addStatusBarItem();
        index.setText(event.state === "building" ? searchIndexLine(event) : "");
      } else if (event.type === "meaning_index") {
        // One line while it embeds, or stopped short (paused, full) with what to do.
        meaning ??= plugin.addStatusBarItem();
        meaning.setText(meaningIndexShown(event.state) ? meaningIndexLine(event) : "");
        if (event.detail) meaning.setAttribute("aria-label", event.detail);
      } else if (event.type === "hub_status") {
        status.setText(STATUS_TEXT[event.status]);
        status.setAttribute("aria-label", event.detail ?? STATUS_TEXT[event.status]);
      } else if (event.type === "approval_requested" && !hooks.chatOpen()) {
        // The card is in the chat; a notice that stays points to it.
        const notice = new Notice(`SmartHole Agent needs your approval: ${event.request.summary}. Click to open the chat.`, 0);
        notice.messageEl.addEventListener("click", () => hooks.openChat());
        approvals.set(event.request.id, notice);
      } else if (event.type === "scheduled_run" && !hooks.chatOpen()) {
        // With the chat open, the run shows there.
        new Notice(event.text, event.ok ? 8_000 : 0);
      } else if (event.type === "approval_resolved") {
        approvals.get(event.request.id)?.hide();
        approvals.delete(event.request.id);
      }
    }),
  );
}

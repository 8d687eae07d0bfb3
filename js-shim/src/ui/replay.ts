// A conversation's history drawn again in the chat panel (when it is shown or reopened): the
// visible user lines as user bubbles, the assistant's lines as answers with their tool chips and
// results, the cards of each turn that called tools at those calls, finished as Markdown where the
// turn ended.
import type { Attachment, HistoryLine, MessageSource, Usage } from "smarthole-core";
import type { AnswerBubble } from "./answer-bubble.ts";
import type { PanelOptions } from "./panel-api.ts";

/** Where the lines go: the panel's user bubbles and answers. */
export interface ReplayTarget {
  addUser(id: string, text: string, source: MessageSource, attachments: Attachment[]): void;
  answer(id: string): AnswerBubble;
  /** A line of the panel's own (the core's visible `system` lines: "1 line could not be read"). */
  notice?(text: string): void;
  /** A turn that called tools: its approval and change cards, drawn at its tool calls. */
  review?(messageId: string, bubble: AnswerBubble): Promise<void>;
  /** A tool call in the core's words (its `toolWords`). */
  toolWords(name: string, input: unknown): string;
  /** A recorded turn's usage (ui/usage.ts). */
  usage?(bubble: AnswerBubble, usage: Usage | undefined): void;
}

export async function replayLines(lines: HistoryLine[], target: ReplayTarget, options: PanelOptions): Promise<void> {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const line of lines) {
    for (const block of line.content) {
      if (block.type === "tool_result") results.set(block.tool_use_id, { content: block.content, isError: block.is_error === true });
    }
  }
  /** Turns that called tools. */
  const called = new Set<string>();
  for (const line of lines) {
    if (!line.visible) continue;
    if (line.role === "system") {
      const text = line.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
      if (text) target.notice?.(text);
    } else if (line.role === "user") {
      const text = line.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
      const attachments = line.content.flatMap((b) => (b.type === "attachment" ? [b.attachment] : []));
      if (text) target.addUser(line.messageId, text, line.source, attachments);
    } else if (line.role === "assistant") {
      const bubble = target.answer(line.messageId);
      bubble.commit();
      for (const block of line.content) {
        if (block.type === "text") bubble.append(block.text);
        if (block.type === "tool_use") {
          bubble.toolStarted(block.id, block.name, target.toolWords(block.name, block.input), block.input);
          called.add(line.messageId);
          const result = results.get(block.id);
          if (result) bubble.toolFinished(block.id, result.isError, result.content);
        }
      }
      if (line.turn) {
        bubble.commit();
        if (called.has(line.messageId)) await target.review?.(line.messageId, bubble);
        await bubble.finish(bubble.text, undefined, options);
        target.usage?.(bubble, line.turn.usage);
      }
    }
  }
}

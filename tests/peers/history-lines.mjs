// A history file's lines as whole lines, as the core reads them (src/conversation/stored_line.rs,
// src/llm/stored_usage.rs): the stored form leaves out the message id its line id holds,
// `visible` when true, the source and time a later line of a turn shares with the first, an empty
// tool list, zero counts and the context one call filled (its input and output); one text block
// is stored as its text. For the tests and benchmarks that read `.smarthole/conversations/*.jsonl`.

const COUNTS = ["inputTokens", "cacheCreationInputTokens", "cacheReadInputTokens", "outputTokens"];

/** A turn's usage as the core reads it. */
function wholeUsage(usage) {
  for (const count of COUNTS) usage[count] ??= 0;
  if (usage.contextTokens === undefined && usage.modelCalls === 1) {
    usage.contextTokens = COUNTS.reduce((sum, count) => sum + usage[count], 0);
  }
  return usage;
}

/** The lines of a history file's text, whole. */
export function historyFileLines(text) {
  const lines = [];
  let first = null;
  for (const raw of text.split("\n").filter(Boolean)) {
    const line = JSON.parse(raw);
    line.messageId ??= line.id.slice(0, line.id.lastIndexOf("#"));
    if (first?.messageId !== line.messageId || lines.at(-1)?.turn) first = null;
    line.source ??= first?.source ?? "direct";
    line.ts ??= first?.ts;
    line.visible ??= true;
    if (typeof line.content === "string") line.content = [{ type: "text", text: line.content }];
    if (line.turn) {
      line.turn.toolsUsed ??= [];
      if (line.turn.usage) wholeUsage(line.turn.usage);
    }
    first ??= line;
    lines.push(line);
  }
  return lines;
}

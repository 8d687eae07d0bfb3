// The user's own agent (ACP) in the chat view, in headless Chromium with the real core: the page
// cannot start programs, so its AgentSystem is a scripted ACP agent (js-shim/src/page/
// page-agent.ts) that the core's real ACP client and the real AgentProcesses drive. A turn of
// "Claude Code" streams into the answer: "Starting Claude Code…" while it starts, its plan as a
// checklist updated in place, its tool calls as chips, its edit as a diff card under the chip
// (the agent's own tools on; the whole change or none of it), its text as tokens, and the cost
// line from its usage_update.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openChat, type } from "./harness.mjs";

const NOTE = "Notes/Plan.md";
const OLD = ["# Plan", "alpha is first", ...Array.from({ length: 12 }, (_, i) => `step ${i + 1}`), "omega is last", ""].join("\n");
const NEW = OLD.replace("alpha is first", "ALPHA is first").replace("omega is last", "omega comes last");
const plan = (...statuses) =>
  ["Read the plan", "Tidy it", "Say what changed"].map((content, i) => ({ content, priority: "medium", status: statuses[i] }));
const edit = { toolCallId: "e1", title: "Edit Notes/Plan.md", kind: "edit", status: "pending", rawInput: { file_path: `/page-vault/${NOTE}` },
  content: [{ type: "diff", path: `/page-vault/${NOTE}`, oldText: OLD, newText: NEW }] };
const SCRIPT = {
  turns: [
    {
      steps: [
        { plan: plan("in_progress", "pending", "pending") },
        { toolCall: { toolCallId: "r1", title: "Read Notes/Plan.md", kind: "read", status: "pending", rawInput: { file_path: `/page-vault/${NOTE}` } } },
        { toolCallUpdate: { toolCallId: "r1", status: "completed", content: [{ type: "content", content: { type: "text", text: OLD } }] } },
        { plan: plan("completed", "in_progress", "pending") },
        { toolCall: edit },
        { permission: { toolCall: edit } },
        { toolCallUpdate: { toolCallId: "e1", status: "completed" } },
        { plan: plan("completed", "completed", "completed") },
        { chunk: "I tidied the first " },
        { chunk: "and the last line." },
        { usage: { used: 12000, size: 200000, cost: { amount: 0.0123, currency: "USD" } } },
      ],
    },
  ],
};

let chat;
before(async () => {
  chat = await openChat({ query: "?model=scripted&agent=claude-code&ownTools" });
  await chat.page.waitForSelector(".smarthole-send:not([disabled])");
  await chat.page.evaluate(() => {
    window.__statuses = [];
    new MutationObserver(() => {
      for (const el of document.querySelectorAll(".smarthole-status")) if (el.textContent) window.__statuses.push(el.textContent);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
});
after(() => chat?.close());

const answer = (page) => page.locator(".smarthole-msg-assistant").last();

test("a turn of the user's own agent streams its plan, tool chips, diff card, tokens and cost into the chat", async () => {
  const { page } = chat;
  await page.evaluate((script) => (window.__acpScript = script), SCRIPT);
  await type(page, "Tidy my plan");
  const card = answer(page).locator(".smarthole-tool-cards .smarthole-approval");
  await card.waitFor();
  assert.ok(await page.evaluate(() => window.__statuses.includes("Starting Claude Code…")), "the answer said the agent was starting");
  assert.equal(await answer(page).locator(".smarthole-status").textContent(), "", "the status went once the agent began");
  // The plan as it stands while the edit waits, the chips in order, the card under the edit's chip.
  const entries = () => answer(page).locator(".smarthole-plan-entry").evaluateAll((els) => els.map((e) => `${e.dataset.status} ${e.querySelector(".smarthole-plan-text").textContent}`));
  assert.deepEqual(await entries(), ["completed Read the plan", "in_progress Tidy it", "pending Say what changed"]);
  assert.deepEqual(await answer(page).locator(".smarthole-tool-name").allTextContents(), ["Read Notes/Plan.md", "Edit Notes/Plan.md…"]);
  assert.equal(await card.locator(".smarthole-diff-path").textContent(), NOTE, "the diff names the note inside the vault");
  assert.equal(await card.locator(".smarthole-hunk").count(), 2);
  assert.deepEqual(await card.locator(".smarthole-diff-removed .smarthole-diff-text").allTextContents(), ["alpha is first", "omega is last"]);
  // The agent writes the file itself: the whole change or none of it, and the card says why.
  assert.equal(await card.locator(".smarthole-hunk-accept, .smarthole-hunk-reject").count(), 0, "no answer per hunk");
  assert.deepEqual(await card.locator(".smarthole-options button").allTextContents(), ["Approve once", "Approve for this conversation", "Reject"]);
  assert.match(await card.locator(".smarthole-hint:not(.smarthole-key-hint)").textContent(), /^Claude Code writes this file itself, so it takes the whole change or none of it/);
  await chat.shot("agent-diff-card");

  await card.locator(".smarthole-approval-approve_once").click();
  await page.waitForSelector(".smarthole-msg-assistant .smarthole-copy");
  // One checklist, updated in place to its last state.
  assert.equal(await answer(page).locator(".smarthole-plan").count(), 1);
  assert.deepEqual(await entries(), ["completed Read the plan", "completed Tidy it", "completed Say what changed"]);
  assert.equal(await answer(page).locator(".smarthole-flow .smarthole-body").last().textContent(), "I tidied the first and the last line.");
  assert.equal(await answer(page).locator(".smarthole-usage").textContent(), "context 6 % of 200k · ≈ $0.01");
  // The agent was told yes, once.
  const answers = await page.evaluate(() => window.__acp.received.filter((m) => String(m.id).startsWith("perm-")).map((m) => m.result));
  assert.deepEqual(answers, [{ outcome: { outcome: "selected", optionId: "allow" } }]);
  const newSession = await page.evaluate(() => window.__acp.received.find((m) => m.method === "session/new").params);
  assert.equal(newSession.cwd, "/page-vault");
  await chat.shot("agent-turn");
  assert.deepEqual(chat.errors, []);
});

test("a job that names the user's own agent says so in its schedule bar, with the note on unattended runs", async () => {
  const builtin = await openChat();
  try {
    const { page, model } = builtin;
    await page.waitForSelector(".smarthole-send:not([disabled])");
    model.enqueue(
      { kind: "tool_use", text: "", tools: [{ name: "create_schedule", input: { type: "cron", expression: "0 8 * * 1-5", task: "Summarise yesterday", agent: "claude-code" } }] },
      { kind: "text", text: "Scheduled on Claude Code." },
    );
    await type(page, "Every weekday at 8, summarise yesterday, with Claude Code");
    const note = page.locator(".smarthole-schedule .smarthole-schedule-agent");
    await note.waitFor();
    assert.equal(await note.textContent(), "Runs on Claude Code. Providers may count unattended runs on a subscription differently.");
    assert.deepEqual(builtin.errors, []);
  } finally {
    await builtin.close();
  }
});

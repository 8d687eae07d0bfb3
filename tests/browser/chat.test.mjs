// The chat view as a user sees it, in headless Chromium with the real core: "Preparing…" turns
// to "Send"; an answer streams in token by token; Stop mid-answer leaves the view idle within a
// frame with the partial answer marked; the next message works; a question card's button sends
// the answer; an approval card's buttons decide whether a note is deleted. Screenshots of each step go to target/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { history } from "../node/helpers.mjs";
import { openChat, type } from "./harness.mjs";

let chat;
before(async () => {
  chat = await openChat();
});
after(() => chat?.close());

const lastAnswer = (page) => page.locator(".smarthole-msg-assistant").last();

test("the Send button reads Preparing… until the core is ready, then Send", async () => {
  const { page } = chat;
  await page.waitForSelector(".smarthole-send:not([disabled])");
  const texts = await page.evaluate(() => window.__buttonTexts);
  assert.deepEqual(texts[0], { text: "Preparing…", disabled: true, at: texts[0].at });
  assert.deepEqual({ text: texts.at(-1).text, disabled: texts.at(-1).disabled }, { text: "Send", disabled: false });
  await chat.shot("1-ready");
});

test("opening the chat wrote a hidden line that is never sent to the model", async () => {
  await chat.page.waitForFunction(() => true);
  const lines = history(chat.vault);
  assert.equal(lines.length, 1);
  assert.deepEqual([lines[0].role, lines[0].visible, lines[0].content[0].text], ["system", false, "Chat opened"]);
});

test("a typed message streams in token by token", async () => {
  const { page, model } = chat;
  const text = "Here is a reply that arrives a few characters at a time, so you can watch it being written.";
  model.enqueue({ kind: "text", text, delayMs: 40 });
  await type(page, "Tell me something");
  await page.waitForSelector(".smarthole-msg-user >> text=Tell me something");
  const seen = new Set();
  for (let i = 0; i < 200 && !(await lastAnswer(page).locator(".smarthole-copy").count()); i++) {
    const now = (await lastAnswer(page).locator(".smarthole-body").textContent()) ?? "";
    if (now) seen.add(now);
    if (seen.size === 3) await chat.shot("2-streaming");
    await page.waitForTimeout(15);
  }
  const growth = [...seen].sort((a, b) => a.length - b.length);
  assert.ok(growth.length >= 5, `the answer grew in steps (saw ${growth.length})`);
  for (let i = 1; i < growth.length; i++) assert.ok(growth[i].startsWith(growth[i - 1].slice(0, 20)));
  assert.equal((await lastAnswer(page).locator(".smarthole-body").textContent()).trim(), text);
  // A message typed here carries no source label (only the hub, a schedule or an agent do).
  assert.equal(await page.locator(".smarthole-msg-user").count(), 1);
  assert.equal(await page.locator(".smarthole-msg-user .smarthole-label").count(), 0);
  assert.ok(!model.requests.at(-1).rawBody.includes("Chat opened"), "the hidden line is not sent");
  await chat.shot("3-answered");
});

test("Stop mid-answer: idle within a frame, the partial answer stays marked, the request is aborted", async () => {
  const { page, model } = chat;
  model.enqueue({ kind: "text", text: "word ".repeat(300), delayMs: 60 });
  const index = model.requests.length;
  await type(page, "Write a long story");
  await page.waitForFunction(() => (document.querySelector(".smarthole-msg-assistant:last-of-type .smarthole-body")?.textContent ?? "").length > 20);
  assert.equal(await page.textContent(".smarthole-send"), "Stop");
  const state = await page.evaluate(
    () =>
      new Promise((resolve) => {
        document.querySelector(".smarthole-send").click();
        requestAnimationFrame(() => {
          const b = document.querySelector(".smarthole-send");
          resolve({ text: b.textContent, stop: b.classList.contains("smarthole-stop") });
        });
      }),
  );
  assert.deepEqual(state, { text: "Send", stop: false }, "idle by the next frame");
  await page.waitForSelector(".smarthole-stopped .smarthole-status >> text=Stopped");
  const partial = await page.locator(".smarthole-stopped .smarthole-body").last().textContent();
  assert.ok(partial.includes("word"), "the partial answer stays visible");
  await model.waitFor?.(() => model.requests[index].aborted);
  for (let i = 0; i < 100 && !model.requests[index].aborted; i++) await page.waitForTimeout(20);
  assert.equal(model.requests[index].aborted, true, "the request was aborted");
  await chat.shot("4-stopped");
});

test("a server that never starts its answer: the chat says what it waits for, and Stop works", async () => {
  const { page, model } = chat;
  model.enqueue({ kind: "silent" });
  const index = model.requests.length;
  await type(page, "Are you there?");
  // The core tells the view after 10 s without an answer begun.
  const status = lastAnswer(page).locator(".smarthole-status");
  await status.filter({ hasText: "Waiting for" }).waitFor({ timeout: 30_000 });
  assert.match(await status.textContent(), /^Waiting for 127\.0\.0\.1:\d+ to begin answering \(10 s so far; gives up at 90 s\)…$/);
  await chat.shot("4a-waiting");
  await page.click(".smarthole-send");
  await page.waitForSelector(".smarthole-stopped .smarthole-status >> text=Stopped");
  assert.equal(await page.textContent(".smarthole-send"), "Send");
  for (let i = 0; i < 100 && !model.requests[index].aborted; i++) await page.waitForTimeout(20);
  assert.equal(model.requests[index].aborted, true, "the request was aborted");
});

test("the message after a Stop works normally", async () => {
  const { page, model } = chat;
  model.enqueue({ kind: "text", text: "Back to normal." });
  await type(page, "Are you still there?");
  // Finished: the last answer has its copy button (streaming text alone is not the end).
  await page.waitForFunction(() => {
    const answers = document.querySelectorAll(".smarthole-msg-assistant");
    const last = answers[answers.length - 1];
    return last?.textContent?.includes("Back to normal.") && last.querySelector(".smarthole-copy");
  });
  assert.equal(await page.textContent(".smarthole-send"), "Send");
  const lines = history(chat.vault);
  assert.ok(!lines.some((l) => l.content[0]?.text === "Write a long story"), "the stopped turn was not recorded");
  assert.ok(lines.some((l) => l.content[0]?.text === "Back to normal."));
  await chat.shot("5-after-stop");
});

test("a question card's button sends the answer", async () => {
  const { page, model } = chat;
  model.enqueue(
    { kind: "tool_use", tools: [{ name: "needs_input", input: { type: "choice", prompt: "Which list should I add milk to?", options: ["Work", "Home"] } }] },
    { kind: "text", text: "Added milk to the Home list." },
  );
  await type(page, "Add milk to my list");
  await page.waitForSelector(".smarthole-question .smarthole-option >> text=Home");
  // The card shows as the tool runs; the turn then ends and the view is idle while it waits.
  await page.waitForFunction(() => document.querySelector(".smarthole-send")?.textContent === "Send");
  await chat.shot("6-question");
  await page.click(".smarthole-question .smarthole-option >> text=Home");
  await page.waitForSelector(".smarthole-msg-user >> text=Home");
  await page.waitForFunction(() => document.body.textContent.includes("Added milk to the Home list."));
  assert.equal(await page.locator(".smarthole-answered").count(), 1);
  const sent = model.requests.at(-1).body.messages.at(-1).content;
  // The newest block carries the rolling prompt-cache mark (issue 17); the text is the answer.
  const { cache_control: _mark, ...answer } = sent.at(-1);
  assert.deepEqual(answer, { type: "text", text: "Home" }, "the button's text is the answer");
  await chat.shot("7-answered");
  assert.deepEqual(chat.errors, []);
});

test("an approval card: Reject keeps the note, Approve once sends it to the trash", async () => {
  const { page, model, vault } = chat;
  mkdirSync(path.join(vault, "Notes"), { recursive: true });
  writeFileSync(path.join(vault, "Notes/Old.md"), "old text");
  model.enqueue(
    { kind: "tool_use", tools: [{ name: "delete_file", input: { path: "Notes/Old.md" } }] },
    { kind: "text", text: "All right, I kept it." },
  );
  await type(page, "Delete my old note");
  const card = page.locator(".smarthole-approval").last();
  await card.waitFor();
  assert.equal(await card.locator(".smarthole-body").textContent(), "Delete Notes/Old.md (to the trash)");
  assert.equal(await page.textContent(".smarthole-send"), "Stop", "the message waits on the card");
  await chat.shot("8-approval");
  await card.locator("button >> text=Reject").click();
  await page.waitForFunction(() => document.body.textContent.includes("All right, I kept it."));
  assert.equal(await card.locator(".smarthole-approval-outcome").textContent(), "Rejected");
  assert.equal(await card.locator("button:not([disabled])").count(), 0, "an answered card cannot be clicked again");
  assert.ok(existsSync(path.join(vault, "Notes/Old.md")), "the note is still there");
  const told = model.requests.at(-1).body.messages.at(-1).content.find((b) => b.type === "tool_result");
  assert.match(told.content, /The user rejected this/);

  model.enqueue({ kind: "tool_use", tools: [{ name: "delete_file", input: { path: "Notes/Old.md" } }] }, { kind: "text", text: "Deleted." });
  await type(page, "Delete it after all");
  const second = page.locator(".smarthole-approval").nth(1);
  await second.waitFor();
  await second.locator("button >> text=Approve once").click();
  await page.waitForFunction(() => document.body.textContent.includes("Deleted."));
  assert.equal(await second.locator(".smarthole-approval-outcome").textContent(), "Approved");
  assert.ok(!existsSync(path.join(vault, "Notes/Old.md")));
  assert.equal(readFileSync(path.join(vault, ".trash/Old.md"), "utf8"), "old text");
  await chat.shot("9-approved");
  assert.deepEqual(chat.errors, []);
});

test("a schedule created in chat shows under the title and can be paused from there and from Tasks", async () => {
  const { page, model } = chat;
  model.enqueue(
    { kind: "tool_use", tools: [{ name: "create_schedule", input: { type: "cron", expression: "0 8 * * 1-5", task: "Summarise yesterday's daily note." } }] },
    { kind: "text", text: "Every weekday at 8 I will summarise yesterday's daily note." },
  );
  await type(page, "Every weekday at 8, summarise yesterday's daily note");
  const bar = page.locator(".smarthole-schedule");
  await bar.locator(".smarthole-schedule-text").waitFor();
  assert.match(await bar.textContent(), /Runs on cron “0 8 \* \* 1-5” .* next run .*Summarise yesterday's daily note\./);
  await chat.shot("10-schedule");
  await bar.locator("button >> text=Pause").click();
  await page.waitForFunction(() => document.querySelector(".smarthole-schedule")?.textContent?.includes("paused"));
  await page.click(".smarthole-tasks-button");
  const task = page.locator(".smarthole-task").first();
  await task.waitFor();
  assert.match(await task.textContent(), /paused/);
  await task.locator("button >> text=Resume").click();
  await page.waitForFunction(() => document.querySelector(".smarthole-schedule")?.textContent?.includes("next run"));
  await chat.shot("11-tasks");
  assert.deepEqual(chat.errors, []);
});

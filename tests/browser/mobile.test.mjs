// The plugin on a phone (issue 20): dist/main.js in Chromium with the mobile `obsidian` stub —
// no Node, the vault behind the page's adapter —, a 390x844 touch screen at device scale 3, the CPU
// throttled 4x, the page served from http://localhost and the model behind a front answering CORS
// like the Anthropic API. Load → Send, a streamed turn over fetch, notes through tools, cards
// tapped, Stop, the fallback to requestUrl when fetch is refused, MCP over Streamable HTTP,
// the settings without the desktop-only parts, the layout at phone size, and the adapter's
// write-then-rename surviving a crash (a reload) between its steps.
// Screenshots: target/screenshots/mobile-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { ALLOWED_HEADERS, openPhone, tapSend } from "./mobile-harness.mjs";

let phone;
before(async () => {
  phone = await openPhone();
});
after(() => phone?.close());

const answered = (page, text) => page.waitForFunction((t) => {
  const answers = document.querySelectorAll(".smarthole-msg-assistant");
  const last = answers[answers.length - 1];
  return last?.textContent?.includes(t) && last.querySelector(".smarthole-copy");
}, text);

test("load → Send on a phone: Preparing… then Send, nothing asked of Node", async () => {
  const { page } = phone;
  await phone.boot({ wipe: true });
  const texts = await page.evaluate(() => window.__buttonTexts);
  assert.deepEqual({ text: texts[0].text, disabled: texts[0].disabled }, { text: "Preparing…", disabled: true });
  assert.deepEqual({ text: texts.at(-1).text, disabled: texts.at(-1).disabled }, { text: "Send", disabled: false });
  assert.deepEqual(await page.evaluate(() => window.mobile.notices), [], "no notice (could not start, unknown fields)");
  assert.deepEqual(await page.evaluate(() => window.mobile.refused), [], "no Node module asked for");
  // The data folder lives in the page's adapter: the "Chat opened" line was written there.
  const names = await phone.names(".smarthole/conversations/");
  assert.ok(names.some((n) => n.endsWith(".jsonl")), `a history file in the page's vault: ${names}`);
  assert.deepEqual(phone.errors, []);
});

test("a streamed turn over fetch from the app's origin, through the API's CORS", async () => {
  const { page, model, front } = phone;
  const text = "Here is an answer streamed to the phone a few characters at a time, so you can watch it.";
  model.enqueue({ kind: "text", text, delayMs: 40 });
  // Every text the answer shows, seen from inside the page (not by polling from here).
  await page.evaluate(() => {
    window.__answerTexts = new Set();
    new MutationObserver(() => {
      const body = [...document.querySelectorAll(".smarthole-msg-assistant .smarthole-body")].at(-1);
      if (body?.textContent) window.__answerTexts.add(body.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await tapSend(page, "Tell me something");
  await answered(page, text);
  const seen = await page.evaluate(() => window.__answerTexts.size);
  assert.ok(seen >= 3, `the answer grew in steps (saw ${seen})`);
  assert.equal((await page.locator(".smarthole-msg-assistant .smarthole-body").last().textContent()).trim(), text);
  // The browser asked first (preflight) from the page's origin, for headers the API allows.
  const preflight = front.seen.preflights.at(-1);
  assert.match(preflight.origin, /^http:\/\/localhost:\d+$/);
  for (const h of preflight.headers.split(",")) assert.ok(ALLOWED_HEADERS.includes(h.trim()), `header ${h} is allowed by the API`);
  const post = front.seen.posts.at(-1);
  assert.equal(post.origin, preflight.origin);
  assert.equal(post.headers["anthropic-dangerous-direct-browser-access"], "true");
  assert.equal(model.requests.at(-1).body.stream, true);
  assert.deepEqual(await page.evaluate(() => window.mobile.requests), [], "fetch, not requestUrl");
  await phone.shot("chat");
});

test("tool calls on notes: a note read and written in the page's vault", async () => {
  const { page, model } = phone;
  await page.evaluate(() => window.mobile.put("Lists/Shopping.md", "- bread\n- eggs\n"));
  model.enqueue(
    { kind: "tool_use", tools: [{ name: "read_file", input: { path: "Lists/Shopping.md" } }] },
    { kind: "tool_use", tools: [{ name: "write_file", input: { path: "Lists/Trip.md", content: "- passport\n" } }] },
    { kind: "text", text: "Read your list and started a trip list." },
  );
  await tapSend(page, "What is on my list? Start a trip list too.");
  await answered(page, "started a trip list");
  const read = model.requests.at(-2).body.messages.at(-1).content.find((b) => b.type === "tool_result");
  assert.match(JSON.stringify(read.content), /bread.*eggs/s, "the note's text reached the model");
  assert.equal(await phone.file("Lists/Trip.md"), "- passport\n", "the new note is in the vault");
});

test("question and approval cards answered by touch", async () => {
  const { page, model } = phone;
  model.enqueue(
    { kind: "tool_use", tools: [{ name: "needs_input", input: { type: "choice", prompt: "Which list?", options: ["Work", "Home"] } }] },
    { kind: "text", text: "Added to Home." },
  );
  await tapSend(page, "Add milk");
  await page.locator(".smarthole-question .smarthole-option >> text=Home").waitFor();
  await page.waitForFunction(() => document.querySelector(".smarthole-send")?.textContent === "Send");
  await page.tap(".smarthole-question .smarthole-option >> text=Home");
  await answered(page, "Added to Home.");

  model.enqueue({ kind: "tool_use", tools: [{ name: "delete_file", input: { path: "Lists/Shopping.md" } }] }, { kind: "text", text: "Deleted." });
  await tapSend(page, "Delete the shopping list");
  const card = page.locator(".smarthole-approval").last();
  await card.waitFor();
  await card.scrollIntoViewIfNeeded();
  await phone.shot("card");
  await card.locator("button >> text=Approve once").tap();
  await answered(page, "Deleted.");
  assert.equal(await card.locator(".smarthole-approval-outcome").textContent(), "Approved");
  assert.equal(await phone.file("Lists/Shopping.md"), undefined);
  assert.equal(await phone.file(".trash/Shopping.md"), "- bread\n- eggs\n", "in the trash, undoable");
});

test("Stop by touch mid-answer aborts the request", async () => {
  const { page, model } = phone;
  model.enqueue({ kind: "text", text: "word ".repeat(300), delayMs: 60 });
  const index = model.requests.length;
  await tapSend(page, "Write a long story");
  await page.waitForFunction(() => (document.querySelector(".smarthole-msg-assistant:last-of-type .smarthole-body")?.textContent ?? "").length > 20);
  await page.tap(".smarthole-send.smarthole-stop");
  await page.waitForSelector(".smarthole-stopped .smarthole-status >> text=Stopped");
  for (let i = 0; i < 100 && !model.requests[index].aborted; i++) await page.waitForTimeout(20);
  assert.equal(model.requests[index].aborted, true, "the request was aborted through the CORS front");
  assert.equal(await page.textContent(".smarthole-send"), "Send");
});

test("the layout fits a phone: no sideways scroll, touch targets ≥ 44 px, the input above the keyboard", async () => {
  const { page } = phone;
  const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, chat: document.querySelector(".smarthole-chat").scrollWidth }));
  assert.ok(widths.doc <= 390 && widths.chat <= 390, `fits 390 px: ${JSON.stringify(widths)}`);
  const small = await page.evaluate(() =>
    [...document.querySelectorAll(".smarthole-chat button, .smarthole-chat .smarthole-option, .smarthole-chat textarea")]
      .filter((el) => el.offsetParent !== null)
      .map((el) => ({ el: el.className || el.tagName, text: el.textContent.trim().slice(0, 20), ...el.getBoundingClientRect().toJSON() }))
      .filter((b) => b.height < 44 || b.width < 44),
  );
  assert.deepEqual(small, [], "every visible control is at least 44x44 px");
  // The keyboard takes half the screen: the input and Send stay in view.
  await page.setViewportSize({ width: 390, height: 420 });
  await page.focus(".smarthole-input");
  for (const sel of [".smarthole-input", ".smarthole-send"]) {
    const box = await page.locator(sel).boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= 420, `${sel} visible above the keyboard: ${JSON.stringify(box)}`);
  }
  await page.setViewportSize({ width: 390, height: 844 });
});

test("fetch refused (no CORS on the server): the answer comes through requestUrl, whole", async () => {
  const { page, model, closedFront } = phone;
  await page.evaluate((url) => window.mobile.plugin.userSettings.changeSetting("baseUrl", url), closedFront.url);
  const before = model.requests.length;
  model.enqueue({ kind: "text", text: "Answered without streaming.", delayMs: 20 });
  await tapSend(page, "Are you there?");
  await answered(page, "Answered without streaming.");
  assert.equal(closedFront.seen.preflights.length, 1, "the browser asked, and was refused");
  assert.equal(model.requests.length, before + 1, "one request reached the model: through requestUrl");
  assert.deepEqual(await page.evaluate(() => window.mobile.requests.map((r) => new URL(r.url).origin)), [closedFront.url]);
  assert.equal(closedFront.seen.posts.at(-1).origin, null, "requestUrl sends no origin");
  // The next one goes straight to requestUrl: no second refused attempt.
  model.enqueue({ kind: "text", text: "Again, whole." });
  await tapSend(page, "Once more");
  await answered(page, "Again, whole.");
  assert.equal(closedFront.seen.preflights.length, 1);
  assert.equal(await page.evaluate(() => window.mobile.requests.length), 2);
  await page.evaluate((url) => window.mobile.plugin.userSettings.changeSetting("baseUrl", url), phone.front.url);
  assert.deepEqual(phone.errors, []);
});

test("an integration over Streamable HTTP from the phone (CORS), its tool called by the model", async () => {
  const { page, model } = phone;
  const url = await phone.startMcp();
  await page.evaluate((url) => window.mobile.plugin.userSettings.changeSetting("mcpServers", [{ name: "remote", url }]), url);
  const state = async () => page.evaluate(async () => (await window.mobile.plugin.runtime.mcp.servers(window.mobile.plugin.runtime.processor.mcpConnectWaitMs())).map((s) => s.state).join());
  for (let i = 0; i < 100 && (await state()) !== "connected"; i++) await page.waitForTimeout(100);
  assert.equal(await state(), "connected");
  const from = model.requests.length;
  model.enqueue({ kind: "tool_use", tools: [{ id: "s1", name: "mcp__remote__get-sum", input: { a: 2, b: 3 } }] }, { kind: "text", text: "That makes 5." });
  await tapSend(page, "Add 2 and 3 with the remote tool");
  await answered(page, "That makes 5.");
  assert.ok(model.requests[from].body.tools.some((t) => t.name === "mcp__remote__get-sum"), "the server's tools offered to the model");
  const result = model.requests.at(-1).body.messages.at(-1).content.find((b) => b.type === "tool_result");
  assert.match(JSON.stringify(result.content), /\b5\b/);
  assert.deepEqual(await page.evaluate(() => window.mobile.refused), [], "the SDK's HTTP client, nothing of Node");
  assert.deepEqual(phone.errors, []);
});

test("settings on a phone: the desktop-only parts hidden, with a line saying why; no hub socket", async () => {
  const { page } = phone;
  assert.deepEqual(await page.evaluate(() => window.__sockets), [], "no connection to a hub that cannot be on this device");
  await page.evaluate(() => window.mobile.openSettings());
  const text = await page.textContent(".vertical-tab-content");
  const headings = await page.locator(".setting-item-heading .setting-item-name").allTextContents();
  assert.ok(headings.includes("Model") && headings.includes("Integrations"), `headings: ${headings}`);
  assert.ok(!headings.includes("SmartHole hub") && !headings.some((h) => /agent api/i.test(h)), `no hub or agent API: ${headings}`);
  assert.match(await page.textContent(".smarthole-desktop-only"), /hub, the agent API, integrations that run a program and your own coding agent need the desktop app/);
  assert.ok(!/Connect to the hub/.test(text));
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the settings fit 390 px (${width})`);
  await page.locator(".smarthole-desktop-only").scrollIntoViewIfNeeded();
  await phone.shot("settings");
  // Adding an integration: a URL only (a phone cannot start a program).
  await page.locator("button >> text=Add integration").tap();
  const names = await page.locator(".modal-content .setting-item-name").allTextContents();
  assert.ok(names.includes("URL") && !names.includes("Kind") && !names.includes("Command"), `the form: ${names}`);
  await page.evaluate(() => document.querySelector(".modal-content").remove());
  assert.deepEqual(phone.errors, []);
});

/** The inbox's files but its ready slots (empty files kept for the next messages: no message). */
function inboxFiles() {
  return phone.page.evaluate(() => [...window.mobile.files.entries()].filter(([k, v]) => k.startsWith(".smarthole/inbox/") && !(k.endsWith(".slot") && v.data.length === 0)).map(([k]) => k));
}

/** The history lines of the page's vault (every conversation), parsed. */
async function historyLines() {
  const names = (await phone.names(".smarthole/conversations/")).filter((n) => n.endsWith(".jsonl"));
  const lines = [];
  for (const n of names) for (const l of ((await phone.file(n)) ?? "").split("\n")) if (l.trim()) lines.push(JSON.parse(l));
  return lines;
}

/**
 * A message in flight when the app dies (crash 1, a reload) stays in the inbox; the next start
 * counts a new attempt, rewriting its inbox entry through the adapter's steps, and dies at
 * `op` on the entry's `suffix` file (crash 2). Then it starts as often as `starts` says; the
 * message must be recorded and answered exactly once.
 */
async function crashInsideInboxRewrite(op, suffix, starts, words) {
  const { page, model } = phone;
  await phone.boot(); // the app started again, its chat open
  model.enqueue({ kind: "text", text: "never finished ".repeat(200), delayMs: 100 });
  const index = model.requests.length;
  await tapSend(page, words.asked);
  await model.waitForRequests(index + 1);
  const inbox = (await phone.names(".smarthole/inbox/")).filter((n) => n.endsWith(".json"));
  assert.equal(inbox.length, 1, `the message is in the inbox: ${inbox}`);
  await phone.boot({ crashAt: `return op === ${JSON.stringify(op)} && path === ${JSON.stringify(inbox[0] + suffix)};` });
  await page.waitForFunction(() => window.mobile.control.crashed);
  model.enqueue({ kind: "text", text: words.answer });
  for (let i = 0; i < starts; i++) {
    await phone.boot();
    await page.waitForFunction((answer) => {
      const files = [...window.mobile.files.entries()].filter(([k]) => k.startsWith(".smarthole/conversations/") && k.endsWith(".jsonl"));
      return files.some(([, v]) => v.data.includes(answer));
    }, words.answer, { timeout: 15_000 });
    // Settled: nothing left in the inbox.
    for (let j = 0; j < 100 && (await inboxFiles()).length > 0; j++) await page.waitForTimeout(20);
  }
  const lines = await historyLines();
  const asked = lines.filter((l) => l.role === "user" && JSON.stringify(l.content).includes(words.asked));
  const answers = lines.filter((l) => l.role === "assistant" && JSON.stringify(l.content).includes(words.answer));
  assert.equal(asked.length, 1, "the message recorded once");
  assert.equal(answers.length, 1, "answered once");
  assert.deepEqual(await inboxFiles(), [], "the inbox is empty, nothing set aside left");
  assert.deepEqual(phone.errors, []);
}

test("write-then-rename without fsync: a crash between moving the old entry aside and putting the new one in place loses nothing (DESIGN §4)", () =>
  crashInsideInboxRewrite("rename", ".tmp", 1, { asked: "Remember the milk", answer: "Milk noted." }));

test("… and a crash before the old entry set aside is removed never runs the message twice", () =>
  crashInsideInboxRewrite("remove", ".bak", 2, { asked: "Remember the bread", answer: "Bread noted." }));

test("a crash inside the conversation index's replacement: the next start reads the new index", async () => {
  const { page } = phone;
  await phone.boot();
  const index = ".smarthole/conversations/index.json";
  const before = JSON.parse(await phone.file(index));
  await page.evaluate((p) => (window.mobile.control.crashAt = (op, path) => op === "rename" && path === `${p}.tmp`), index);
  await page.tap(".smarthole-new-button");
  await page.waitForFunction(() => window.mobile.control.crashed);
  assert.equal(await phone.file(index), undefined, "the old index moved aside, the new one not yet in place");
  const written = JSON.parse(await phone.file(`${index}.tmp`));
  assert.equal(written.current, null, "New chat: no conversation current until the next message");
  await phone.boot();
  // The new index was read (with the old one, the chat would have reopened the old conversation).
  const after = JSON.parse(await phone.file(index));
  assert.ok(after.current && after.current !== before.current, `a new conversation: ${after.current} after ${before.current}`);
  assert.ok(after.conversations.some((c) => c.id === before.current), "the old conversation is still listed");
  assert.deepEqual((await phone.names(".smarthole/conversations/")).filter((n) => /\.(tmp|bak)$/.test(n)), [], "nothing left over");
  assert.deepEqual(phone.errors, []);
});

test("the search index's pieces are bytes in the adapter (writeBinary), read back at the next start", async () => {
  const { page } = phone;
  await phone.boot({ files: { "Garden.md": "tomatoes, zebrafish and a long row of beans\n" } });
  const manifest = async () => (await phone.file(".smarthole/search-index.txt")) ?? "";
  for (let i = 0; i < 300 && !(await manifest()).startsWith("smarthole-search-index-3 1 "); i++) await page.waitForTimeout(20);
  assert.match(await manifest(), /^smarthole-search-index-3 1 /);
  const pieces = await phone.names(".smarthole/search-index/");
  assert.ok(pieces.length > 0 && pieces.every((p) => p.endsWith(".bin")), `${pieces}`);
  const kinds = await page.evaluate((ps) => ps.map((p) => window.mobile.files.get(p).data instanceof Uint8Array), pieces);
  assert.deepEqual(kinds, pieces.map(() => true), "written as bytes, not text");
  // The next start reads them back (a damaged index would be rebuilt under new names).
  await phone.boot();
  await page.waitForTimeout(1000);
  assert.deepEqual(await phone.names(".smarthole/search-index/"), pieces);
  assert.deepEqual(phone.errors, []);
});

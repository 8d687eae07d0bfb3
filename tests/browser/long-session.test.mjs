// A conversation kept going in one session (issue 19: a hub user who talks all day, a job's
// runs): the turns answered in the view do not pile up without end. Past 60 of them, with nothing
// running and the user at the end, the view starts again from the newest page of the history;
// every earlier answer is still there a scroll away, in order, and the next message is answered.
// So too when each message is sent the moment the one before is answered (a program on the agent
// API, a job's runs): the view is never idle when it draws an answer, only when the result comes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openChat, type } from "./harness.mjs";
import { openPhone } from "./mobile-harness.mjs";
import { scrollAndSettle } from "./long-history.mjs";

const TURNS = 75;
let chat;
before(async () => {
  chat = await openChat();
  await chat.page.waitForSelector(".smarthole-send:not([disabled])");
});
after(() => chat?.close());

const answers = (page) =>
  page.evaluate(() => [...document.querySelectorAll(".smarthole-msg-assistant")].map((e) => Number(/answer (\d+)\./.exec(e.textContent)?.[1] ?? -1)).filter((n) => n >= 0));

test("75 turns in one session: the view keeps a bounded number, and scrolling up finds every answer in order", async () => {
  const { page, model } = chat;
  let most = 0;
  for (let i = 0; i < TURNS; i++) {
    model.enqueue({ kind: "text", text: `answer ${i}.` });
    await type(page, `question ${i}`);
    await page.waitForFunction((i) => [...document.querySelectorAll(".smarthole-msg-assistant")].some((e) => e.textContent.includes(`answer ${i}.`) && e.querySelector(".smarthole-copy")), i);
    await page.waitForSelector(".smarthole-send:not([disabled])");
    most = Math.max(most, (await answers(page)).length);
  }
  const shown = await answers(page);
  assert.equal(shown.at(-1), TURNS - 1, "the newest answer is at the end");
  assert.ok(shown.length < TURNS, `the view started again from the newest page: ${shown.length} answers drawn`);
  assert.ok(most <= 61, `never more than the live limit drawn at once: ${most}`);
  assert.ok(shown.every((n, i) => i === 0 || n === shown[i - 1] + 1), `contiguous: ${shown}`);

  // Every answer is a scroll away, in order.
  const seen = new Set(shown);
  for (let steady = 0, last = ""; steady < 3; ) {
    await scrollAndSettle(page, "top");
    const now = await answers(page);
    assert.ok(now.every((n, i) => i === 0 || n > now[i - 1]), "in order");
    now.forEach((n) => seen.add(n));
    steady = now.join() === last ? steady + 1 : 0;
    last = now.join();
  }
  assert.equal(seen.size, TURNS, "every answer of the session is in the history");

  // And the conversation goes on.
  await page.evaluate(() => (document.querySelector(".smarthole-messages").scrollTop = 1e9));
  model.enqueue({ kind: "text", text: `answer ${TURNS}.` });
  await type(page, "one more");
  await page.waitForFunction((n) => document.body.textContent.includes(`answer ${n}.`), TURNS);
  assert.equal((await answers(page)).at(-1), TURNS);
  assert.deepEqual(chat.errors, []);
});

test("75 messages each sent the moment the one before is answered: the view still starts again, nothing drawn twice or lost", async () => {
  const phone = await openPhone({ throttle: 1 });
  try {
    await phone.boot({ wipe: true });
    const seen = await phone.page.evaluate(async (n) => {
      const drawn = () => document.querySelectorAll(".smarthole-msg-assistant").length;
      let most = 0;
      for (let i = 0; i < n; i++) {
        const runtime = window.mobile.plugin.runtime;
        const result = await runtime.resultOf(runtime.processor.send(`message ${i}`).id);
        if (!result.success) throw new Error(result.error);
        most = Math.max(most, drawn());
      }
      const users = [...document.querySelectorAll(".smarthole-msg-user .smarthole-body")].map((e) => Number(/message (\d+)/.exec(e.textContent)?.[1]));
      const kinds = [...document.querySelectorAll(".smarthole-msg")].map((e) => (e.classList.contains("smarthole-msg-user") ? "u" : e.classList.contains("smarthole-msg-assistant") ? "a" : "?")).join("");
      return { most, answers: drawn(), users, kinds };
    }, TURNS);
    assert.ok(seen.most <= 61, `never more than the live limit drawn at once: ${seen.most}`);
    assert.ok(seen.answers < TURNS, `the view started again from the newest page: ${seen.answers} answers drawn`);
    assert.equal(seen.users.at(-1), TURNS - 1, "the newest message is at the end");
    assert.ok(seen.users.every((n, i) => i === 0 || n === seen.users[i - 1] + 1), `contiguous, none twice: ${seen.users}`);
    assert.equal(seen.kinds, "ua".repeat(seen.users.length), "each message with its answer");
    assert.deepEqual(phone.errors, []);
  } finally {
    await phone.close();
  }
});

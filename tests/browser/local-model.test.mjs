// The demo's browser mode for real: the chat panel in Chromium, the core inside, the local model
// (SmolLM2 under llama-server, started by scripts/test.sh) behind the page server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { history } from "../node/helpers.mjs";
import { openChat, type } from "./harness.mjs";

const MODEL_URL = process.env.SMARTHOLE_TEST_MODEL_URL;

test("the local model is running (scripts/test.sh starts it)", () => {
  assert.ok(MODEL_URL, "SMARTHOLE_TEST_MODEL_URL is set by scripts/test.sh; run the tests through `make test`");
});

test("a message typed in the browser is answered by the local model, streamed", { skip: !MODEL_URL }, async () => {
  const chat = await openChat({ modelUrl: MODEL_URL, query: "?model=smollm2&maxTokens=60" });
  try {
    const { page } = chat;
    await page.waitForSelector(".smarthole-send:not([disabled])");
    await type(page, "Say hello to the user.");
    await page.waitForSelector(".smarthole-msg-assistant .smarthole-copy", { timeout: 30_000 });
    const answer = (await page.locator(".smarthole-msg-assistant .smarthole-body").last().textContent()).trim();
    assert.ok(answer.length > 0);
    assert.ok(history(chat.vault).some((l) => l.role === "assistant"));
    await chat.shot("8-local-model");
    assert.deepEqual(chat.errors, []);
  } finally {
    await chat.close();
  }
});

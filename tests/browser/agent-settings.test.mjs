// Settings → Agent in Chromium, through the plugin's own settings tab (the mobile harness draws
// it): on the desktop app the choice lists the core's agents, each saying what it starts, how to
// install it and how to sign in; choosing one saves it and shows its command and the own-tools
// switch with its warning; a custom ACP command is typed in. On a phone the section says why
// not (the core's ownAgent.whyNot) and offers no choice.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPhone } from "./mobile-harness.mjs";

let phone;
before(async () => {
  phone = await openPhone({ throttle: 1 });
});
after(() => phone?.close());

/** The row of the setting named exactly `name`. */
const row = (name) => phone.page.locator(".setting-item").filter({ has: phone.page.locator(".setting-item-name", { hasText: new RegExp(`^${name}$`) }) });
const savedBecomes = (check, arg) => phone.page.waitForFunction(check, arg, { timeout: 10_000 });

test("on the desktop app the agent is chosen from the core's list and saved, with its command and the own-tools switch", async () => {
  const { page } = phone;
  await phone.boot({ wipe: true, desktop: true });
  await page.evaluate(() => window.mobile.openSettings());
  const choice = row("Answered by").locator("select");
  const offered = await choice.locator("option").evaluateAll((os) => os.map((o) => `${o.value}=${o.textContent}`));
  assert.deepEqual(offered, ["builtin=Built-in", "claude-code=Claude Code", "codex=Codex", "gemini=Gemini CLI", "opencode=opencode", "acp=Custom ACP command"]);
  assert.equal(await choice.inputValue(), "builtin", "the built-in agent by default");
  assert.equal(await row("Let the agent use its own tools").count(), 0, "nothing to set for the built-in agent");

  await choice.selectOption("claude-code");
  await savedBecomes(() => window.mobile.app.__data?.agent === "claude-code");
  const says = await row("Answered by").locator(".setting-item-description").textContent();
  assert.match(says, /Starts claude-agent-acp \(found on your PATH\)\./);
  assert.match(says, /@zed-industries\/claude-agent-acp/);
  assert.match(says, /Sign in once in a terminal with claude, then \/login/);
  assert.equal(await row("Agent command override").locator("input").getAttribute("placeholder"), "claude-agent-acp");
  assert.match(await row("Let the agent use its own tools").locator(".setting-item-description").textContent(), /a command it runs can do anything your account can/);
  await row("Let the agent use its own tools").locator(".checkbox-container, input[type=checkbox]").first().click();
  await savedBecomes(() => window.mobile.app.__data?.agentOwnTools === true);

  await row("Answered by").locator("select").selectOption("acp");
  await row("Agent command").locator("input").fill("my-agent --acp 'two words'");
  await savedBecomes(() => window.mobile.app.__data?.agent === "acp" && window.mobile.app.__data?.agentCommand === "my-agent --acp 'two words'");
  await phone.shot("settings-agent-desktop");
  // Another agent again: the custom command is not taken as its program.
  await row("Answered by").locator("select").selectOption("gemini");
  await savedBecomes(() => window.mobile.app.__data?.agent === "gemini" && window.mobile.app.__data?.agentCommand === "");
  assert.equal(await row("Agent command override").locator("input").inputValue(), "");
  assert.deepEqual(phone.errors, []);
});

test("on a phone the section says why the user's own agent cannot run there, and offers no choice", async () => {
  const { page } = phone;
  await phone.boot({ wipe: true });
  await page.evaluate(() => window.mobile.openSettings());
  const why = page.locator(".smarthole-agent-why-not");
  assert.match(await why.textContent(), /Your own coding agent \(Claude Code, Codex, Gemini CLI, opencode\) is a program the desktop app starts: this device cannot start programs\. The built-in agent answers here\./);
  assert.equal(await row("Answered by").locator("select").count(), 0);
  await phone.shot("settings-agent-phone");
  assert.deepEqual(phone.errors, []);
});

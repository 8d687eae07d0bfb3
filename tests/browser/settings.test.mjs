// Settings → Model in Chromium (issue 24), through the plugin's own settings tab (the mobile
// harness draws it): a provider preset fills the base URL, format and auth style; Check connection
// reports line by line and offers the server's models, one of which is then chosen; a background
// server shows its own fields and goes away again. Every change lands in data.json.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPhone } from "./mobile-harness.mjs";

const MODELS = ["scripted", "claude-haiku-4-5", "claude-sonnet-4-5"];
let phone;
before(async () => {
  phone = await openPhone({ throttle: 1, models: MODELS });
  await phone.boot({ wipe: true });
  await phone.page.evaluate(() => window.mobile.openSettings());
});
after(() => phone?.close());

/** The row of the setting named exactly `name`. */
const row = (name) => phone.page.locator(".setting-item").filter({ has: phone.page.locator(".setting-item-name", { hasText: new RegExp(`^${name}$`) }) });
const saved = () => phone.page.evaluate(() => window.mobile.app.__data ?? {});
const savedBecomes = (check, arg) => phone.page.waitForFunction(check, arg, { timeout: 10_000 });

test("a preset fills the base URL, the format and the auth style, and saves them", async () => {
  await row("Provider").locator("select").selectOption("ollama");
  await savedBecomes(() => window.mobile.app.__data?.authStyle === "none");
  assert.equal(await row("Base URL").locator("input").inputValue(), "http://127.0.0.1:11434");
  assert.equal(await row("Format").locator("select").inputValue(), "anthropic");
  assert.equal(await row("Send the key as").locator("select").inputValue(), "none");
  const data = await saved();
  assert.deepEqual([data.baseUrl, data.apiFormat, data.authStyle], ["http://127.0.0.1:11434", "anthropic", "none"]);
  assert.match(await row("Provider").locator(".setting-item-description").textContent(), /Ollama 0\.14 or later/);
  const lmStudio = await row("Provider").locator("select").selectOption("lm-studio").then(() => savedBecomes(() => window.mobile.app.__data?.apiFormat === "openai"));
  assert.ok(lmStudio);
  assert.equal(await row("Format").locator("select").inputValue(), "openai", "a Chat Completions server");
  assert.deepEqual(phone.errors, []);
});

test("Check connection reports each line and offers the server's models; one is chosen from the list", async () => {
  const { page, model, front } = phone;
  // Back to the test's server, by hand: a custom base URL, Anthropic's format and header.
  await row("Base URL").locator("input").fill(front.url);
  await row("Format").locator("select").selectOption("anthropic");
  await row("Send the key as").locator("select").selectOption("x-api-key");
  await savedBecomes((url) => window.mobile.app.__data?.baseUrl === url && window.mobile.app.__data?.authStyle === "x-api-key", front.url);
  model.enqueue({ kind: "text", text: "OK" }, { kind: "tool_use", text: "", tools: [{ name: "connection_probe", input: { word: "ping" } }] });
  await row("Check connection").locator("button").click();
  await page.waitForSelector(".smarthole-check-line >> text=/probe tool/", { timeout: 15_000 });
  const lines = await page.locator(".smarthole-check-line").allTextContents();
  assert.ok(lines.length >= 5, lines.join("\n"));
  assert.ok(lines.every((l) => l.startsWith("✓")), lines.join("\n"));
  assert.ok(lines.some((l) => /scripted is among the server's 3 models/.test(l)), lines.join("\n"));
  const offered = await page.locator("#smarthole-models option").evaluateAll((options) => options.map((o) => o.value));
  assert.deepEqual(offered, MODELS);
  assert.equal(await row("Model").locator("input").getAttribute("list"), "smarthole-models", "the list is the input's suggestions");
  await row("Model").locator("input").fill(offered[1]);
  await savedBecomes(() => window.mobile.app.__data?.model === "claude-haiku-4-5");
  await phone.shot("settings-check");
  // A failing check says what to change: this time the model answers without calling the tool.
  await row("Check connection").locator("button").click();
  await page.waitForSelector(".smarthole-check-line.is-failed", { timeout: 15_000 });
  const failed = await page.locator(".smarthole-check-line.is-failed").allTextContents();
  assert.equal(failed.length, 1, failed.join("\n"));
  assert.match(failed[0], /^✗ claude-haiku-4-5 answered without calling the probe tool: .*need a model that calls tools/);
  assert.deepEqual(phone.errors, []);
});

test("a background server shows its own fields, saved apart from the chat's, and goes away again", async () => {
  const { page } = phone;
  assert.equal(await row("Background base URL").count(), 0, "the chat's server by default");
  await row("Background model").locator("input").fill("qwen3");
  await row("Background server").locator("select").selectOption("ollama");
  await savedBecomes(() => window.mobile.app.__data?.backgroundBaseUrl === "http://127.0.0.1:11434");
  await page.waitForSelector(".setting-item-name >> text=Background base URL");
  assert.equal(await row("Background key sent as").locator("select").inputValue(), "none");
  const data = await saved();
  assert.deepEqual([data.backgroundModel, data.backgroundApiFormat, data.backgroundAuthStyle], ["qwen3", "anthropic", "none"]);
  assert.equal(data.baseUrl, phone.front.url, "the chat's server is unchanged");
  assert.equal(data.backgroundApiKey, undefined, "no key in data.json");
  await row("Background server").locator("select").selectOption("same");
  await savedBecomes(() => window.mobile.app.__data?.backgroundBaseUrl === "");
  assert.equal(await row("Background base URL").count(), 0);
  assert.deepEqual(phone.errors, []);
});

test("the tools that ask before they act are the core's list, and a toggle lets one act without asking", async () => {
  for (const name of ["Overwrite notes without asking", "Edit notes without asking", "Delete notes without asking", "Move notes without asking"]) {
    assert.equal(await row(name).count(), 1, name);
  }
  await row("Edit notes without asking").locator("input[type=checkbox]").click({ force: true });
  await savedBecomes(() => (window.mobile.app.__data?.autoApproveTools ?? []).includes("edit_file"));
  assert.deepEqual(phone.errors, []);
});

test("Search by meaning: a preset fills the embedding server's fields, the key stays in secret storage, the ceiling says what it covers", async () => {
  const { page } = phone;
  assert.equal(await row("Embedding server").locator("select").inputValue(), "off", "off by default");
  assert.equal(await row("Embeddings base URL").count(), 0, "no fields while off");
  await row("Embedding server").locator("select").selectOption("voyage");
  await savedBecomes(() => window.mobile.app.__data?.embeddingsModel === "voyage-3.5-lite");
  await page.waitForSelector(".setting-item-name >> text=Embeddings base URL");
  assert.equal(await row("Embeddings base URL").locator("input").inputValue(), "https://api.voyageai.com/v1");
  assert.equal(await row("Embeddings model").locator("input").inputValue(), "voyage-3.5-lite");
  assert.equal(await row("Embeddings format").locator("select").inputValue(), "openai");
  assert.match(await row("Embedding server").locator(".setting-item-description").textContent(), /Anthropic's recommendation/);
  assert.match(await row("Meaning index memory").locator(".setting-item-description").textContent(), /64 MB hold about 131,072 passages/);
  await row("Meaning index memory").locator("input").fill("8");
  await savedBecomes(() => window.mobile.app.__data?.meaningIndexMaxMb === 8);
  assert.match(await row("Meaning index memory").locator(".setting-item-description").textContent(), /8 MB hold about 16,384 passages/);
  assert.equal(await row("Changing the model rebuilds the index").count(), 1);
  await row("Embeddings API key").locator("input").fill("anthropic-api-key");
  await savedBecomes(() => window.mobile.app.__data?.embeddingsApiKeySecretId === "anthropic-api-key");
  const data = await saved();
  assert.deepEqual([data.embeddingsBaseUrl, data.embeddingsFormat], ["https://api.voyageai.com/v1", "openai"]);
  assert.equal(data.embeddingsApiKey, undefined, "no key in data.json");
  assert.ok(!JSON.stringify(data).includes("test-key"), "the secret's value is never written");
  await row("Embedding server").locator("select").selectOption("off");
  await savedBecomes(() => window.mobile.app.__data?.embeddingsBaseUrl === "");
  await page.waitForFunction(() => ![...document.querySelectorAll(".setting-item-name")].some((n) => n.textContent === "Embeddings base URL"));
  assert.deepEqual(phone.errors, []);
});

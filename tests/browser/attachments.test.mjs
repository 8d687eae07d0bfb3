// Pointing the agent at what you mean (issue 23), in headless Chromium with the real core: the @
// picker by keyboard and by pointer, chips added and removed, a pasted image and a vault image
// (each scaled down first) and a dropped PDF sent as their blocks, a 50 MB paste refused on its chip with nothing sent or
// lost; every request body valid against the Messages API's schema.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tmpVault } from "../node/helpers.mjs";
import { ONE_PAGE_PDF, solidPng } from "../node/png.mjs";
import { openChat } from "./harness.mjs";

let chat;
before(async () => {
  const vault = tmpVault();
  const put = (p, data) => {
    mkdirSync(path.dirname(path.join(vault, p)), { recursive: true });
    writeFileSync(path.join(vault, p), data);
  };
  put("Projects/Plan.md", "# Plan\n- ship attachments\n");
  put("Projects/Budget.md", "Budget: 1200\n");
  put("Daily/2026-11-24.md", "A day.\n");
  put("Screens/diagram.png", solidPng(40, 30));
  // Past the API's 8,000 pixels: refused as it is, sent once the host has scaled it down.
  put("Photos/panorama.png", solidPng(9000, 3000, [30, 90, 160]));
  chat = await openChat({ vault, fallback: { kind: "text", text: "ok" } });
  await chat.page.waitForSelector(".smarthole-send:not([disabled])");
});
after(() => chat?.close());

const chips = (page) => page.locator(".smarthole-tray .smarthole-chip");
const lastRequest = () => chat.model.requests.at(-1);
const lastUserBlocks = () => lastRequest().body.messages.filter((m) => m.role === "user").at(-1).content;

async function waitForAnswers(n) {
  await chat.page.waitForFunction((n) => document.querySelectorAll(".smarthole-msg-assistant .smarthole-copy").length >= n, n);
}

test("@ opens the picker; arrows and Enter choose a note, which becomes a chip and leaves the input", async () => {
  const { page } = chat;
  await page.click(".smarthole-input");
  await page.keyboard.type("What is in @pla");
  await page.waitForSelector('.smarthole-mentions[data-query="pla"]');
  const rows = await page.locator(".smarthole-mention").evaluateAll((els) => els.map((e) => e.dataset.path));
  assert.equal(rows[0], "Projects/Plan.md", `the best match first: ${rows}`);
  assert.equal(await page.locator('.smarthole-mention[aria-selected="true"]').getAttribute("data-path"), "Projects/Plan.md");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowUp");
  await chat.shot("attach-1-picker");
  await page.keyboard.press("Enter");
  await page.waitForSelector(".smarthole-tray .smarthole-chip-note");
  assert.equal(await page.inputValue(".smarthole-input"), "What is in ", "the @query left the input; Enter did not send");
  assert.equal(await page.locator(".smarthole-mentions").isHidden(), true);
  assert.equal(chat.model.requests.length, 0);
  assert.match(await chips(page).first().textContent(), /Plan\.md/);
});

test("a pointer chooses too, Esc closes the picker, and × removes a chip", async () => {
  const { page } = chat;
  await page.keyboard.type("and @budg");
  await page.waitForSelector('.smarthole-mentions[data-query="budg"]');
  await page.locator('.smarthole-mention[data-path="Projects/Budget.md"]').click();
  await page.waitForFunction(() => document.querySelectorAll(".smarthole-tray .smarthole-chip-note").length === 2);
  await page.keyboard.type(" @da");
  await page.waitForSelector('.smarthole-mentions[data-query="da"]');
  await page.keyboard.press("Escape");
  assert.equal(await page.locator(".smarthole-mentions").isHidden(), true);
  assert.equal(await chips(page).count(), 2);
  assert.equal(await page.inputValue(".smarthole-input"), "What is in and  @da", "Esc leaves the text as typed");
  await chips(page).nth(1).locator(".smarthole-chip-remove").click();
  assert.equal(await chips(page).count(), 1);
  await page.fill(".smarthole-input", "What is in the plan?");
});

test("Send carries the mentioned note as its own block; the sent message shows its chip", async () => {
  const { page } = chat;
  await page.press(".smarthole-input", "Enter");
  await waitForAnswers(1);
  const blocks = lastUserBlocks();
  assert.deepEqual(lastRequest().schemaErrors, []);
  const note = blocks.find((b) => b.type === "text" && b.text.startsWith('<note path="Projects/Plan.md">'));
  assert.ok(note, JSON.stringify(blocks));
  assert.match(note.text, /ship attachments/);
  assert.equal(blocks.at(-1).text, "What is in the plan?");
  assert.ok(!JSON.stringify(blocks).includes("Budget"), "the removed chip was not sent");
  assert.equal(await chips(page).count(), 0, "the tray is empty after sending");
  assert.match(await page.locator(".smarthole-msg-user").last().locator(".smarthole-chips-sent").textContent(), /Plan\.md/);
});

/** Pastes (or drops) files made in the page into the input. */
async function pasteFiles(page, files, how = "paste") {
  await page.evaluate(
    ({ files, how }) => {
      const dt = new DataTransfer();
      for (const f of files) {
        const bytes = f.size ? new Uint8Array(f.size) : Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
        dt.items.add(new File([bytes], f.name, { type: f.type }));
      }
      const input = document.querySelector(".smarthole-input");
      const event = how === "paste" ? new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }) : new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true });
      input.dispatchEvent(event);
    },
    { files, how },
  );
}

test("a pasted screenshot is scaled down and sent as an image block; a dropped PDF as a document block", async () => {
  const { page } = chat;
  const big = solidPng(3000, 2000);
  await pasteFiles(page, [{ name: "", type: "image/png", base64: big.toString("base64") }]);
  await page.waitForSelector(".smarthole-tray .smarthole-chip-image");
  assert.match(await chips(page).first().textContent(), /Pasted image\.png.*1568×1045/, "scaled to the API's 1568 px before it was copied");
  await pasteFiles(page, [{ name: "paper.pdf", type: "application/pdf", base64: ONE_PAGE_PDF.toString("base64") }], "drop");
  await page.waitForSelector(".smarthole-tray .smarthole-chip-pdf");
  assert.match(await chips(page).nth(1).textContent(), /paper\.pdf.*1 page(?!s)/);
  await chat.shot("attach-2-chips");
  await page.fill(".smarthole-input", "What are these?");
  await page.press(".smarthole-input", "Enter");
  await waitForAnswers(2);
  assert.deepEqual(lastRequest().schemaErrors, []);
  const blocks = lastUserBlocks();
  const image = blocks.find((b) => b.type === "image");
  assert.equal(image.source.media_type, "image/png");
  const sent = Buffer.from(image.source.data, "base64");
  assert.deepEqual([sent.readUInt32BE(16), sent.readUInt32BE(20)], [1568, 1045], "the image sent is the scaled one");
  const pdf = blocks.find((b) => b.type === "document");
  assert.deepEqual(Buffer.from(pdf.source.data, "base64"), ONE_PAGE_PDF);
  assert.equal(pdf.title, "paper.pdf");
});

test("a 50 MB paste is refused on its chip: nothing is sent and the typed text stays", async () => {
  const { page } = chat;
  const before = chat.model.requests.length;
  await page.fill(".smarthole-input", "Look at this video");
  await pasteFiles(page, [{ name: "clip.mov", type: "video/quicktime", size: 50 * 1024 * 1024 }]);
  await page.waitForSelector(".smarthole-tray .smarthole-chip-error");
  assert.match(await chips(page).first().textContent(), /clip\.mov is 50\.0 MB/);
  await page.press(".smarthole-input", "Enter");
  await page.waitForSelector(".smarthole-compose-problem:not(:empty)");
  assert.match(await page.locator(".smarthole-compose-problem").textContent(), /Remove the attachment that cannot be sent first/);
  assert.equal(await page.inputValue(".smarthole-input"), "Look at this video");
  assert.equal(chat.model.requests.length, before, "nothing was sent");
  await chat.shot("attach-3-refused");
  await chips(page).first().locator(".smarthole-chip-remove").click();
  await page.press(".smarthole-input", "Enter");
  await waitForAnswers(3);
  assert.equal(chat.model.requests.length, before + 1);
  assert.equal(await page.locator(".smarthole-compose-problem").textContent(), "");
  assert.deepEqual(chat.errors, []);
});

test("Attach opens a file chooser for images and PDFs; the chosen files become chips and go with the message", async () => {
  const { page } = chat;
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.click(".smarthole-attach")]);
  assert.equal(chooser.isMultiple(), true);
  assert.match(await page.locator(".smarthole-composer input[type=file]").getAttribute("accept"), /image\/png.*application\/pdf/);
  const photo = solidPng(64, 48, [10, 120, 200]);
  await chooser.setFiles([
    { name: "photo.png", mimeType: "image/png", buffer: photo },
    { name: "paper.pdf", mimeType: "application/pdf", buffer: ONE_PAGE_PDF },
  ]);
  await page.waitForSelector(".smarthole-tray .smarthole-chip-image");
  await page.waitForSelector(".smarthole-tray .smarthole-chip-pdf");
  assert.match(await chips(page).first().textContent(), /photo\.png.*64×48/);
  await page.fill(".smarthole-input", "Chosen, not pasted");
  await page.press(".smarthole-input", "Enter");
  await waitForAnswers(4);
  assert.deepEqual(lastRequest().schemaErrors, []);
  const blocks = lastUserBlocks();
  assert.deepEqual(Buffer.from(blocks.find((b) => b.type === "image").source.data, "base64"), photo, "a small image is sent as chosen");
  assert.deepEqual(Buffer.from(blocks.find((b) => b.type === "document").source.data, "base64"), ONE_PAGE_PDF);
  assert.equal(blocks.at(-1).text, "Chosen, not pasted");
  // The same file chosen again is taken again (the chooser was emptied after each choice).
  const [again] = await Promise.all([page.waitForEvent("filechooser"), page.click(".smarthole-attach")]);
  await again.setFiles([{ name: "photo.png", mimeType: "image/png", buffer: photo }]);
  await page.waitForSelector(".smarthole-tray .smarthole-chip-image");
  assert.deepEqual(chat.errors, []);
});

test("an image of the vault past the API's limits, chosen with @, is scaled down and sent", async () => {
  const { page } = chat;
  while ((await chips(page).count()) > 0) await chips(page).first().locator(".smarthole-chip-remove").click();
  const answered = await page.locator(".smarthole-msg-assistant .smarthole-copy").count();
  await page.click(".smarthole-input");
  await page.keyboard.type("What is in @panorama");
  await page.waitForSelector('.smarthole-mentions[data-query="panorama"]');
  // Removing the chips took the focus from the input a moment ago: its closing of the picker
  // must not close the one opened since.
  assert.equal(await page.locator('.smarthole-mention[aria-selected="true"]').getAttribute("data-path"), "Photos/panorama.png");
  await page.keyboard.press("Enter");
  await page.waitForSelector(".smarthole-tray .smarthole-chip-image");
  assert.match(await chips(page).first().textContent(), /panorama\.png.*1568×523/, "9,000 x 3,000 scaled to the API's 1,568 px");
  await page.press(".smarthole-input", "Enter");
  await waitForAnswers(answered + 1);
  assert.deepEqual(lastRequest().schemaErrors, []);
  const image = lastUserBlocks().find((b) => b.type === "image");
  const sent = Buffer.from(image.source.data, "base64");
  assert.deepEqual([sent.readUInt32BE(16), sent.readUInt32BE(20)], [1568, 523], "the image sent is the scaled one");
  assert.deepEqual(chat.errors, []);
});

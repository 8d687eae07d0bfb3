// Attachments on a phone (issues 20 and 23), in the mobile harness: no drag and drop and rarely a
// clipboard image there, so a photo comes through the Attach button's file chooser, opened by a
// tap; a note through the @ picker, chosen by a tap. Both go with the message as their blocks,
// the copies land in the page's vault (IndexedDB behind the app's adapter), and after the app is
// restarted the next turn sends the same bytes again from those copies.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { solidPng } from "../node/png.mjs";
import { openPhone } from "./mobile-harness.mjs";

let phone;
before(async () => {
  phone = await openPhone();
});
after(() => phone?.close());

const answers = (page, n) => page.waitForFunction((n) => document.querySelectorAll(".smarthole-msg-assistant .smarthole-copy").length >= n, n);
const userBlocks = (request) => request.body.messages.filter((m) => m.role === "user");

test("a photo chosen by tap and an @note go with the message; after a restart the next turn sends the same bytes", async () => {
  const { page, model } = phone;
  await phone.boot({ wipe: true });
  await page.evaluate(() => window.mobile.put("Projects/Plan.md", "# Plan\n- ship on phones\n"));
  await phone.boot();

  await page.tap(".smarthole-input");
  await page.keyboard.type("What about @pla");
  await page.waitForSelector('.smarthole-mentions[data-query="pla"]');
  await page.tap('.smarthole-mention[data-path="Projects/Plan.md"]');
  await page.waitForSelector(".smarthole-tray .smarthole-chip-note");

  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.tap(".smarthole-attach")]);
  await chooser.setFiles([{ name: "IMG_0042.png", mimeType: "image/png", buffer: solidPng(3000, 2000) }]);
  await page.waitForSelector(".smarthole-tray .smarthole-chip-image");
  assert.match(await page.locator(".smarthole-tray .smarthole-chip-image").textContent(), /IMG_0042\.png.*1568×1045/, "scaled on the phone before it was copied");
  const attach = await page.locator(".smarthole-attach").boundingBox();
  assert.ok(attach.width >= 44 && attach.height >= 44, `Attach is a finger's size: ${attach.width}x${attach.height}`);
  await phone.shot("attach");

  await page.fill(".smarthole-input", "What is in the plan and the photo?");
  await page.tap(".smarthole-send");
  await answers(page, 1);
  const first = model.requests.at(-1);
  assert.deepEqual(first.schemaErrors, []);
  const sent = userBlocks(first).at(-1).content;
  const image = sent.find((b) => b.type === "image");
  const bytes = Buffer.from(image.source.data, "base64");
  assert.deepEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], [1568, 1045]);
  assert.ok(sent.some((b) => b.type === "text" && b.text.startsWith('<note path="Projects/Plan.md">') && b.text.includes("ship on phones")), JSON.stringify(sent));
  const copies = await phone.names(".smarthole/attachments/");
  assert.equal(copies.filter((c) => c.endsWith(".b64")).length, 1, `the photo's copy in the page's vault: ${copies}`);
  assert.equal(copies.filter((c) => c.endsWith(".txt")).length, 1, `the note's copy: ${copies}`);

  // The app restarted: the conversation goes on, and its first message is sent as it was.
  await phone.boot();
  await page.fill(".smarthole-input", "And what should I do next?");
  await page.tap(".smarthole-send");
  await answers(page, 2);
  const second = model.requests.at(-1);
  assert.deepEqual(second.schemaErrors, []);
  const replayed = userBlocks(second).find((m) => m.content.some((b) => b.type === "image"));
  assert.ok(replayed, "the photo is in the history sent after the restart");
  assert.equal(replayed.content.find((b) => b.type === "image").source.data, image.source.data, "the same bytes");
  assert.ok(replayed.content.some((b) => b.type === "text" && b.text.includes("ship on phones")));
  assert.deepEqual(phone.errors, []);
});

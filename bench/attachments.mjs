// Attachments in the chat view (issue 23), in Chromium over the real core
// (tests/browser/harness.mjs). The @ picker: a keystroke to its list showing the new query's
// matches, over 20,000 notes against 100 in the same run (the first `@` lists the vault; each key
// after it is matched in the core). Send with a 5 MB image attached against Send with none: the
// key to the message shown, and to its request reaching the model; and the paste to its chip.
// Run alone: `node bench/attachments.mjs` (splices its section into docs/BENCHMARKS.md).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tmpVault } from "../tests/node/helpers.mjs";
import { openChat } from "../tests/browser/harness.mjs";
import { solidPng } from "../tests/node/png.mjs";
import { deflateSync } from "node:zlib";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x, d = 1) => Number(x.toFixed(d));
const WORDS = ["project", "plan", "meeting", "review", "budget", "daily", "idea", "research", "draft", "journal"];

/** A vault of `notes` small notes in 100 folders. */
function vaultOf(notes) {
  const vault = tmpVault();
  for (let i = 0; i < notes; i++) {
    const dir = path.join(vault, `${WORDS[i % 10]}s ${Math.floor(i / 10) % 100}`);
    if (i < 1000) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${WORDS[(i * 7) % 10]} ${WORDS[(i * 3) % 10]} ${i}.md`), `note ${i}\n`);
  }
  return vault;
}

/** Each keystroke of `keys` after `@` to the list showing that query; [first (lists the vault), rest]. */
async function pickerKeystrokes(page, keys) {
  await page.evaluate(() => {
    const input = document.querySelector(".smarthole-input");
    window.__keyAt = 0;
    window.__shown = {};
    input.addEventListener("keydown", () => (window.__keyAt = performance.now()));
    // The moment the list shows a query (the picker sets data-query when it has drawn it).
    new MutationObserver(() => {
      const q = document.querySelector(".smarthole-mentions")?.getAttribute("data-query");
      if (q !== null && q !== undefined && window.__shown[q] === undefined) window.__shown[q] = performance.now() - window.__keyAt;
    }).observe(document.querySelector(".smarthole-mentions"), { attributes: true, attributeFilter: ["data-query"] });
  });
  await page.focus(".smarthole-input");
  await page.fill(".smarthole-input", "");
  const times = [];
  let query = "";
  for (const key of ["@", ...keys]) {
    await page.keyboard.type(key);
    query = key === "@" ? "" : query + key;
    await page.waitForFunction((q) => window.__shown[q] !== undefined, query, { timeout: 60_000 });
    times.push(await page.evaluate((q) => window.__shown[q], query));
  }
  await page.keyboard.press("Escape");
  return times;
}

/** A PNG of random pixels just under the API's 5 MB (random bytes do not compress). */
function noisyPng(width, height) {
  const png = solidPng(width, height);
  const raw = Buffer.concat(Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), randomBytes(width * 3)])));
  // Same header, the noisy data as the image data.
  const ihdrEnd = 8 + 25;
  const idat = deflateSync(raw, { level: 0 });
  const chunk = Buffer.alloc(12 + idat.length);
  chunk.writeUInt32BE(idat.length, 0);
  chunk.write("IDAT", 4, "ascii");
  idat.copy(chunk, 8);
  return Buffer.concat([png.subarray(0, ihdrEnd), chunk, png.subarray(png.length - 12)]);
}

/** Enter → the message drawn, and → its request at the model, in ms; with a pasted image when given. */
async function sendOnce(chat, image) {
  const { page, model } = chat;
  // Each in a new conversation: no earlier image is sent again with it.
  await page.click(".smarthole-new-button");
  await page.waitForFunction(() => document.querySelectorAll(".smarthole-msg-user").length === 0);
  let pasteMs = 0;
  if (image) {
    pasteMs = await page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], "big.png", { type: "image/png" }));
      const started = performance.now();
      document.querySelector(".smarthole-input").dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
      while (!document.querySelector(".smarthole-tray .smarthole-chip-image, .smarthole-tray .smarthole-chip-error")) await new Promise((r) => setTimeout(r, 5));
      if (document.querySelector(".smarthole-tray .smarthole-chip-error")) throw new Error(document.querySelector(".smarthole-tray").textContent);
      return performance.now() - started;
    }, image.toString("base64"));
  }
  const before = model.requests.length;
  const users = 0;
  const text = `What is this? (${Math.random().toString(36).slice(2)})`;
  await page.fill(".smarthole-input", text);
  await page.evaluate((users) => {
    const input = document.querySelector(".smarthole-input");
    // Before the panel's own handler, which draws the message at once.
    document.addEventListener("keydown", () => (window.__sendAt = performance.now()), { once: true, capture: true });
    new MutationObserver((_, observer) => {
      if (document.querySelectorAll(".smarthole-msg-user").length > users) {
        window.__shownAt = performance.now();
        observer.disconnect();
      }
    }).observe(document.querySelector(".smarthole-messages"), { childList: true, subtree: true });
  }, users);
  const sentAt = performance.now();
  await page.press(".smarthole-input", "Enter");
  await page.waitForFunction(() => window.__shownAt !== undefined && window.__sendAt !== undefined);
  // The message's own request (ending the previous conversation asks for its title too).
  const ours = () => model.requests.slice(before).find((r) => r.body?.messages?.at(-1)?.content?.at(-1)?.text === text);
  while (!ours()) await new Promise((r) => setTimeout(r, 2));
  // The scripted server runs in this process: its clock is this one.
  const requestMs = ours().receivedAt - sentAt;
  const shownMs = await page.evaluate(() => {
    const ms = window.__shownAt - window.__sendAt;
    window.__shownAt = undefined;
    window.__sendAt = undefined;
    return ms;
  });
  await page.waitForFunction(() => document.querySelectorAll(".smarthole-msg-assistant .smarthole-copy").length >= 1);
  return { shownMs, requestMs, pasteMs };
}

export async function attachmentBenchmarks({ big = 20_000, small = 100, runs = 5 } = {}) {
  const out = { attach_picker_notes: big, attach_picker_reference_notes: small };
  const keys = "projectplan".split("");
  for (const [key, notes] of [["small", small], ["big", big]]) {
    const chat = await openChat({ vault: vaultOf(notes), fallback: { kind: "text", text: "ok" } });
    try {
      await chat.page.waitForSelector(".smarthole-send:not([disabled])");
      const first = [];
      const rest = [];
      for (let i = 0; i < runs; i++) {
        // A vault event makes the next @ list the vault again, as the first one does.
        await chat.page.evaluate(() => window.smarthole.runtime.processor.vaultChanged("x.md", "create"));
        const [cold, ...warm] = await pickerKeystrokes(chat.page, keys);
        first.push(cold);
        rest.push(...warm);
      }
      out[`attach_picker_${key}_first_ms`] = round(median(first));
      out[`attach_picker_${key}_p50_ms`] = round(median(rest));
      out[`attach_picker_${key}_max_ms`] = round(Math.max(...rest));
    } finally {
      await chat.close();
    }
  }
  const chat = await openChat({ vault: tmpVault(), fallback: { kind: "text", text: "ok" } });
  try {
    await chat.page.waitForSelector(".smarthole-send:not([disabled])");
    const image = noisyPng(1560, 1060);
    out.attach_image_bytes = image.length;
    const plain = [];
    const withImage = [];
    for (let i = 0; i < runs; i++) {
      plain.push(await sendOnce(chat));
      withImage.push(await sendOnce(chat, image));
    }
    for (const [name, list] of [["plain", plain], ["image", withImage]]) {
      out[`attach_send_${name}_shown_ms`] = round(median(list.map((r) => r.shownMs)));
      out[`attach_send_${name}_request_ms`] = round(median(list.map((r) => r.requestMs)));
    }
    out.attach_paste_image_ms = round(median(withImage.map((r) => r.pasteMs)));
  } finally {
    await chat.close();
  }
  return out;
}

export function attachmentSection(r) {
  if (r.attach_picker_big_p50_ms === undefined) return "";
  const mb = (r.attach_image_bytes / 1024 / 1024).toFixed(1);
  return `
## Attachments (issue 23)

\`node bench/attachments.mjs\` (also part of \`make bench\`): the chat panel in Chromium over the
real core (tests/browser/harness.mjs). **Picker**: each keystroke typing \`@projectplan\` to the
list showing that query's matches (the core matches; the first \`@\` after a vault change lists
the vault), 5 rounds, over ${r.attach_picker_notes.toLocaleString("en")} notes against ${r.attach_picker_reference_notes} in the same run. Budget: a keystroke within 16 ms.
**Send**: Enter to the message drawn and to its request reaching the model, with a ${mb} MB
pasted image against none, median of 5 each; the image was read, checked and copied when it was
pasted (its chip), so Send only names it.

| what | ${r.attach_picker_reference_notes} notes | ${r.attach_picker_notes.toLocaleString("en")} notes |
|---|---|---|
| first \`@\` (lists the vault) | ${r.attach_picker_small_first_ms} ms | ${r.attach_picker_big_first_ms} ms |
| each key after it, p50 / max | ${r.attach_picker_small_p50_ms} / ${r.attach_picker_small_max_ms} ms | ${r.attach_picker_big_p50_ms} / ${r.attach_picker_big_max_ms} ms |

| Send | no attachment | ${mb} MB image |
|---|---|---|
| Enter → message drawn | ${r.attach_send_plain_shown_ms} ms | ${r.attach_send_image_shown_ms} ms |
| Enter → request at the model | ${r.attach_send_plain_request_ms} ms | ${r.attach_send_image_request_ms} ms |

Pasting the image to its chip (read, hashed, base64, the copy written): ${r.attach_paste_image_ms} ms.
The message shows at once either way; its request carries the image, so the second row's
difference is building and sending ${mb} MB more (base64 in the JSON body, through the test
page's proxy to the scripted server, which parses and schema-checks it). The copy made at paste
time is kept in memory for the turn (and, up to 48 MB, for later turns), so it is not read back.

The first \`@\` after a change to the vault's names lists the vault: on this page that is the
panel server walking ${r.attach_picker_notes.toLocaleString("en")} files with \`lstat\` (about 0.9 s of it measured alone); Obsidian
lists from memory. The chat lists when the input gets the focus, so the list is usually ready
before the \`@\` is typed; an edit to a note does not make it list again.
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await attachmentBenchmarks();
  console.log(JSON.stringify(results, null, 2));
  mkdirSync(path.join(ROOT, "target/bench"), { recursive: true });
  const { spliceSection } = await import("./markdown.mjs");
  const doc = path.join(ROOT, "docs/BENCHMARKS.md");
  writeFileSync(doc, spliceSection(readFileSync(doc, "utf8"), "Attachments (issue 23)", attachmentSection(results)));
  console.log("spliced the attachments section into docs/BENCHMARKS.md");
  process.exit(0);
}

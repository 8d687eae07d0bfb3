// Strings into the core: the glue's copy (js-shim/glue-factory.mjs lets the platform's encoder
// write a string's ASCII start, issue 37) hands the core the same UTF-8 as the encoder alone
// would, whatever the string: empty, ASCII, other characters first, last or throughout, long,
// and lone or split surrogates (which become U+FFFD).
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { loadCore } = await import(path.join(ROOT, "js-shim/dist/node.js"));

test("a string reaches the core as its UTF-8, whatever it holds and however long", async () => {
  const core = await loadCore();
  const cases = [
    "",
    "abc",
    "é",
    "é🙂x",
    "ascii first, then ü at the end ü",
    "x".repeat(100_000) + "🙂" + "y".repeat(5),
    "🙂".repeat(3000),
    "Ω".repeat(50_000),
    "a\uD800b",
    "\uDC00",
    "x".repeat(70_000) + "\uD83D",
  ];
  for (const text of cases) {
    // selectionQuote quotes a one-line selection as "> " and the text (nothing for none): an
    // echo of it.
    const quoted = core.selectionQuote("n.md", 1, 1, text);
    const expected = text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
    assert.ok(quoted.endsWith(text === "" ? ":\n\n\n" : `:\n> ${expected}\n\n`), `${JSON.stringify(text.slice(0, 12))} (${text.length} characters)`);
  }
});

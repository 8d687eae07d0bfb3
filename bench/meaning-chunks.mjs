// A JavaScript port of the core's src/vault/meaning/chunks.rs, for the recall prototype
// (bench/meaning-recall.mjs) to cut notes exactly as the core will before the core is wired:
// along headings (not inside code fences), then paragraphs packed up to MAX_CHARS, a longer
// paragraph cut at a sentence end (or a space), frontmatter left out, each passage led by its
// place "Folder > Note > Heading". Lengths are counted in UTF-8 bytes, as Rust's `len()` does.
// Keep it in step with chunks.rs.

/** Longest passage, in bytes of its own text (chunks.rs's MAX_CHARS). */
export const MAX_CHARS = 1000;

const bytes = (s) => Buffer.byteLength(s, "utf8");
const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** What the embedding model is given for a passage (chunks.rs's `embed_text`). */
export function embedText(chunk) {
  return chunk.text === "" ? chunk.place : `${chunk.place}\n${chunk.text}`;
}

/** The passages `{ place, text, lines: [first, last] }` of the note at `path` (vault-relative). */
export function chunks(path, text) {
  const notePlace = placeOfPath(path);
  const noteName = notePlace.split(" > ").pop() ?? "";
  const out = [];
  let headings = [];
  let section = [];
  let fence = null;
  const placeOf = (hs) => {
    let place = notePlace;
    hs.forEach(([, title], i) => {
      // A first heading that only repeats the note's name adds nothing.
      if (i === 0 && asciiLower(title) === asciiLower(noteName)) return;
      place += ` > ${title}`;
    });
    return place;
  };
  for (const [number, line] of bodyLines(text)) {
    if (fence !== null) {
      if (line.trimStart().startsWith(fence)) fence = null;
    } else {
      const marker = fenceMarker(line);
      if (marker !== null) {
        fence = marker;
      } else {
        const h = heading(line);
        if (h !== null) {
          pack(placeOf(headings), section, out);
          section = [];
          headings = headings.filter(([level]) => level < h[0]);
          headings.push(h);
          continue;
        }
      }
    }
    section.push([number, line]);
  }
  pack(placeOf(headings), section, out);
  if (out.length === 0) out.push({ place: notePlace, text: "", lines: [1, 1] });
  return out;
}

/** "Folder > Sub > Note" from "Folder/Sub/Note.md". */
function placeOfPath(path) {
  const dot = path.lastIndexOf(".");
  const stem = dot >= 0 && !path.slice(dot + 1).includes("/") ? path.slice(0, dot) : path;
  return stem.split("/").filter((p) => p !== "").join(" > ");
}

/** Rust's `str::lines`: split at "\n", a trailing "\r" dropped, no empty last line. */
function rustLines(text) {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/** The note's lines with their numbers (from 1), frontmatter left out. */
function bodyLines(text) {
  const lines = rustLines(text);
  let skip = 0;
  if (lines.length > 0 && lines[0].trimEnd() === "---") {
    const end = lines.slice(1).findIndex((l) => l.trimEnd() === "---" || l.trimEnd() === "...");
    skip = end >= 0 ? end + 2 : 0;
  }
  return lines.map((l, i) => [i + 1, l]).slice(skip);
}

/** The marker that opens a fenced code block on this line, if it opens one. */
function fenceMarker(line) {
  const t = line.trimStart();
  if (t.startsWith("```")) return "```";
  if (t.startsWith("~~~")) return "~~~";
  return null;
}

/** An ATX heading's [level, title], or null. */
function heading(line) {
  const indent = line.length - line.replace(/^ +/, "").length;
  if (indent > 3) return null;
  const t = line.slice(indent);
  const level = t.length - t.replace(/^#+/, "").length;
  if (level === 0 || level > 6) return null;
  const rest = t.slice(level);
  if (!(rest === "" || rest.startsWith(" ") || rest.startsWith("\t"))) return null;
  const title = rest.trim().replace(/#+$/, "").trimEnd();
  return title === "" ? null : [level, title];
}

/** Cuts one section into passages: whole paragraphs while they fit, longer ones cut. */
function pack(place, section, out) {
  let current = null;
  for (const [text, lines] of paragraphs(section)) {
    for (const [piece, pieceLines] of splitLong(text, lines)) {
      if (current !== null && bytes(current.text) + 2 + bytes(piece) <= MAX_CHARS) {
        current.text += `\n\n${piece}`;
        current.lines[1] = pieceLines[1];
      } else {
        if (current !== null) out.push(current);
        current = { place, text: piece, lines: [...pieceLines] };
      }
    }
  }
  if (current !== null) out.push(current);
}

/** The section's paragraphs (runs of non-blank lines), trimmed, with their first and last line. */
function paragraphs(section) {
  const out = [];
  let text = "";
  let first = 0;
  let last = 0;
  for (const [number, line] of section) {
    if (line.trim() === "") {
      if (text !== "") out.push([text, [first, last]]);
      text = "";
      continue;
    }
    if (text === "") first = number;
    else text += "\n";
    text += line.trimEnd();
    last = number;
  }
  if (text !== "") out.push([text, [first, last]]);
  return out;
}

/** The longest prefix of `s` of at most `limit` UTF-8 bytes that ends on a character boundary. */
function prefixWithin(s, limit) {
  let used = 0;
  let end = 0;
  for (const ch of s) {
    const size = bytes(ch);
    if (used + size > limit) break;
    used += size;
    end += ch.length;
  }
  return s.slice(0, end);
}

/** A paragraph in pieces of at most MAX_CHARS bytes, cut after a sentence's end in the second
 * half of the piece, else at a space, else at a character boundary (chunks.rs's `split_long`). */
function splitLong(text, lines) {
  const out = [];
  let rest = text;
  while (bytes(rest) > MAX_CHARS) {
    const window = prefixWithin(rest, MAX_CHARS);
    const endBytes = bytes(window);
    const sentence = Math.max(...[".", "!", "?", "\n"].map((c) => window.lastIndexOf(c)));
    const space = window.lastIndexOf(" ");
    let cut = window.length;
    if (sentence >= 0 && bytes(window.slice(0, sentence)) >= Math.floor(endBytes / 2)) cut = sentence + 1;
    else if (space > 0) cut = space;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.trim() !== "") out.push(rest.trim());
  return out.filter((p) => p !== "").map((p) => [p, lines]);
}

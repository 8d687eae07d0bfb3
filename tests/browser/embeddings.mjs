// The offline embedding server for the browser tests: the one scripts/test.sh started
// (SMARTHOLE_TEST_EMBEDDINGS_URL), or one started here with `scripts/local-model.sh
// embeddings-start` (on SMARTHOLE_TEST_EMBEDDINGS_PORT, default 8093) and stopped by `stop()`.
// And a counting proxy in front of it: every POST and how many texts it asked to embed; a few
// notes on different subjects for it, and what the Related notes view shows of them.
import http from "node:http";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT, tmpVault } from "../node/helpers.mjs";

function localModel(args) {
  const run = spawnSync("scripts/local-model.sh", args, { cwd: ROOT, encoding: "utf8", timeout: 600_000 });
  if (run.status !== 0) throw new Error(`scripts/local-model.sh ${args.join(" ")} failed: ${run.stderr}`);
  return run.stdout.trim().split("\n").pop();
}

/** The server's base URL and model name; `stop()` stops it if it was started here. */
export function embeddingServer() {
  const model = localModel(["embeddings-model"]);
  const given = process.env.SMARTHOLE_TEST_EMBEDDINGS_URL;
  if (given) return { url: given.replace(/\/$/, ""), model, stop: () => {} };
  const port = process.env.SMARTHOLE_TEST_EMBEDDINGS_PORT ?? "8093";
  const url = localModel(["embeddings-start", port]);
  return { url, model, stop: () => localModel(["embeddings-stop", port]) };
}

/** How many texts a request body asks to embed (OpenAI's `input` or Ollama's `input`). */
function inputsOf(body) {
  try {
    const input = JSON.parse(body).input;
    return Array.isArray(input) ? input : [input];
  } catch {
    return [];
  }
}

/**
 * A proxy to `target` that counts: `posts` (each POST's texts), answering CORS for any origin
 * as the server does (a page's fetch reaches it). `hold()` keeps the POSTs waiting until the
 * function it returns is called (a test sees the index before it is built). `close()` stops it.
 */
export async function countingProxy(target) {
  const posts = [];
  let held = null;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      if (req.method === "POST") {
        posts.push(inputsOf(body.toString("utf8")));
        await held?.promise;
      }
      const upstream = http.request(new URL(req.url, target), { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (up) => {
        res.writeHead(up.statusCode, up.headers);
        up.pipe(res);
      });
      upstream.on("error", () => res.destroy());
      upstream.end(body);
    });
  });
  const port = await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    hold() {
      let release;
      held = { promise: new Promise((r) => (release = r)) };
      return () => ((held = null), release());
    },
    /** Every text embedded through the proxy. */
    texts: () => posts.flat(),
    close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))),
  };
}

/** A few notes on different subjects; the bread maker's section is the sourdough note's kin. */
export const NOTES = {
  "Recipes/Sourdough.md": "# Sourdough\n\nFeed the starter with flour and water the night before.\nMix the dough, let it rise slowly, then bake the loaf in a hot oven until the crust is dark.\n",
  "Kitchen/Appliances.md":
    "# Appliances\n\n## Dishwasher\n\nThe dishwasher's filter is cleaned every month; the manual is in the top drawer.\n\n## Bread maker\n\nKnead the dough with yeast, let it rise, and bake a crusty loaf of bread at home.\n",
  "Garden/Tomatoes.md": "# Tomatoes\n\nPlant tomatoes in full sun, water them deeply twice a week, and tie the stems to stakes.\n",
  "Finance/Budget.md": "# Budget\n\nMonthly budget: rent, groceries and savings. Put ten percent of each paycheck aside.\n",
  "Travel/Kyoto.md": "# Kyoto\n\nTrip to Kyoto in April: the temples, the cherry blossoms, a rail pass for the trains.\n",
};

/** A vault folder holding `notes`. */
export function vaultWith(notes) {
  const vault = tmpVault();
  for (const [name, text] of Object.entries(notes)) {
    mkdirSync(path.dirname(path.join(vault, name)), { recursive: true });
    writeFileSync(path.join(vault, name), text);
  }
  return vault;
}

/** What the view shows: its heading, its status line, and each note's button. */
export const shown = (page) =>
  page.evaluate(() => ({
    heading: document.querySelector(".smarthole-related-heading")?.textContent ?? null,
    status: document.querySelector(".smarthole-related-status:not(.smarthole-hidden)")?.textContent ?? "",
    notes: [...document.querySelectorAll(".smarthole-related-open")].map((b) => ({
      path: b.dataset.path,
      label: b.getAttribute("aria-label"),
      title: b.querySelector(".smarthole-related-title")?.textContent,
      folder: b.querySelector(".smarthole-related-folder")?.textContent ?? "",
      passage: b.querySelector(".smarthole-related-passage")?.textContent,
      describedBy: document.getElementById(b.getAttribute("aria-describedby") ?? "")?.textContent,
    })),
  }));

// The chat panel on a plain page (browser tests, `make demo` in browser mode), over the same
// core, with files and the model behind panel-server on 127.0.0.1. With `?related`, the Related
// notes panel instead, the note "open in the editor" set by `smarthole.openFile(path)` or by
// opening a note from the panel; `?embeddings=URL&embeddingsModel=NAME` sets search by meaning.
// With `?editor=PATH`, that note in a CodeMirror editor beside the chat (page-editor.ts).
import type { CoreSettings } from "smarthole-core";
import { CoreRuntime } from "../core/runtime.ts";
import { ChatPanel } from "../ui/chat-panel.ts";
import { RelatedNotesPanel } from "../ui/related-notes.ts";
import { installDomHelpers } from "./dom-helpers.ts";
import { PageIO, PageVault } from "./page-io.ts";
import { mountPageEditor, type PageEditor } from "./page-editor.ts";
import { pageAgentSystem } from "./page-agent.ts";

installDomHelpers();

/** Plain-text Markdown for the page: paragraphs, no HTML parsing. */
function renderPlain(markdown: string, el: HTMLElement): Promise<void> {
  for (const paragraph of markdown.split(/\n{2,}/)) el.createEl("p", { text: paragraph });
  return Promise.resolve();
}

const params = new URLSearchParams(location.search);
const settings: CoreSettings = {
  baseUrl: location.origin,
  model: params.get("model") ?? "default",
  maxTokens: Number(params.get("maxTokens") ?? 1024),
  hubEnabled: params.has("hub"),
};
// ?agent=claude-code: the user's own agent, played by the page's scripted one (page-agent.ts).
const agent = params.get("agent") as CoreSettings["agent"] | null;
if (agent) {
  settings.agent = agent;
  settings.agentOwnTools = params.has("ownTools");
}
const hub = params.get("hub");
if (hub) settings.hubUrl = hub;
// ?embeddings=URL: search by meaning with that embedding server (browser tests).
const embeddings = params.get("embeddings");
if (embeddings) Object.assign(settings, { embeddingsBaseUrl: embeddings, embeddingsModel: params.get("embeddingsModel") ?? "test-embed" });

const banner = document.getElementById("banner");
const vault = new PageVault();
const runtime = new CoreRuntime({
  io: new PageIO(),
  vault,
  configFolder: ".obsidian",
  openSocket: (url) => new WebSocket(url),
  settings: () => settings,
  agentSystem: agent ? pageAgentSystem : null,
  vaultFolder: () => (agent ? "/page-vault" : null),
  notify: (text) => banner?.setText(text),
  log: (level, message) => {
    if (level === "error" || level === "warn") console.warn(message);
  },
});
window.addEventListener("error", (event) => runtime.reportError(event.error));
window.addEventListener("unhandledrejection", (event) => runtime.reportError(event.reason));

const opened: { path: string; line?: number }[] = [];
/** The note "open in the editor" (a page has none: the tests set it) and who follows it. */
let activePath: string | null = null;
const followers = new Set<(path: string | null) => void>();
const openFile = (path: string | null) => {
  activePath = path;
  for (const follower of followers) follower(path);
};
const app = document.getElementById("app");
if (app && params.has("related")) {
  const panel = new RelatedNotesPanel(app, runtime, {
    // No editor on a page: the notes asked for are listed, and become the open note.
    openNote: (path, line) => {
      opened.push({ path, line });
      openFile(path);
    },
    activeNote: {
      current: () => activePath,
      subscribe: (listener) => (followers.add(listener), () => followers.delete(listener)),
    },
  });
  panel.mount();
} else if (app) {
  const panel = new ChatPanel(app, runtime, {
    renderMarkdown: renderPlain,
    copy: (text) => navigator.clipboard.writeText(text),
    // No editor on a page: the notes asked for are listed, for the tests.
    openNote: (path, line) => opened.push({ path, line }),
  });
  panel.mount();
}
const smarthole: { runtime: CoreRuntime; opened: typeof opened; openFile: typeof openFile; editor?: PageEditor["view"]; editorSaved?: () => Promise<void>; inlineDraws?: PageEditor["draws"] } = { runtime, opened, openFile };
(window as unknown as { smarthole: unknown }).smarthole = smarthole;
const editorPath = params.get("editor");
if (editorPath && app) {
  // The editor beside the chat (stacked on a narrow screen: the page's own style).
  const split = document.body.createDiv({ cls: "smarthole-page-split" });
  const pane = split.createDiv({ cls: "smarthole-page-editor" });
  split.appendChild(app);
  void mountPageEditor(pane, editorPath, runtime, (text) => banner?.setText(text)).then(
    (editor) => {
      vault.open = editor;
      smarthole.editor = editor.view;
      smarthole.editorSaved = () => editor.saved();
      smarthole.inlineDraws = editor.draws;
    },
    (error: unknown) => banner?.setText(String(error)),
  );
}
void runtime.start();

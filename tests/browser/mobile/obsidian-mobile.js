// The `obsidian` module as the mobile app gives it, for dist/main.js in a browser page: Platform
// says mobile, `require` of any Node built-in fails, and the vault (notes and `.smarthole/`) lives
// behind an adapter backed by the page — an in-memory tree written through to IndexedDB, so a
// reload of the page (a crash) keeps what was written, and nothing else. No fs anywhere.
// `requestUrl` goes through the test (window.__requestUrl, exposed by Playwright): like the app's,
// it is not subject to CORS and does not stream. CodeMirror 6 (@codemirror/state and view) is
// the app's own, as Obsidian supplies it (window.__codemirror, from /codemirror.js); a note can be
// open in a Markdown view whose Editor is a real CodeMirror view (openInEditor). Loaded as a
// classic script; sets window.mobile.
"use strict";
(() => {
  // Obsidian's DOM helpers on every element (as js-shim/src/page/dom-helpers.ts gives a page).
  const make = (parent, tag, info) => {
    const el = document.createElement(tag);
    const o = typeof info === "string" ? { text: info } : (info ?? {});
    for (const c of Array.isArray(o.cls) ? o.cls : (o.cls ?? "").split(" ")) if (c) el.classList.add(c);
    if (o.text !== undefined) el.textContent = o.text;
    for (const [k, v] of Object.entries(o.attr ?? {})) if (v !== null && v !== false) el.setAttribute(k, String(v));
    parent.appendChild(el);
    return el;
  };
  Object.assign(HTMLElement.prototype, {
    createEl(tag, info) { return make(this, tag, info); },
    createDiv(info) { return make(this, "div", info); },
    createSpan(info) { return make(this, "span", info); },
    setText(t) { this.textContent = t; },
    empty() { this.replaceChildren(); },
    addClass(...c) { this.classList.add(...c); },
    removeClass(...c) { this.classList.remove(...c); },
    hasClass(c) { return this.classList.contains(c); },
    toggleClass(c, v) { this.classList.toggle(c, v); },
  });
  // And Obsidian's global makers of detached elements.
  globalThis.createEl = (tag, info) => {
    const el = make(document.createDocumentFragment(), tag, info);
    el.remove();
    return el;
  };
  globalThis.createDiv = (info) => globalThis.createEl("div", info);
  globalThis.createSpan = (info) => globalThis.createEl("span", info);
  globalThis.activeWindow = window;
  globalThis.activeDocument = document;

  const DB = "smarthole-mobile-vault";
  /** path → { folder: true } | { data, ctime, mtime }: the vault as the adapter sees it. */
  const files = new Map();
  let db = null;
  const notices = [];
  const requests = [];
  /** Every module main.js asked for and did not get (a Node built-in). */
  const refused = [];
  /** The note open in the editor, and every note the plugin opened ({path, line}). */
  let active = null;
  const opened = [];
  /** The user opens a note in the editor: it is the active file, and "file-open" fires. */
  function openNote(p) {
    active = p;
    window.mobile.app.workspace.trigger("file-open", p ? new TFile(p) : null);
  }
  /** A test can freeze the adapter at a call (a crash): `crashAt = (op, path) => boolean`. */
  const control = { crashAt: null, crashed: null };

  const idb = (mode, fn) =>
    new Promise((resolve, reject) => {
      const tx = db.transaction("entries", mode);
      const result = fn(tx.objectStore("entries"));
      tx.oncomplete = () => resolve(result?.result);
      tx.onerror = () => reject(tx.error);
    });

  async function openStore() {
    db = await new Promise((resolve, reject) => {
      const open = indexedDB.open(DB, 1);
      open.onupgradeneeded = () => open.result.createObjectStore("entries");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    files.clear();
    const [keys, values] = await Promise.all([idb("readonly", (s) => s.getAllKeys()), idb("readonly", (s) => s.getAll())]);
    keys.forEach((k, i) => files.set(k, values[i]));
  }
  /** Every change is durable once its promise resolves (IndexedDB transaction complete). */
  const persist = (path, entry) => idb("readwrite", (s) => (entry ? s.put(entry, path) : s.delete(path)));
  const frozen = () => new Promise(() => {});
  function crashPoint(op, path) {
    if (control.crashed) return true;
    if (control.crashAt?.(op, path)) {
      control.crashed = { op, path };
      return true;
    }
    return false;
  }
  const parentOf = (p) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
  async function ensureFolders(p) {
    for (let dir = parentOf(p); dir && !files.has(dir); dir = parentOf(dir)) {
      files.set(dir, { folder: true });
      await persist(dir, { folder: true });
    }
  }
  async function put(p, data) {
    await ensureFolders(p);
    const now = Date.now();
    const entry = { data, ctime: files.get(p)?.ctime ?? now, mtime: now };
    files.set(p, entry);
    await persist(p, entry);
  }
  const children = (dir) => [...files.keys()].filter((k) => parentOf(k) === dir && k !== dir);

  /** The mobile app's adapter (Capacitor): not a FileSystemAdapter, no base path, no fs. */
  class CapacitorAdapter {
    async exists(p) {
      return files.has(p);
    }
    async read(p) {
      const e = files.get(p);
      if (!e || e.folder) throw new Error(`ENOENT: ${p}`);
      return e.data;
    }
    async write(p, data) {
      if (crashPoint("write", p)) return frozen();
      await put(p, data);
    }
    async readBinary(p) {
      const e = files.get(p);
      if (!e || e.folder) throw new Error(`ENOENT: ${p}`);
      return typeof e.data === "string" ? new TextEncoder().encode(e.data).buffer : e.data.slice().buffer;
    }
    async writeBinary(p, data) {
      if (crashPoint("write", p)) return frozen();
      await put(p, new Uint8Array(data.slice(0)));
    }
    async append(p, data) {
      if (crashPoint("append", p)) return frozen();
      await put(p, (files.get(p)?.data ?? "") + data);
    }
    async mkdir(p) {
      if (!files.has(p)) {
        await ensureFolders(`${p}/x`);
      }
    }
    async list(p) {
      const names = children(p);
      return { files: names.filter((k) => !files.get(k).folder), folders: names.filter((k) => files.get(k).folder) };
    }
    async stat(p) {
      const e = files.get(p);
      if (!e) return null;
      const size = typeof e.data === "string" ? new TextEncoder().encode(e.data).length : e.data.byteLength;
      return e.folder ? { type: "folder", ctime: 0, mtime: 0, size: 0 } : { type: "file", ctime: e.ctime, mtime: e.mtime, size };
    }
    async remove(p) {
      if (crashPoint("remove", p)) return frozen();
      if (!files.has(p)) throw new Error(`ENOENT: ${p}`);
      files.delete(p);
      await persist(p, null);
    }
    async rename(a, b) {
      if (crashPoint("rename", a)) return frozen();
      if (files.has(b)) throw new Error("Destination file already exists!");
      const e = files.get(a);
      if (!e) throw new Error(`ENOENT: ${a}`);
      await ensureFolders(b);
      files.delete(a);
      files.set(b, e);
      await idb("readwrite", (s) => (s.delete(a), s.put(e, b)));
    }
  }
  class FileSystemAdapter {}

  class TAbstractFile {
    constructor(p) {
      this.path = p;
      this.name = p.slice(p.lastIndexOf("/") + 1);
    }
  }
  class TFile extends TAbstractFile {
    get stat() {
      const e = files.get(this.path);
      return { size: new TextEncoder().encode(e?.data ?? "").length, ctime: e?.ctime ?? 0, mtime: e?.mtime ?? 0 };
    }
  }
  class TFolder extends TAbstractFile {
    isRoot() {
      return this.path === "/";
    }
  }
  const hidden = (p) => p.split("/").some((part) => part.startsWith("."));
  const wrap = (p) => (files.get(p)?.folder ? new TFolder(p) : new TFile(p));

  class Vault {
    constructor() {
      this.adapter = new CapacitorAdapter();
      this.configDir = ".obsidian";
      this.handlers = {};
    }
    on(name, callback) {
      (this.handlers[name] ??= []).push(callback);
      return { name, callback };
    }
    getAllLoadedFiles() {
      return [new TFolder("/"), ...[...files.keys()].filter((k) => !hidden(k)).map(wrap)];
    }
    getAbstractFileByPath(p) {
      return files.has(p) && !hidden(p) ? wrap(p) : null;
    }
    getFileByPath(p) {
      const f = this.getAbstractFileByPath(p);
      return f instanceof TFile ? f : null;
    }
    getFolderByPath(p) {
      const f = this.getAbstractFileByPath(p);
      return f instanceof TFolder ? f : null;
    }
    async cachedRead(file) {
      return this.adapter.read(file.path);
    }
    async readBinary(file) {
      return new TextEncoder().encode(await this.adapter.read(file.path)).buffer;
    }
    async create(p, data) {
      if (files.has(p)) throw new Error("File already exists.");
      await put(p, data);
      return new TFile(p);
    }
    async createFolder(p) {
      await this.adapter.mkdir(p);
      return new TFolder(p);
    }
    async process(file, fn) {
      const next = fn(await this.adapter.read(file.path));
      await put(file.path, next);
      return next;
    }
    async append(file, data) {
      await put(file.path, (await this.adapter.read(file.path)) + data);
    }
  }
  class FileManager {
    async trashFile(file) {
      await this.rename(file.path, `.trash/${file.name}`);
    }
    async renameFile(file, to) {
      await this.rename(file.path, to);
    }
    async rename(from, to) {
      const e = files.get(from);
      await ensureFolders(to);
      files.delete(from);
      files.set(to, e);
      await idb("readwrite", (s) => (s.delete(from), s.put(e, to)));
    }
  }

  class Component {
    constructor() {
      this._cleanups = [];
    }
    register(cb) {
      this._cleanups.push(cb);
    }
    registerDomEvent(target, type, cb) {
      target.addEventListener(type, cb);
      this._cleanups.push(() => target.removeEventListener(type, cb));
    }
    registerInterval(id) {
      this._cleanups.push(() => clearInterval(id));
      return id;
    }
    registerEvent() {}
    unload() {
      for (const cb of this._cleanups.splice(0)) cb();
    }
  }
  class Notice {
    constructor(message) {
      this.messageEl = document.createElement("div");
      this.messageEl.textContent = String(message);
      notices.push(String(message));
    }
    hide() {}
  }
  class Plugin extends Component {
    constructor(app, manifest) {
      super();
      this.app = app;
      this.manifest = manifest;
      this.registered = { views: [], commands: [], tabs: [], statusBar: [], editorExtensions: [] };
    }
    async loadData() {
      return this.app.__data;
    }
    async saveData(data) {
      this.app.__data = data;
    }
    registerView(type, factory) {
      this.registered.views.push({ type, factory });
    }
    addRibbonIcon() {
      return document.createElement("div");
    }
    addCommand(c) {
      this.registered.commands.push(c);
      return c;
    }
    addSettingTab(tab) {
      this.registered.tabs.push(tab);
    }
    registerEditorExtension(extension) {
      this.registered.editorExtensions.push(extension);
    }
    addStatusBarItem() {
      const el = document.createElement("div");
      this.registered.statusBar.push(el);
      return el;
    }
  }
  class ItemView extends Component {
    constructor(leaf) {
      super();
      this.leaf = leaf;
      this.app = leaf.app;
      this.containerEl = leaf.containerEl;
      this.contentEl = leaf.containerEl.createDiv({ cls: "view-content" });
    }
  }
  class PluginSettingTab {
    constructor(app, plugin) {
      this.app = app;
      this.plugin = plugin;
      this.containerEl = document.createElement("div");
      this.containerEl.className = "vertical-tab-content";
    }
  }
  class Modal {
    constructor(app) {
      this.app = app;
      this.contentEl = document.createElement("div");
    }
    open() {
      this.contentEl.className = "modal-content";
      document.body.append(this.contentEl);
      this.onOpen?.();
    }
    close() {
      this.onClose?.();
      this.contentEl.remove();
    }
    setTitle() {
      return this;
    }
  }

  class FuzzySuggestModal extends Modal {
    setPlaceholder() {
      return this;
    }
  }

  /** Settings rows drawn as the app draws them (name, description, controls). */
  class Control {
    constructor(el) {
      this.el = el;
      this.inputEl = el;
      this.buttonEl = el;
    }
    setValue(v) {
      if (this.el.type === "checkbox") this.el.checked = Boolean(v);
      else this.el.value = v;
      return this;
    }
    onChange(cb) {
      this.el.addEventListener(this.el.type === "checkbox" ? "change" : "input", () => cb(this.el.type === "checkbox" ? this.el.checked : this.el.value));
      return this;
    }
    onClick(cb) {
      this.el.addEventListener("click", cb);
      return this;
    }
    setButtonText(t) {
      this.el.textContent = t;
      return this;
    }
    setPlaceholder(t) {
      this.el.placeholder = t;
      return this;
    }
    setCta() {
      this.el.classList.add("mod-cta");
      return this;
    }
    setClass(c) {
      this.el.classList.add(c);
      return this;
    }
    setDisabled(d) {
      this.el.disabled = d;
      return this;
    }
    setTooltip() {
      return this;
    }
    addOption(value, text) {
      this.el.createEl("option", { text, attr: { value } });
      return this;
    }
  }
  class Setting {
    constructor(container) {
      this.settingEl = container.createDiv({ cls: "setting-item" });
      this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
      this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
      this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
      this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
    }
    setName(t) {
      this.nameEl.textContent = t;
      return this;
    }
    setDesc(t) {
      if (typeof t === "string") this.descEl.textContent = t;
      else this.descEl.append(t);
      return this;
    }
    setHeading() {
      this.settingEl.classList.add("setting-item-heading");
      return this;
    }
    setClass(c) {
      this.settingEl.classList.add(c);
      return this;
    }
    add(tag, cb, attr) {
      const c = new Control(this.controlEl.createEl(tag, { attr }));
      cb(c);
      return this;
    }
    addText(cb) {
      return this.add("input", cb, { type: "text" });
    }
    addTextArea(cb) {
      return this.add("textarea", cb);
    }
    addToggle(cb) {
      return this.add("input", cb, { type: "checkbox" });
    }
    addButton(cb) {
      return this.add("button", cb);
    }
    addExtraButton(cb) {
      return this.add("button", cb);
    }
    addDropdown(cb) {
      return this.add("select", cb);
    }
    addComponent(cb) {
      cb(this.controlEl);
      return this;
    }
  }
  class SecretComponent extends Control {
    constructor(app, el) {
      super(el.createEl("input", { attr: { type: "text" } }));
    }
  }

  const codemirror = window.__codemirror;
  /** Which note a Markdown editor shows (Obsidian's StateField of the same name). */
  const editorInfoField = codemirror.state.StateField.define({ create: () => ({ file: null }), update: (info) => info });
  /** Obsidian's Editor over a CodeMirror view: positions as {line, ch} from 0. */
  class Editor {
    constructor(cm) {
      this.cm = cm;
    }
    getValue() {
      return this.cm.state.doc.toString();
    }
    offsetToPos(offset) {
      const line = this.cm.state.doc.lineAt(offset);
      return { line: line.number - 1, ch: offset - line.from };
    }
    posToOffset(pos) {
      return this.cm.state.doc.line(pos.line + 1).from + pos.ch;
    }
    transaction(tx) {
      const changes = (tx.changes ?? []).map((c) => ({ from: this.posToOffset(c.from), to: c.to ? this.posToOffset(c.to) : undefined, insert: c.text }));
      this.cm.dispatch({ changes });
    }
  }
  /** A note shown in the editor. */
  class MarkdownView {
    constructor(leaf, file, editor) {
      this.leaf = leaf;
      this.app = leaf.app;
      this.file = file;
      this.editor = editor;
    }
    getViewType() {
      return "markdown";
    }
  }

  const MarkdownRenderer = {
    render: async (_app, markdown, el) => {
      for (const p of markdown.split(/\n{2,}/)) el.createEl("p", { text: p });
    },
  };
  const Platform = { isDesktop: false, isDesktopApp: false, isMobile: true, isMobileApp: true, isPhone: true, isTablet: false, isIosApp: false, isAndroidApp: true };
  const normalizePath = (p) => p.replace(/\\/g, "/").replace(/\/+/g, "/").replace(/^\/|\/$/g, "");

  /** Like the app's: outside CORS, the whole body at once. */
  async function requestUrl(spec) {
    requests.push({ url: spec.url, method: spec.method });
    const res = await window.__requestUrl(spec);
    const bytes = Uint8Array.from(atob(res.body), (c) => c.charCodeAt(0));
    const text = new TextDecoder().decode(bytes);
    return { status: res.status, headers: res.headers, arrayBuffer: bytes.buffer, text, get json() { return JSON.parse(text); } };
  }

  const obsidian = {
    Notice, Component, Plugin, ItemView, PluginSettingTab, Modal, FuzzySuggestModal, Setting, SecretComponent, MarkdownRenderer,
    Platform, FileSystemAdapter, TAbstractFile, TFile, TFolder, normalizePath, requestUrl, Events: class {},
    MarkdownView, editorInfoField,
  };

  /** A CommonJS `require` like the app's on a phone: `obsidian`, and no Node built-in at all. */
  function requireOnPhone(name) {
    if (name === "obsidian") return obsidian;
    if (name === "@codemirror/state") return codemirror.state;
    if (name === "@codemirror/view") return codemirror.view;
    refused.push(name);
    throw new Error(`Cannot find module '${name}' (no Node on mobile)`);
  }

  /** Loads dist/main.js (its text), starts the plugin as the app does, opens the chat. With
   *  `desktop`, Platform says the desktop app (the vault's adapter and `require` stay a phone's:
   *  for what the settings draw, which asks nothing of Node until a program starts). */
  async function boot({ code, data, secrets, desktop = false }) {
    Object.assign(Platform, { isDesktop: desktop, isDesktopApp: desktop, isMobile: !desktop, isMobileApp: !desktop, isPhone: !desktop, isAndroidApp: !desktop });
    await openStore();
    const started = performance.now();
    const module = { exports: {} };
    new Function("module", "exports", "require", code)(module, module.exports, requireOnPhone);
    const layout = [];
    const vault = new Vault();
    const app = {
      __data: data ?? null,
      vault,
      fileManager: new FileManager(),
      secretStorage: { getSecret: (id) => secrets?.[id] ?? null, setSecret: () => {}, listSecrets: () => Object.keys(secrets ?? {}) },
      workspace: {
        onLayoutReady: (cb) => layout.push(cb),
        getLeavesOfType: (t) => leaves.filter((l) => l.type === t),
        // A phone's right drawer: a new leaf, shown in place of the others once revealed.
        getRightLeaf: () => newLeaf(),
        revealLeaf: async (shown) => {
          for (const l of leaves) l.containerEl.hidden = l !== shown;
        },
        getActiveFile: () => (active ? new TFile(active) : null),
        // The editor's leaf: the note opened (recorded, at `eState.line`) becomes the active one.
        getLeaf: () => ({
          openFile: async (file, state) => {
            opened.push({ path: file.path, line: state?.eState?.line });
            openNote(file.path);
          },
        }),
        // Workspace events ("file-open", "editor-menu"): a test fires them through `trigger`.
        handlers: {},
        on(name, callback) {
          (this.handlers[name] ??= []).push(callback);
          return { name, callback };
        },
        offref(ref) {
          this.handlers[ref.name] = (this.handlers[ref.name] ?? []).filter((c) => c !== ref.callback);
        },
        trigger(name, ...args) {
          for (const callback of this.handlers[name] ?? []) callback(...args);
        },
      },
    };
    const root = document.getElementById("app");
    const leaves = [];
    const newLeaf = () => {
      const made = {
        app,
        type: null,
        containerEl: root.createDiv({ cls: "workspace-leaf-content" }),
        async setViewState({ type }) {
          this.type = type;
          this.view = plugin.registered.views.find((v) => v.type === type).factory(this);
          await this.view.onOpen();
        },
      };
      leaves.push(made);
      return made;
    };
    const leaf = newLeaf();
    active = null;
    const Plugin = module.exports.default;
    const plugin = new Plugin(app, { id: "smarthole-agent", version: "0.1.0" });
    await plugin.onload();
    layout.splice(0).forEach((cb) => cb());
    // The user opens the chat (ribbon icon), as on a phone: a full-screen leaf.
    await leaf.setViewState({ type: "smarthole-agent-chat" });
    window.mobile.plugin = plugin;
    window.mobile.app = app;
    /** The user opens `path` in a Markdown editor (text as on disk), the plugin's editor
     *  extensions in it; returns its CodeMirror view. */
    window.mobile.openInEditor = (path) => {
      const file = new TFile(path);
      const made = { app, type: "markdown" };
      const cm = new codemirror.view.EditorView({
        parent: root.createDiv({ cls: "markdown-source-view" }),
        state: codemirror.state.EditorState.create({
          doc: files.get(path)?.data ?? "",
          extensions: [editorInfoField.init(() => ({ file })), plugin.registered.editorExtensions],
        }),
      });
      made.view = new MarkdownView(made, file, new Editor(cm));
      leaves.push(made);
      return cm;
    };
    /** The editor menu as the app builds it for `editor` and `info`: its items, each with the
     *  title and the click the plugin gave it. */
    window.mobile.editorMenu = (editor, info) => {
      const items = [];
      const menu = {
        addItem(build) {
          const item = { setTitle: (t) => ((item.title = t), item), setIcon: () => item, onClick: (cb) => ((item.click = cb), item) };
          build(item);
          items.push(item);
          return menu;
        },
      };
      app.workspace.trigger("editor-menu", menu, editor, info);
      return items;
    };
    return started;
  }

  /** Draws the settings tab where the chat was (the app shows it full screen on a phone). */
  function openSettings() {
    const tab = window.mobile.plugin.registered.tabs[0];
    const root = document.getElementById("app");
    root.replaceChildren(tab.containerEl);
    tab.display();
  }

  async function wipe() {
    await openStore();
    await idb("readwrite", (s) => s.clear());
    files.clear();
  }

  /** Runs one of the plugin's commands by its id (the command palette). */
  const command = (id) => window.mobile.plugin.registered.commands.find((c) => c.id === id).callback();

  window.mobile = { boot, openSettings, wipe, files, notices, requests, refused, control, put: (p, d) => put(p, d), openNote, opened, command };
})();

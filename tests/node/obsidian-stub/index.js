// A stand-in for the `obsidian` module (which has no runtime code on npm): just enough of the
// API for dist/main.js to load, register, start its core and unload in Node. The vault adapter is
// a real folder. Everything the plugin registers is recorded for the tests.
"use strict";
const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");

const notices = [];
class Notice {
  constructor(message, duration) {
    this.text = String(message);
    this.duration = duration;
    this.hidden = false;
    this.messageEl = { listeners: {}, addEventListener: (type, cb) => (this.messageEl.listeners[type] = cb) };
    notices.push(String(message));
    notices.objects = notices.objects ?? [];
    notices.objects.push(this);
  }
  hide() {
    this.hidden = true;
  }
}

class Events {}

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

function fakeElement() {
  const el = { text: "", attrs: {}, children: [] };
  el.setText = (t) => (el.text = t);
  el.setAttribute = (k, v) => (el.attrs[k] = v);
  el.empty = () => (el.children = []);
  el.createEl = (tag, o) => {
    const child = fakeElement();
    child.tag = tag;
    child.text = typeof o === "string" ? o : (o?.text ?? "");
    el.children.push(child);
    return child;
  };
  el.createDiv = (o) => el.createEl("div", o);
  el.createSpan = (o) => el.createEl("span", o);
  return el;
}

class FileSystemAdapter {
  constructor(base) {
    this.base = base;
  }
  getBasePath() {
    return this.base;
  }
  getFullPath(p) {
    return path.join(this.base, p);
  }
  async exists(p) {
    return fs.existsSync(this.getFullPath(p));
  }
  async read(p) {
    return fsp.readFile(this.getFullPath(p), "utf8");
  }
  async write(p, data) {
    await fsp.writeFile(this.getFullPath(p), data);
  }
  async append(p, data) {
    await fsp.appendFile(this.getFullPath(p), data);
  }
  async mkdir(p) {
    await fsp.mkdir(this.getFullPath(p), { recursive: true });
  }
  async list(p) {
    const entries = await fsp.readdir(this.getFullPath(p), { withFileTypes: true });
    return {
      files: entries.filter((e) => e.isFile()).map((e) => `${p}/${e.name}`),
      folders: entries.filter((e) => e.isDirectory()).map((e) => `${p}/${e.name}`),
    };
  }
  async stat(p) {
    try {
      const st = await fsp.stat(this.getFullPath(p));
      return { type: st.isDirectory() ? "folder" : "file", size: st.size, ctime: Math.round(st.birthtimeMs), mtime: Math.round(st.mtimeMs) };
    } catch {
      return null;
    }
  }
  async remove(p) {
    await fsp.rm(this.getFullPath(p), { force: true });
  }
  async rename(a, b) {
    if (fs.existsSync(this.getFullPath(b))) throw new Error("Destination file already exists!");
    await fsp.rename(this.getFullPath(a), this.getFullPath(b));
  }
}

class TAbstractFile {
  constructor(vault, p) {
    this.vault = vault;
    this.path = p;
    this.name = p.slice(p.lastIndexOf("/") + 1);
  }
}
class TFile extends TAbstractFile {
  get stat() {
    const st = fs.statSync(path.join(this.vault.base, this.path));
    return { size: st.size, ctime: Math.round(st.birthtimeMs), mtime: Math.round(st.mtimeMs) };
  }
}
class TFolder extends TAbstractFile {
  isRoot() {
    return this.path === "/";
  }
}

/** The vault's notes API over the same folder, as Obsidian indexes it (hidden folders left out). */
class Vault {
  constructor(base) {
    this.base = base;
    this.adapter = new FileSystemAdapter(base);
    this.configDir = ".obsidian";
  }
  full(p) {
    return path.join(this.base, p);
  }
  /** Obsidian's Events API: handlers by name ("create", "modify", "delete", "rename"); the stub
   * fires none itself, a test can through `trigger`. */
  on(name, callback) {
    this.handlers ??= {};
    (this.handlers[name] ??= []).push(callback);
    return { name, callback };
  }
  trigger(name, ...args) {
    for (const callback of this.handlers?.[name] ?? []) callback(...args);
  }
  getAllLoadedFiles() {
    const out = [new TFolder(this, "/")];
    const walk = (dir, prefix) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (e.name.startsWith(".")) continue;
        const rel = prefix ? `${prefix}/${e.name}` : e.name;
        if (e.isDirectory()) {
          out.push(new TFolder(this, rel));
          walk(path.join(dir, e.name), rel);
        } else out.push(new TFile(this, rel));
      }
    };
    walk(this.base, "");
    return out;
  }
  getAbstractFileByPath(p) {
    if (!fs.existsSync(this.full(p))) return null;
    return fs.statSync(this.full(p)).isDirectory() ? new TFolder(this, p) : new TFile(this, p);
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
    return fsp.readFile(this.full(file.path), "utf8");
  }
  async readBinary(file) {
    const bytes = await fsp.readFile(this.full(file.path));
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  }
  async create(p, data) {
    if (fs.existsSync(this.full(p))) throw new Error("File already exists.");
    await fsp.writeFile(this.full(p), data);
    return new TFile(this, p);
  }
  async createFolder(p) {
    await fsp.mkdir(this.full(p), { recursive: true });
    return new TFolder(this, p);
  }
  async process(file, fn) {
    const next = fn(await fsp.readFile(this.full(file.path), "utf8"));
    await fsp.writeFile(this.full(file.path), next);
    return next;
  }
  async append(file, data) {
    await fsp.appendFile(this.full(file.path), data);
  }
}

/** trashFile moves to the vault's .trash (the "Obsidian trash" setting); renameFile renames. */
class FileManager {
  constructor(vault) {
    this.vault = vault;
    this.trashed = [];
    this.renamed = [];
  }
  async trashFile(file) {
    await fsp.mkdir(this.vault.full(".trash"), { recursive: true });
    await fsp.rename(this.vault.full(file.path), this.vault.full(`.trash/${file.name}`));
    this.trashed.push(file.path);
  }
  async renameFile(file, to) {
    await fsp.rename(this.vault.full(file.path), this.vault.full(to));
    this.renamed.push([file.path, to]);
  }
}

class Plugin extends Component {
  constructor(app, manifest) {
    super();
    this.app = app;
    this.manifest = manifest;
    this.registered = { views: [], ribbons: [], commands: [], tabs: [], statusBar: [], editorExtensions: [] };
  }
  async loadData() {
    return this.app.__data ?? null;
  }
  async saveData(data) {
    this.app.__data = data;
  }
  registerView(type, factory) {
    this.registered.views.push({ type, factory });
  }
  addRibbonIcon(icon, title, cb) {
    this.registered.ribbons.push({ icon, title, cb });
    return fakeElement();
  }
  addCommand(command) {
    this.registered.commands.push(command);
    return command;
  }
  addSettingTab(tab) {
    this.registered.tabs.push(tab);
  }
  registerEditorExtension(extension) {
    this.registered.editorExtensions.push(extension);
  }
  addStatusBarItem() {
    const el = fakeElement();
    this.registered.statusBar.push(el);
    return el;
  }
}

class ItemView extends Component {
  constructor(leaf) {
    super();
    this.leaf = leaf;
    this.contentEl = fakeElement();
  }
}
/** A note shown in the editor (none is open in these tests: no leaf is a Markdown view). */
class MarkdownView extends ItemView {}
/** Which note a Markdown editor shows: only read from an editor's state, and Node has no editor. */
const editorInfoField = {};

class PluginSettingTab {
  constructor(app, plugin) {
    this.app = app;
    this.plugin = plugin;
    this.containerEl = fakeElement();
  }
}
class Modal {
  constructor(app) {
    this.app = app;
    this.contentEl = fakeElement();
  }
  open() {}
  close() {}
  setTitle() {
    return this;
  }
}
/** Obsidian's fuzzy picker: opening it records the items offered; `choose(i)` picks one. */
class FuzzySuggestModal extends Modal {
  static opened = [];
  open() {
    FuzzySuggestModal.opened.push(this);
  }
  setPlaceholder() {
    return this;
  }
  choose(index) {
    this.onChooseItem(this.getItems()[index]);
  }
}
/** Any settings builder: every method is accepted and chains; `add*(cb)` calls `cb` with another
 * builder, as Obsidian calls it with a component; a property (`inputEl`) is a builder too.
 * Enough for the settings tab to render here. */
function builder(target = function () {}) {
  const proxy = new Proxy(target, {
    get(t, k) {
      if (typeof k === "symbol" || k === "then") return undefined;
      if (Object.hasOwn(t, k)) return t[k];
      if (k.startsWith("add")) {
        return (cb) => {
          if (typeof cb === "function") cb(builder(), fakeElement());
          return proxy;
        };
      }
      return builder();
    },
    set: (t, k, v) => ((t[k] = v), true),
    apply: () => proxy,
  });
  return proxy;
}

/** Every Setting rendered, with its name and description (tests read `__test.settings`). */
const settings = [];
class Setting {
  constructor() {
    const record = Object.assign(function () {}, { desc: "" });
    Object.defineProperty(record, "name", { value: "", writable: true });
    const proxy = builder(record);
    record.setName = (n) => ((record.name = String(n)), proxy);
    record.setDesc = (d) => ((record.desc = String(d)), proxy);
    settings.push(record);
    return proxy;
  }
}
class SecretComponent {
  constructor() {
    return builder();
  }
}

const MarkdownRenderer = { render: async () => {} };
const Platform = { isDesktop: true, isDesktopApp: true, isMobile: false };
const normalizePath = (p) => p.replace(/\\/g, "/").replace(/\/+/g, "/").replace(/^\/|\/$/g, "");

async function requestUrl() {
  throw new Error("requestUrl is not used in these tests");
}

/** A fake Obsidian app over a vault folder. */
function createApp(vault, { secrets = {}, data = null } = {}) {
  const layoutCallbacks = [];
  const theVault = new Vault(vault);
  const app = {
    __data: data,
    __active: null,
    vault: theVault,
    fileManager: new FileManager(theVault),
    secretStorage: { getSecret: (id) => secrets[id] ?? null, setSecret: () => {}, listSecrets: () => Object.keys(secrets) },
    workspace: {
      onLayoutReady: (cb) => layoutCallbacks.push(cb),
      getLeavesOfType: () => [],
      getRightLeaf: () => null,
      revealLeaf: async () => {},
      getActiveFile: () => (app.__active ? new TFile(theVault, app.__active) : null),
      opened: [],
      openLinkText: async (link) => app.workspace.opened.push(link),
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
    __layoutReady: () => layoutCallbacks.splice(0).forEach((cb) => cb()),
  };
  return app;
}

module.exports = {
  Notice,
  Events,
  Component,
  Plugin,
  ItemView,
  PluginSettingTab,
  Modal,
  FuzzySuggestModal,
  Setting,
  SecretComponent,
  MarkdownRenderer,
  Platform,
  FileSystemAdapter,
  TAbstractFile,
  TFile,
  TFolder,
  normalizePath,
  requestUrl,
  MarkdownView,
  editorInfoField,
  __test: { notices, createApp, settings },
};

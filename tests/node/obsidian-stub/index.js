// A stand-in for the `obsidian` module (which has no runtime code on npm): just enough of the
// API for dist/main.js to load, register, start its core and unload in Node. The vault adapter is
// a real folder. Everything the plugin registers is recorded for the tests.
"use strict";
const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");

const notices = [];
class Notice {
  constructor(message) {
    notices.push(String(message));
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
  async remove(p) {
    await fsp.rm(this.getFullPath(p), { force: true });
  }
  async rename(a, b) {
    if (fs.existsSync(this.getFullPath(b))) throw new Error("Destination file already exists!");
    await fsp.rename(this.getFullPath(a), this.getFullPath(b));
  }
}

class Plugin extends Component {
  constructor(app, manifest) {
    super();
    this.app = app;
    this.manifest = manifest;
    this.registered = { views: [], ribbons: [], commands: [], tabs: [], statusBar: [] };
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
class Setting {
  constructor() {}
}
class SecretComponent {}

const MarkdownRenderer = { render: async () => {} };
const Platform = { isDesktop: true, isDesktopApp: true, isMobile: false };
const normalizePath = (p) => p.replace(/\\/g, "/").replace(/\/+/g, "/").replace(/^\/|\/$/g, "");

async function requestUrl() {
  throw new Error("requestUrl is not used in these tests");
}

/** A fake Obsidian app over a vault folder. */
function createApp(vault, { secrets = {}, data = null } = {}) {
  const layoutCallbacks = [];
  return {
    __data: data,
    vault: { adapter: new FileSystemAdapter(vault), configDir: ".obsidian" },
    secretStorage: { getSecret: (id) => secrets[id] ?? null, setSecret: () => {}, listSecrets: () => Object.keys(secrets) },
    workspace: {
      onLayoutReady: (cb) => layoutCallbacks.push(cb),
      getLeavesOfType: () => [],
      getRightLeaf: () => null,
      revealLeaf: async () => {},
    },
    __layoutReady: () => layoutCallbacks.splice(0).forEach((cb) => cb()),
  };
}

module.exports = {
  Notice,
  Events,
  Component,
  Plugin,
  ItemView,
  PluginSettingTab,
  Modal,
  Setting,
  SecretComponent,
  MarkdownRenderer,
  Platform,
  FileSystemAdapter,
  normalizePath,
  requestUrl,
  __test: { notices, createApp },
};

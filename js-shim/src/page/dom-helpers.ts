// Obsidian adds small DOM helpers to every element (createDiv, createEl, setText, empty,
// toggleClass…). The chat panel uses them; a plain page (tests, the demo's browser mode)
// installs these equivalents first. Inside Obsidian this file is not used.

interface ElementInfo {
  cls?: string | string[];
  text?: string;
  attr?: Record<string, string | number | boolean | null>;
}

function make<K extends keyof HTMLElementTagNameMap>(parent: Node, tag: K, info?: ElementInfo | string): HTMLElementTagNameMap[K] {
  const el = (parent.ownerDocument ?? document).createElement(tag);
  const o: ElementInfo = typeof info === "string" ? { text: info } : (info ?? {});
  const classes = Array.isArray(o.cls) ? o.cls : (o.cls ?? "").split(" ");
  for (const c of classes) if (c) el.classList.add(c);
  if (o.text !== undefined) el.textContent = o.text;
  for (const [k, v] of Object.entries(o.attr ?? {})) if (v !== null && v !== false) el.setAttribute(k, String(v));
  parent.appendChild(el);
  return el;
}

/** Installs the helpers when they are missing: the element makers on Node.prototype (as
 * Obsidian has them) and as globals, the rest on HTMLElement.prototype. */
export function installDomHelpers(): void {
  const node = Node.prototype as unknown as Record<string, unknown>;
  if (typeof node.createEl === "function") return;
  Object.assign(node, {
    createEl(this: Node, tag: keyof HTMLElementTagNameMap, info?: ElementInfo | string) {
      return make(this, tag, info);
    },
    createDiv(this: Node, info?: ElementInfo | string) {
      return make(this, "div", info);
    },
    createSpan(this: Node, info?: ElementInfo | string) {
      return make(this, "span", info);
    },
    appendText(this: Node, text: string) {
      this.appendChild((this.ownerDocument ?? document).createTextNode(text));
    },
  });
  // Obsidian's global makers of a detached element (the editor's widgets make their roots so).
  const detached = () => document.createDocumentFragment();
  Object.assign(window, {
    createEl: (tag: keyof HTMLElementTagNameMap, info?: ElementInfo | string) => make(detached(), tag, info),
    createDiv: (info?: ElementInfo | string) => make(detached(), "div", info),
    createSpan: (info?: ElementInfo | string) => make(detached(), "span", info),
  });
  Object.assign(HTMLElement.prototype, {
    setText(this: HTMLElement, text: string) {
      this.textContent = text;
    },
    empty(this: HTMLElement) {
      while (this.firstChild) this.removeChild(this.firstChild);
    },
    addClass(this: HTMLElement, ...classes: string[]) {
      this.classList.add(...classes);
    },
    removeClass(this: HTMLElement, ...classes: string[]) {
      this.classList.remove(...classes);
    },
    hasClass(this: HTMLElement, cls: string) {
      return this.classList.contains(cls);
    },
    toggleClass(this: HTMLElement, cls: string, value: boolean) {
      this.classList.toggle(cls, value);
    },
  });
}

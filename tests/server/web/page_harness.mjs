// Runs the page's app.js in Node against a real server, with a small stand-in for the DOM
// (only what app.js uses) and Node's own WebSocket: it enters a name, creates a table
// with three bots and taps the first playable card on each turn until the deal ends.
// With "drop", the connection is cut once after the third tap: the page must reconnect and
// reclaim its seat with its stored token to finish the deal.
// Usage: node --experimental-websocket page_harness.mjs APP_JS WEB_PORT NAME [drop]
import { pathToFileURL } from "node:url";

const [appPath, port, name, mode] = process.argv.slice(2);
const host = `127.0.0.1:${port}`;

class Node_ {
  constructor(tag) {
    this.tag = tag; this.children = []; this.listeners = {}; this.attrs = {};
    this.dataset = {}; this.className = ""; this.value = ""; this.checked = false;
    this._text = null;
  }
  get textContent() {
    return this._text !== null ? this._text : this.children.map((c) => c.textContent).join("");
  }
  set textContent(value) { this.children = []; this._text = String(value); }
  setAttribute(key, value) { this.attrs[key] = String(value); }
  addEventListener(kind, fn) { (this.listeners[kind] ||= []).push(fn); }
  append(...nodes) {
    for (const n of nodes) this.children.push(typeof n === "string" ? new Text_(n) : n);
  }
  replaceChildren() { this.children = []; this._text = null; }
  click() { for (const fn of this.listeners.click || []) fn({ preventDefault() {} }); }
  *walk() { yield this; for (const c of this.children) if (c.walk) yield* c.walk(); }
}
class Text_ { constructor(t) { this.textContent = t; } }

const app = new Node_("main");
const store = new Map([["jackal.name", name]]);
globalThis.document = {
  getElementById: () => app,
  createElement: (tag) => new Node_(tag),
  createTextNode: (t) => new Text_(t),
};
globalThis.location = { protocol: "http:", host, origin: `http://${host}`, hash: "",
                        pathname: "/" };
globalThis.history = { replaceState() {} };
globalThis.localStorage = {
  getItem: (k) => (store.has(k) ? store.get(k) : null),
  setItem: (k, v) => store.set(k, String(v)),
  removeItem: (k) => store.delete(k),
};
globalThis.window = { addEventListener() {} };
// A browser sends its page's origin; Node's WebSocket must be told to.
const Native = globalThis.WebSocket;
const sockets = [];
globalThis.WebSocket = class extends Native {
  constructor(url) { super(url, { headers: { origin: `http://${host}` } }); sockets.push(this); }
};

await import(pathToFileURL(appPath).href);

const find = (pred) => [...app.walk()].find(pred);
let created = false;
let taps = 0;
const timer = setInterval(() => {
  if (!created) {
    const create = find((n) => n.tag === "button" && n.textContent === "Create");
    if (create) { created = true; create.click(); }
    return;
  }
  const card = find((n) => n.tag === "button" && n.className.startsWith("card"));
  if (card) { taps += 1; card.click(); }
  if (mode === "drop" && taps === 3 && sockets.length === 1) sockets[0].close();
  if (find((n) => n.className === "summary")) {
    const rows = [...app.walk()].filter((n) => n.className === "played")
      .map((n) => n.children.length);
    const token = store.get("jackal.token");
    console.log(JSON.stringify({ taps, rows, token: Boolean(token), sockets: sockets.length,
                                 summary: find((n) => n.className === "summary").textContent }));
    clearInterval(timer);
    process.exit(0);
  }
}, 20);
setTimeout(() => { console.log(JSON.stringify({ stuck: app.textContent })); process.exit(1); },
           60000);

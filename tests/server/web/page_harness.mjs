// Runs the page's app.js (and its modules) in Node against a real server, with a small
// stand-in for the DOM (only what the page uses) and Node's own WebSocket. It finds
// things by the page's selector contract (ids, data-* attributes), as a browser test does.
// Modes:
//   solo     create a table with three bots and tap a playable card on each turn until
//            the deal ends; then print what the page shows.
//   drop     the same, with the connection cut once after the third tap: the page must
//            reconnect and reclaim its seat with its stored token.
//   pause    the same, but after the third tap print {"paused": true} and wait for a line
//            on stdin (the test restarts the server meanwhile), then play on.
//   host     create a private table with bots at N and W, print the invitation link of E,
//            say a chat line once E sits, then play as solo, asking E (a person) its
//            question and waiting for the answer before it plays on.
//   guest    open the link given as the fifth argument, sit, say ready, play, and answer
//            the questions put to it.
//   watch    watch the first table of the lobby, say a line to its spectators, and stop
//            once it has seen cards played and its line come back.
// Playing, the page also takes a hint on its first turn (where the table allows hints)
// and plays the hinted card, and asks an opponent about a played card once.
// A fifth argument in another mode is the server's password, typed in when asked for.
// Usage: node --experimental-websocket page_harness.mjs APP_JS WEB_PORT NAME MODE [LINK]
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const [appPath, port, name, mode, link] = process.argv.slice(2);
const host = `127.0.0.1:${port}`;

class Node_ {
  constructor(tag) {
    this.tag = tag; this.children = []; this.listeners = {}; this.attrs = {};
    this.className = ""; this.value = ""; this.checked = false; this._text = null;
  }
  get textContent() {
    return this._text !== null ? this._text : this.children.map((c) => c.textContent).join("");
  }
  set textContent(value) { this.children = []; this._text = String(value); }
  get firstChild() { return this.children[0]; }
  get lastChild() { return this.children[this.children.length - 1]; }
  setAttribute(key, value) { this.attrs[key] = String(value); }
  getAttribute(key) { return key in this.attrs ? this.attrs[key] : null; }
  hasAttribute(key) { return key in this.attrs; }
  addEventListener(kind, fn) { (this.listeners[kind] ||= []).push(fn); }
  append(...nodes) {
    for (const n of nodes) this.children.push(typeof n === "string" ? new Text_(n) : n);
  }
  replaceChildren() { this.children = []; this._text = null; }
  fire(kind) { for (const fn of this.listeners[kind] || []) fn({ preventDefault() {} }); }
  click() { if (!this.hasAttribute("disabled")) this.fire("click"); }
  *walk() { yield this; for (const c of this.children) if (c.walk) yield* c.walk(); }
}
class Text_ { constructor(t) { this.textContent = t; } }

const app = new Node_("main");
const store = new Map([["jackal.name", name]]);
const all = () => [...app.walk()];
const byId = (id) => all().find((n) => n.attrs.id === id);
globalThis.document = {
  getElementById: (id) => (id === "app" ? app : byId(id) || null),
  createElement: (tag) => new Node_(tag),
  createTextNode: (t) => new Text_(t),
};
globalThis.location = { protocol: "http:", host, origin: `http://${host}`,
                        hash: mode === "guest" ? link.slice(link.indexOf("#")) : "",
                        pathname: "/" };
globalThis.history = { replaceState() { globalThis.location.hash = ""; } };
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

const find = (pred) => all().find(pred);
const has = (n, attr, value) => n.attrs[attr] !== undefined
  && (value === undefined || n.attrs[attr] === value);
const table = () => find((n) => n.tag === "section" && n.className === "table");
const out = (obj) => console.log(JSON.stringify(obj));
const seen = { turnTexts: new Set(), clock: false, chat: [] };
let step = "start";
let taps = 0;
let waiting = false;
let grace = 0;

function chatLines() {
  const log = byId("chat-log");
  return log ? log.children.map((li) => li.textContent) : [];
}

function tapPlayable() {
  const hand = byId("hand");
  const card = hand && [...hand.walk()].find((n) => has(n, "data-playable"));
  if (!card) return false;
  // Every other card of the hand must say it is not playable now... and be a button.
  taps += 1;
  card.click();
  return true;
}

const timer = setInterval(() => {
  if (waiting) return;
  if (byId("password") && mode !== "guest") {
    // The server wants its password (given as the fifth argument): type it in.
    byId("password").value = link;
    [...app.walk()].find((n) => n.tag === "form" && n.className === "name").fire("submit");
    return;
  }
  const t = table();
  if (step === "start" && mode === "watch") {
    const watch = find((n) => has(n, "data-watch"));
    if (!watch) return;
    // What the lobby showed: every table's seat kinds and its sit buttons.
    seen.lobby = Object.fromEntries(all().filter((n) => n.tag === "li" && has(n, "data-table"))
      .map((li) => [li.attrs["data-table"], {
        kinds: [...li.walk()].filter((n) => has(n, "data-kind")).map((n) => n.attrs["data-kind"]),
        join: [...li.walk()].filter((n) => has(n, "data-join")).map((n) => n.attrs["data-join"]),
      }]));
    watch.click();
    step = "watching";
    return;
  }
  if (step === "start" && mode !== "guest") {
    const form = byId("create");
    if (!form) return;
    const check = (id, value) => { byId(id).checked = value; byId(id).fire("change"); };
    if (mode === "host") {
      check("botE", false);
      check("private", true);
    }
    byId("target").value = "1";
    byId("target").fire("input");
    [...form.walk()].find((n) => has(n, "data-action", "create")).click();
    form.fire("submit");
    step = "created";
    return;
  }
  if (!t) return;
  if (byId("clock") && byId("clock").textContent) seen.clock = true;
  if (mode === "host" && step === "created") {
    const invite = find((n) => has(n, "data-invite", "E"));
    if (invite) { out({ link: invite.textContent }); step = "invited"; }
    return;
  }
  if (mode === "host" && step === "invited") {
    const east = find((n) => has(n, "data-seat-name", "E"));
    if (east && east.textContent !== "(empty)") {
      byId("chat-input").value = "hello <b>east</b>";
      byId("chat").fire("submit");
      step = "play";
    }
    return;
  }
  if (mode === "guest" && step === "start") {
    if (t.attrs["data-you"] !== "E") return;
    if (!chatLines().some((line) => line.includes("hello <b>east</b>"))) return;
    const ready = find((n) => has(n, "data-action", "ready"));
    if (ready) { ready.click(); step = "play"; }
    return;
  }
  if (mode === "watch") {
    if (!t.attrs["data-you"] && !seen.said) {
      byId("chat-input").value = "nice play";
      byId("chat").fire("submit");
      seen.said = true;
    }
    const cards = ["N", "E", "S", "W"].map((s) => byId(`row-${s}`).children.length);
    if (cards.some((n) => n) && chatLines().some((line) => line.includes("nice play"))) {
      out({ you: t.attrs["data-you"] || null, hand: Boolean(byId("hand")), chat: chatLines(),
            lobby: seen.lobby, watched: t.attrs["data-table"],
            status: t.attrs["data-status"], ready: Boolean(find((n) => has(n, "data-action", "ready"))) });
      process.exit(0);
    }
    return;
  }
  const question = find((n) => n.tag === "form" && has(n, "data-question"));
  if (question) {
    [...question.walk()].find((n) => n.tag === "input").value = "a pair of them";
    question.fire("submit");
    seen.answered = (seen.answered || 0) + 1;
  }
  const mine = t.attrs["data-status"] === "playing" && t.attrs["data-turn"] === t.attrs["data-you"];
  const log = () => (byId("table-log") ? byId("table-log").children.map((li) => li.textContent) : []);
  if (mode === "host" && seen.asked && !log().some((line) => line.startsWith("E answers"))) return;
  if (mine) {
    const input = byId("chat-input");
    seen.chatClosed = Boolean(input && input.hasAttribute("disabled"));
  }
  if (mine && !seen.asked) {
    // Ask about the newest card of an opponent (a bot answers at once).
    const foes = mode === "host" ? ["E"]
      : t.attrs["data-you"] === "N" || t.attrs["data-you"] === "S" ? ["E", "W"] : ["N", "S"];
    const played = foes.map((s) => byId(`row-${s}`).children).find((row) => row.length);
    if (played && !byId("ask")) { played[played.length - 1].click(); return; }
    if (byId("ask")) {
      byId("ask-text").value = "what does it say?";
      byId("ask").fire("submit");
      seen.asked = true;
      return;
    }
  }
  if (mine && seen.hint === undefined) {
    const button = find((n) => has(n, "data-action", "hint"));
    if (!button) seen.hint = null;
    else { button.click(); seen.hint = "asked"; return; }
  }
  if (mine && seen.hint === "asked") {
    const hinted = byId("hand") && [...byId("hand").walk()].find((n) => (n.className || "").includes("hinted"));
    if (!hinted || !byId("hint")) return;
    seen.hint = hinted.attrs["data-card"];
    seen.hintText = byId("hint").textContent;
    hinted.click();
    taps += 1;
    return;
  }
  if (mine) tapPlayable();
  if ((mode === "drop" || mode === "pause") && taps === 3 && step !== "dropped") {
    step = "dropped";
    if (mode === "drop") sockets[0].close();
    else {
      waiting = true;
      out({ paused: true });
      createInterface({ input: process.stdin }).once("line", () => { waiting = false; });
    }
  }
  const summary = byId("summary");
  if (summary && t.attrs["data-status"] !== "playing") {
    const rows = ["N", "E", "S", "W"].map((s) => [...byId(`row-${s}`).walk()]
      .filter((n) => has(n, "data-card")).length);
    const meanings = all().filter((n) => n.className === "meaning").map((n) => n.textContent);
    // The last cards' meanings may still be on their way: give them a moment.
    if (meanings.some((m) => !m) && ++grace < 100) return;
    out({ taps, rows, token: Boolean(store.get("jackal.token")), sockets: sockets.length,
          status: t.attrs["data-status"], you: t.attrs["data-you"],
          summary: summary.textContent, score: byId("score").textContent,
          meanings, clock: seen.clock, chat: chatLines(), hint: seen.hint || null,
          hintText: seen.hintText || null, chatClosed: seen.chatClosed || false,
          log: log(), answered: seen.answered || 0,
          questions: byId("questions") ? byId("questions").textContent : null,
          note: byId("note") ? byId("note").textContent : null,
          rematch: Boolean(find((n) => has(n, "data-action", "rematch"))) });
    clearInterval(timer);
    process.exit(0);
  }
}, 20);
setTimeout(() => { out({ stuck: app.textContent, step, taps }); process.exit(1); }, 45000);

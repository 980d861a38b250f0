// The connection: the line protocol (docs/PROTOCOL.md) over the WebSocket at /ws, one
// JSON message per text frame. A dropped connection is opened again with a growing wait
// (1, 2, 4 ... 16 s, a little jitter so a room of phones does not come back at once).

export const STORE = { name: "jackal.name", token: "jackal.token", invites: "jackal.invites" };

let ws = null;
let nextId = 1;
let backoff = 1;
const waiting = new Map(); // request id -> resolve
let retry = null; // the timer of the next attempt
let handler = () => {};
let dropped = () => {};

export function onMessage(fn) { handler = fn; }
export function onDrop(fn) { dropped = fn; }
export function connected() { return ws !== null && ws.readyState === WebSocket.OPEN; }

export function connect() {
  retry = null;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${location.host}/ws`);
  ws = socket;
  socket.addEventListener("message", (event) => {
    let msg;
    try { msg = JSON.parse(event.data); } catch { return; }
    if (msg.type === "welcome") backoff = 1;
    const resolve = msg.id !== undefined ? waiting.get(msg.id) : undefined;
    if (resolve) waiting.delete(msg.id);
    handler(msg, Boolean(resolve));
    if (resolve) resolve(msg);
  });
  socket.addEventListener("close", () => {
    if (ws !== socket) return;
    ws = null;
    for (const resolve of waiting.values()) resolve({ type: "error", code: "closed" });
    waiting.clear();
    const wait = backoff;
    backoff = Math.min(backoff * 2, 16);
    dropped(wait);
    retry = setTimeout(connect, wait * 1000 + Math.floor(Math.random() * 300));
  });
}

/** Try again now rather than at the end of the wait: a phone woke up, or its network
 * came back (a sleeping tab's timers may not have run at all). */
export function reconnectNow() {
  if (ws !== null || retry === null) return;
  clearTimeout(retry);
  retry = null;
  connect();
}

export function send(msg) {
  if (connected()) ws.send(JSON.stringify(msg));
}

/** Send a request; resolves with its direct reply (or an error "closed" on a drop). */
export function request(msg) {
  if (!connected()) return Promise.resolve({ type: "error", code: "closed" });
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    send({ ...msg, id });
  });
}

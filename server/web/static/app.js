// Jackal in a browser: the line protocol (docs/PROTOCOL.md) over the WebSocket at /ws,
// one JSON message per text frame. Everything shown that came from the server (names,
// table names, messages) is set with textContent, never parsed as HTML.

const SEATS = ["N", "E", "S", "W"];
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const STORE = { name: "jackal.name", token: "jackal.token" };

const app = document.getElementById("app");
let ws = null;
let nextId = 1;
const waiting = new Map(); // request id -> resolve
let backoff = 1;
let view = "connecting"; // connecting | name | lobby | table
let tables = [];
let state = null; // the last table_state, kept up to date by events
let note = ""; // the last error or news, shown under the title
let summary = null; // the last deal_ended, shown between deals
let invitations = null; // links for the seats of a private table we created
let lobbyTimer = null;

// ------------------------------------------------------------------ small DOM helpers

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function text(tag, value, cls) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  node.textContent = value;
  return node;
}

function cardNode(card, onclick) {
  const rank = card[0] === "T" ? "10" : card[0];
  const red = card[1] === "H" || card[1] === "D";
  const node = onclick
    ? el("button", { class: "card" + (red ? " red" : ""), type: "button", onclick })
    : el("span", { class: "card" + (red ? " red" : "") });
  node.textContent = rank + SUITS[card[1]];
  node.dataset.card = card;
  return node;
}

// ------------------------------------------------------------------ the connection

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${scheme}//${location.host}/ws`);
  ws.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  ws.addEventListener("close", () => {
    for (const resolve of waiting.values()) resolve({ type: "error", code: "closed" });
    waiting.clear();
    view = "connecting";
    note = `Connection lost; trying again in ${backoff} s`;
    render();
    setTimeout(connect, backoff * 1000);
    backoff = Math.min(backoff * 2, 16);
  });
}

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

function request(msg) {
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    send({ ...msg, id });
  });
}

function receive(msg) {
  if (msg.id !== undefined && waiting.has(msg.id)) {
    const resolve = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.type !== "error") note = "";
    event(msg);
    resolve(msg);
    return;
  }
  event(msg);
}

// Every message, reply or event, updates what is shown.
function event(msg) {
  switch (msg.type) {
    case "welcome":
      backoff = 1;
      greet();
      return;
    case "ping":
      send({ type: "pong" });
      return;
    case "error":
      note = msg.message;
      if (msg.code === "bad_token") localStorage.removeItem(STORE.token);
      break;
    case "table_state":
      state = msg;
      view = "table";
      if (msg.status === "playing") summary = null;
      break;
    case "deal_started":
      if (state) {
        state.hand = msg.hand || null;
        state.rows = { N: [], E: [], S: [], W: [] };
        state.status = "playing";
        state.deal = msg.deal;
        state.dealer = msg.dealer;
      }
      summary = null;
      break;
    case "turn":
      if (state) state.turn = msg.seat;
      break;
    case "played":
      if (state) {
        state.rows[msg.seat].push(msg.card);
        if (msg.seat === state.you && state.hand) {
          state.hand = state.hand.filter((card) => card !== msg.card);
        }
        state.turn = null;
      }
      break;
    case "deal_ended":
      summary = msg;
      if (state) { state.scores = msg.scores; state.turn = null; }
      send({ type: "sync" });
      break;
    case "match_ended":
      note = msg.winner ? `Match over: ${msg.winner} wins` : "Match over";
      send({ type: "sync" });
      break;
    case "player_joined": case "player_left": case "player_ready": case "player_back":
    case "player_gone": case "bot_takeover": case "rematch_started":
      send({ type: "sync" });
      return;
    case "server_shutdown":
      note = "The server is stopping";
      break;
    default:
      break;
  }
  render();
}

async function greet() {
  const name = localStorage.getItem(STORE.name);
  if (!name) { view = "name"; render(); return; }
  const token = localStorage.getItem(STORE.token);
  const hello = { type: "hello", name, client: "jackal web" };
  if (token) hello.token = token;
  let reply = await request(hello);
  if (reply.type === "error" && reply.code === "bad_token") {
    // The seat is gone (the match ended, or the server forgot it): come in as ourselves.
    localStorage.removeItem(STORE.token);
    delete hello.token;
    reply = await request(hello);
  }
  if (reply.type !== "hello_ok") {
    if (reply.code === "name_taken" || reply.code === "name_reserved" || reply.code === "bad_text") {
      localStorage.removeItem(STORE.name);
      view = "name";
    }
    render();
    return;
  }
  if (reply.table) return; // a reclaimed seat: its table_state follows
  const join = location.hash.match(/^#join\/([^/]+)\/([NESW])\/(.+)$/);
  if (join) {
    history.replaceState(null, "", location.pathname);
    await joinSeat(join[1], join[2], decodeURIComponent(join[3]));
    return;
  }
  showLobby();
}

// ------------------------------------------------------------------ actions

async function showLobby() {
  view = "lobby";
  state = null;
  const reply = await request({ type: "list_tables" });
  if (reply.type === "tables") tables = reply.tables;
  render();
  clearTimeout(lobbyTimer);
  lobbyTimer = setTimeout(() => { if (view === "lobby") showLobby(); }, 5000);
}

async function joinSeat(table, seat, invite) {
  const msg = { type: "join", table };
  if (seat) msg.seat = seat;
  if (invite) msg.invite = invite;
  const reply = await request(msg);
  if (reply.type === "joined") {
    localStorage.setItem(STORE.token, reply.token);
    note = "";
    return true;
  }
  render();
  return false;
}

async function createTable(bots, isPrivate) {
  const name = localStorage.getItem(STORE.name);
  const created = await request({ type: "create_table", name: `${name}'s table`.slice(0, 32),
                                  private: isPrivate });
  if (created.type !== "table_created") return;
  const codes = created.invitations || {};
  if (!(await joinSeat(created.table, "S", codes.S))) return;
  for (const seat of bots) {
    await request({ type: "add_bot", table: created.table, seat, invite: codes[seat] });
  }
  invitations = isPrivate ? SEATS.filter((s) => s !== "S" && !bots.includes(s)).map(
    (s) => [s, `${location.origin}/#join/${created.table}/${s}/${encodeURIComponent(codes[s])}`])
    : null;
  await request({ type: "ready" });
}

async function leave() {
  await request({ type: "leave" });
  localStorage.removeItem(STORE.token);
  invitations = null;
  summary = null;
  showLobby();
}

// ------------------------------------------------------------------ drawing

function render() {
  app.replaceChildren();
  app.append(header());
  if (view === "connecting") app.append(text("p", "Connecting…", "muted"));
  else if (view === "name") app.append(nameForm());
  else if (view === "lobby") app.append(lobby());
  else if (view === "table" && state) app.append(table());
}

function header() {
  const bar = el("header", {}, text("h1", "Jackal"));
  if (note) bar.append(text("p", note, "note"));
  return bar;
}

function nameForm() {
  const input = el("input", { id: "name", maxlength: "32", autocomplete: "nickname",
                              placeholder: "your name" });
  const form = el("form", { class: "name" }, el("label", { for: "name" }, "Your name"), input,
                  el("button", { type: "submit" }, "Enter"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = input.value.trim();
    if (!name) return;
    localStorage.setItem(STORE.name, name);
    note = "";
    greet();
  });
  return form;
}

function lobby() {
  const box = el("section", { class: "lobby" });
  const choices = el("fieldset", {}, text("legend", "New table: you sit South"));
  const boxes = {};
  for (const seat of ["N", "E", "W"]) {
    boxes[seat] = el("input", { type: "checkbox", id: `bot${seat}` });
    boxes[seat].checked = true;
    choices.append(el("label", { for: `bot${seat}` }, boxes[seat], ` bot at ${seat}`));
  }
  const priv = el("input", { type: "checkbox", id: "private" });
  choices.append(el("label", { for: "private" }, priv, " private (invite by link)"));
  choices.append(el("button", { type: "button", class: "primary", onclick: () =>
    createTable(["N", "E", "W"].filter((s) => boxes[s].checked), priv.checked) }, "Create"));
  box.append(choices, text("h2", "Tables"));
  if (!tables.length) box.append(text("p", "No tables yet.", "muted"));
  const list = el("ul", { class: "tables" });
  for (const t of tables) {
    const seats = el("span", { class: "seats" });
    for (const seat of SEATS) {
      const who = t.seats[seat];
      const kind = t.kinds ? t.kinds[seat] : (who ? "human" : "empty");
      const cell = text("span", `${seat}: ${who || "—"}`, `seat ${kind}`);
      seats.append(cell);
    }
    const item = el("li", {}, text("strong", t.name), text("span", ` ${t.status}`, "muted"),
                    seats);
    const free = SEATS.filter((s) => !t.seats[s]);
    if (free.length && !t.private && t.status !== "over") {
      item.append(el("button", { type: "button", onclick: () => joinSeat(t.table, free[0]) },
                     `Sit at ${free[0]}`));
    }
    if (t.allow_spectators !== false) {
      item.append(el("button", { type: "button", onclick: () =>
        request({ type: "spectate", table: t.table }) }, "Watch"));
    }
    list.append(item);
  }
  box.append(list);
  return box;
}

function table() {
  const s = state;
  const box = el("section", { class: "table" });
  const scores = s.scores || { NS: 0, EW: 0 };
  box.append(el("div", { class: "info" }, text("strong", s.name),
    text("span", ` deal ${s.deal || 0} · NS ${scores.NS} · EW ${scores.EW} · to ${s.target}`)));
  let status;
  if (s.status === "playing") {
    status = s.turn === s.you && s.you ? "Your turn: tap a card" :
      s.turn ? `${seatName(s.turn)} to play` : "";
  } else if (s.status === "waiting") status = "Waiting for players";
  else if (s.status === "between_deals") status = "Deal over";
  else status = "Match over";
  box.append(text("p", status, "turn" + (s.turn && s.turn === s.you ? " mine" : "")));
  const rows = el("div", { class: "rows" });
  for (const seat of SEATS) {
    const row = el("div", { class: "row" + (seat === s.turn ? " active" : "") });
    row.append(text("span", `${seat} ${seatName(seat)}`, "who"));
    const cards = el("span", { class: "played" });
    for (const card of (s.rows && s.rows[seat]) || []) cards.append(cardNode(card));
    row.append(cards);
    rows.append(row);
  }
  box.append(rows);
  if (s.hand) {
    const hand = el("div", { class: "hand" });
    const mine = s.status === "playing" && s.turn === s.you;
    for (const card of s.hand) {
      hand.append(cardNode(card, mine ? () => play(card) : null));
    }
    box.append(hand);
  }
  if (summary) box.append(dealSummary(summary));
  if (invitations) {
    const links = el("div", { class: "invites" }, text("p", "Invitation links:"));
    for (const [seat, link] of invitations) links.append(text("code", `${seat}: ${link}`));
    box.append(links);
  }
  const actions = el("div", { class: "actions" });
  const me = s.you ? (s.seats || []).find((x) => x.seat === s.you) : null;
  if (me && !me.ready && (s.status === "waiting" || s.status === "between_deals")) {
    actions.append(el("button", { type: "button", class: "primary",
                                   onclick: () => request({ type: "ready" }) }, "Ready"));
  }
  if (s.status === "over" && s.you) {
    actions.append(el("button", { type: "button", onclick: () => request({ type: "rematch" }) },
                      "Rematch"));
  }
  actions.append(el("button", { type: "button", onclick: leave }, "Leave"));
  box.append(actions);
  return box;
}

function seatName(seat) {
  const info = state && (state.seats || []).find((x) => x.seat === seat);
  return info && info.name ? info.name : "";
}

function dealSummary(msg) {
  const box = el("div", { class: "summary" }, text("h2", `Deal ${msg.deal}`));
  box.append(text("p", `Penalty NS ${msg.penalty.NS} · EW ${msg.penalty.EW}`));
  box.append(text("p", msg.winner ? `${msg.winner} wins the deal` : "A tie"));
  for (const seat of SEATS) {
    const kept = el("div", { class: "kept" }, text("span", `${seat} kept `));
    for (const card of (msg.hands && msg.hands[seat]) || []) kept.append(cardNode(card));
    box.append(kept);
  }
  return box;
}

async function play(card) {
  const reply = await request({ type: "play", card });
  if (reply.type === "error") render();
}

window.addEventListener("hashchange", () => {
  if (view === "lobby") greetLink();
});

function greetLink() {
  const join = location.hash.match(/^#join\/([^/]+)\/([NESW])\/(.+)$/);
  if (!join) return;
  history.replaceState(null, "", location.pathname);
  joinSeat(join[1], join[2], decodeURIComponent(join[3]));
}

render();
connect();

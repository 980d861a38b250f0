// Jackal in a browser: the page's state and what each server message does to it. The
// views (lobby.js, table.js, summary.js) draw from this state; everything shown that came
// from the server (names, table names, chat, questions) is set as text, never as HTML.

import { STORE, connect, onDrop, onMessage, reconnectNow, request, send } from "./conn.js";
import { SEATS, el, meaningKey, seatOf, text } from "./dom.js";
import { lobbyView, nameForm } from "./lobby.js";
import { tableView } from "./table.js";

const app = document.getElementById("app");

/** Everything the page shows. */
const S = {
  view: "connecting", // connecting | name | lobby | table
  online: false,
  needPassword: false, // the server asked for its password
  password: "",
  playing: false, // a play sent, its reply not come yet
  features: [],
  tables: [],
  total: 0, // tables in the whole lobby (the page shows its first page)
  state: null, // the last table_state, kept up to date by events
  note: "",
  summary: null, // the last deal_ended, between deals and at the end
  expert: {}, // deal -> expert_cost message
  invitations: null, // {table, links: [[seat, link]]} for a private table we created
  meanings: new Map(), // "deal/seat/index" -> explanation (or "pending")
  selected: null, // [seat, index]: the row card whose meaning is open
  hint: null, // the hint reply for this turn
  toAnswer: [], // questions put to us: {question, asker, text, index}
  asked: [], // our questions this deal: {question, seat, text, index, answer}
  questionsLeft: 3,
  log: [], // table events worth a line: answers, hints taken, takeovers
  chat: [], // chat lines shown: {channel, name, text, seat}
  lobbyChat: [],
  clock: null, // {seat, end (ms), stopped (s or null)}
  nextDeal: null, // ms when the next deal starts by itself
  drafts: { chat: "", ask: "", answer: {}, codes: {} },
  create: { N: true, E: true, W: true, private: false, target: "300", turnSeconds: "",
            conventions: "beginner", hints: false, spectators: true, name: "" },
};
let lobbyTimer = null;

// ------------------------------------------------------------------ messages

onDrop((wait) => {
  S.online = false;
  S.note = `Connection lost; trying again in ${wait} s`;
  if (S.view !== "table") S.view = "connecting";
  render();
});

onMessage((msg, reply) => {
  const redraw = handle(msg, reply);
  if (redraw !== false) render();
});

function say(line) {
  S.log.push(line);
  if (S.log.length > 30) S.log.shift();
}

function addChat(line) {
  const list = line.channel === "lobby" ? S.lobbyChat : S.chat;
  list.push(line);
  if (list.length > 60) list.shift();
}

/** A clock: stopped with ``seconds`` left, or running out ``seconds`` from now. */
function clockFor(seat, seconds, stopped) {
  return stopped ? { seat, end: null, stopped: seconds }
    : { seat, end: Date.now() + seconds * 1000, stopped: null };
}

function startClock(seat, seconds) {
  S.clock = seconds === undefined || seconds === null ? null : clockFor(seat, seconds, false);
}

/** When the next deal starts by itself (ms), from a message's next_deal_in. */
function nextDealAt(msg) {
  return msg.next_deal_in !== undefined ? Date.now() + msg.next_deal_in * 1000 : null;
}

// Returns false when nothing shown changed.
function handle(msg, reply) {
  const s = S.state;
  switch (msg.type) {
    case "welcome":
      S.online = true;
      S.features = msg.features || [];
      S.note = "";
      greet();
      return false;
    case "ping":
      send({ type: "pong" });
      return false;
    case "error":
      if (msg.code === "closed") return false;
      S.note = msg.message;
      if (msg.code === "bad_token" && !reply) {
        // Another window reclaimed our seat with the token (the storage both share):
        // it plays there now; this one goes back to the lobby and keeps the token.
        S.note = "Your seat is now played from another window";
        showLobby();
      }
      if (msg.code === "table_closed") { localStorage.removeItem(STORE.token); showLobby(); }
      if (msg.code === "records_resumed") send({ type: "sync" });
      break;
    case "table_state":
      tableState(msg);
      break;
    case "deal_started":
      if (s) {
        s.hand = msg.hand || null;
        s.rows = { N: [], E: [], S: [], W: [] };
        s.status = "playing";
        s.deal = msg.deal;
        s.dealer = msg.dealer;
        s.first = msg.first;
        for (const seat of s.seats || []) seat.ready = false;
      }
      S.summary = null;
      S.selected = null;
      S.hint = null;
      S.toAnswer = [];
      S.asked = [];
      S.questionsLeft = 3;
      S.nextDeal = null;
      break;
    case "turn":
      if (s) s.turn = msg.seat;
      startClock(msg.seat, msg.seconds);
      S.hint = null;
      break;
    case "your_turn":
      if (s) { s.hand = msg.hand; s.turn = msg.seat; }
      if (msg.deadline !== undefined) startClock(msg.seat, msg.deadline);
      break;
    case "clock":
      S.clock = clockFor(msg.seat, msg.seconds, msg.stopped);
      break;
    case "played":
      if (s) {
        s.rows[msg.seat].push(msg.card);
        if (msg.by) (s.bot_cards ||= []).push({ seat: msg.seat, index: msg.index, by: msg.by });
        if (msg.seat === s.you && s.hand) s.hand = s.hand.filter((card) => card !== msg.card);
        s.turn = null;
        explain(s.deal, msg.seat, msg.index);
      }
      S.clock = null;
      break;
    case "deal_ended":
      S.summary = msg;
      if (s) {
        s.scores = msg.scores;
        s.turn = null;
        s.status = "between_deals";
        s.hand = null;
        // The snapshot's history gets the deal, as a fresh table_state would have it.
        s.history = (s.history || []).filter((d) => d.deal !== msg.deal);
        s.history.push({ deal: msg.deal, dealer: s.dealer, penalty: msg.penalty,
                         winner: msg.winner, victory_points: msg.victory_points ?? msg.points,
                         scores: msg.scores, information_cost: msg.information_cost });
        // As the server does: every person says ready again for the next deal.
        for (const seat of s.seats || []) if (seat.kind === "human") seat.ready = false;
      }
      S.clock = null;
      S.nextDeal = nextDealAt(msg);
      S.toAnswer = [];
      break;
    case "expert_cost":
      S.expert[msg.deal] = msg;
      break;
    case "match_ended":
      S.note = msg.winner ? `Match over: ${msg.winner} wins` : "Match over: a tie";
      if (s) {
        s.status = "over";
        s.scores = msg.scores;
        // From here a person's ready flag says it asked for a rematch.
        for (const seat of s.seats || []) seat.ready = seat.kind === "bot";
      }
      S.nextDeal = null;
      break;
    case "player_ready":
      if (s) seatOf(s, msg.seat).ready = true;
      break;
    case "rematch_wanted":
      if (s) seatOf(s, msg.seat).ready = true;
      say(`${msg.seat} asks for a rematch to ${msg.target}`);
      break;
    case "player_gone":
      if (s) seatOf(s, msg.seat).connected = false;
      say(`${msg.seat} lost the connection (seat held ${Math.round(msg.seconds)} s)`);
      break;
    case "player_back":
      if (s) seatOf(s, msg.seat).connected = true;
      say(`${msg.seat} is back`);
      break;
    case "bot_takeover":
      say(`A bot plays ${msg.seat} for now`);
      send({ type: "sync" });
      break;
    case "player_joined": case "player_left": case "rematch_started":
    case "conventions_changed":
      send({ type: "sync" });
      return false;
    case "hint":
      S.hint = msg;
      break;
    case "hint_taken":
      say(`${msg.seat} took a hint`);
      break;
    case "question":
      if (s && msg.seat === s.you && msg.asker !== s.you) {
        S.toAnswer.push(msg);
        say(`${msg.asker} asks you: ${msg.text}`);
      } else {
        S.asked.push({ ...msg, answer: null });
        S.questionsLeft = Math.max(0, S.questionsLeft - 1);
      }
      break;
    case "answer": {
      const mine = S.asked.find((q) => q.question === msg.question);
      if (mine) mine.answer = msg.text;
      say(`${msg.seat} answers${msg.question_text ? ` "${msg.question_text}"` : ""}: ${msg.text}`);
      break;
    }
    case "chat":
      addChat(msg);
      if (msg.id !== undefined) S.drafts.chat = "";
      break;
    case "pause_state":
      if (s) s.pause = msg.paused || msg.asked_by ? msg : null;
      if (msg.paused && S.clock && S.clock.end) {
        S.clock = clockFor(S.clock.seat, Math.max(0, (S.clock.end - Date.now()) / 1000), true);
      } else if (!msg.paused && S.clock && S.clock.stopped !== null) {
        startClock(S.clock.seat, S.clock.stopped);
      }
      break;
    case "explanation": // kept by explain(), which asked for it
      return false;
    case "server_shutdown":
      S.note = "The server is stopping; the page will come back when it does";
      break;
    case "tables":
      S.tables = msg.tables;
      break;
    default:
      return false;
  }
  return true;
}

function tableState(msg) {
  const changed = !S.state || S.state.table !== msg.table;
  S.state = msg;
  S.view = "table";
  clearTimeout(lobbyTimer);
  if (changed) {
    S.chat = [];
    S.log = [];
    S.meanings.clear();
    S.selected = null;
    S.expert = {};
  }
  if (changed || !S.chat.length) S.chat = [...(msg.chat || [])];
  if (msg.status === "playing") S.summary = null;
  else if (msg.last_deal) S.summary = msg.last_deal;
  for (const done of msg.history || []) {
    if (done.expert_cost) S.expert[done.deal] = { deal: done.deal, information_cost: done.expert_cost };
    else if (done.expert_unavailable) S.expert[done.deal] = { deal: done.deal, unavailable: done.expert_unavailable };
  }
  S.clock = null;
  if (msg.turn && msg.turn_left !== undefined && msg.turn_left !== null) {
    S.clock = clockFor(msg.turn, msg.turn_left, msg.clock_stopped || (msg.pause && msg.pause.paused));
  }
  S.nextDeal = nextDealAt(msg);
  if (msg.you) {
    const open = msg.questions || [];
    S.toAnswer = open.filter((q) => q.seat === msg.you && q.asker !== msg.you);
    const answered = (msg.answered || []).filter((q) => q.asker === msg.you)
      .map((q) => ({ ...q, answer: q.answer ?? null }));
    S.asked = [...answered, ...open.filter((q) => q.asker === msg.you).map((q) => ({ ...q, answer: null }))];
    if (msg.questions_left !== undefined) S.questionsLeft = msg.questions_left;
  }
  S.state.pause = msg.pause || null;
  const rows = msg.rows || {};
  for (const seat of SEATS) {
    (rows[seat] || []).forEach((_, i) => explain(msg.deal, seat, i + 1));
  }
  let stored = null;
  try { stored = JSON.parse(localStorage.getItem(STORE.invites) || "null"); } catch { stored = null; }
  S.invitations = stored && stored.table === msg.table ? stored : null;
}

/** Ask the server what a played card means (once per card). */
async function explain(deal, seat, index) {
  const k = meaningKey(deal, seat, index);
  if (S.meanings.has(k)) return;
  S.meanings.set(k, "pending");
  const reply = await request({ type: "explain", seat, index });
  if (reply.type === "explanation") S.meanings.set(k, reply);
  else S.meanings.delete(k);
  render();
}

// ------------------------------------------------------------------ actions

const JOIN_LINK = /^#join\/([^/]+)\/([NESW])\/(.+)$/;

async function greet() {
  const name = localStorage.getItem(STORE.name);
  if (!name) { S.view = "name"; render(); return; }
  const token = localStorage.getItem(STORE.token);
  const hello = { type: "hello", name, client: "jackal web" };
  if (token) hello.token = token;
  if (S.password) hello.password = S.password;
  let reply = await request(hello);
  if (reply.type === "error" && reply.code === "bad_token") {
    // The seat is gone (the match ended, or the server forgot it): come in as ourselves.
    localStorage.removeItem(STORE.token);
    delete hello.token;
    reply = await request(hello);
  }
  if (reply.type !== "hello_ok") {
    if (["name_taken", "name_reserved", "bad_text"].includes(reply.code)) {
      localStorage.removeItem(STORE.name);
      S.view = "name";
    }
    if (reply.code === "bad_password") {
      // Kept in memory only: after a reload the player types it again.
      S.needPassword = true;
      S.password = "";
      S.view = "name";
    }
    render();
    return;
  }
  if (reply.table) return; // a reclaimed seat: its table_state follows
  if (S.state) {
    // We were at a table without a seat (watching): watch again.
    const back = await request({ type: "spectate", table: S.state.table });
    if (back.type === "table_state") return;
    S.state = null;
  }
  if (!(await followLink())) showLobby();
}

async function followLink() {
  const join = location.hash.match(JOIN_LINK);
  if (!join) return false;
  history.replaceState(null, "", location.pathname);
  return joinSeat(join[1], join[2], decodeURIComponent(join[3]));
}

async function showLobby() {
  const shown = S.view;
  S.view = "lobby";
  S.state = null;
  S.summary = null;
  const reply = await request({ type: "list_tables" });
  // The lobby is asked for every few seconds: redraw only when it changed (a redraw
  // under the thumb of someone filling in the form is a nuisance).
  const fresh = reply.type === "tables" && JSON.stringify(reply.tables) !== JSON.stringify(S.tables);
  if (fresh) S.tables = reply.tables;
  if (reply.type === "tables") S.total = reply.total ?? reply.tables.length;
  if (fresh || S.view !== shown) render();
  clearTimeout(lobbyTimer);
  lobbyTimer = setTimeout(() => { if (S.view === "lobby" && S.online) showLobby(); }, 5000);
}

async function joinSeat(table, seat, invite) {
  const msg = { type: "join", table };
  if (seat) msg.seat = seat;
  if (invite) msg.invite = invite;
  const reply = await request(msg);
  if (reply.type === "joined") {
    localStorage.setItem(STORE.token, reply.token);
    S.note = "";
    return true;
  }
  render();
  return false;
}

/** "Ada's table"; a table's name takes 32 columns, so a long player's name is cut (not
 * the suffix). The server counts a wide character as two columns: here every character
 * past ASCII counts two, which may cut a little early but never too late. */
function defaultName(player) {
  const suffix = "'s table";
  let room = 32 - suffix.length;
  let kept = "";
  for (const ch of player) {
    room -= ch.charCodeAt(0) < 128 ? 1 : 2;
    if (room < 0) break;
    kept += ch;
  }
  return `${kept}${suffix}`;
}

async function createTable() {
  const o = S.create;
  const name = o.name.trim() || defaultName(localStorage.getItem(STORE.name) || "");
  const msg = { type: "create_table", name, private: o.private,
                conventions_ns: o.conventions, conventions_ew: o.conventions };
  const target = parseInt(o.target, 10);
  if (target > 0) msg.target = target;
  const seconds = parseFloat(o.turnSeconds);
  if (o.turnSeconds !== "" && seconds >= 0) msg.turn_seconds = seconds;
  if (o.hints && S.features.includes("hints")) msg.hints = true;
  if (o.private) msg.allow_spectators = o.spectators;
  const created = await request(msg);
  if (created.type !== "table_created") { render(); return; }
  const codes = created.invitations || {};
  const bots = ["N", "E", "W"].filter((seat) => o[seat]);
  if (o.private) {
    const links = SEATS.filter((seat) => seat !== "S" && !bots.includes(seat)).map((seat) =>
      [seat, `${location.origin}/#join/${created.table}/${seat}/${encodeURIComponent(codes[seat])}`]);
    localStorage.setItem(STORE.invites, JSON.stringify({ table: created.table, links }));
  }
  if (!(await joinSeat(created.table, "S", codes.S))) return;
  for (const seat of bots) {
    await request({ type: "add_bot", table: created.table, seat, invite: codes[seat] });
  }
  await request({ type: "ready" });
}

async function leave() {
  await request({ type: "leave" });
  localStorage.removeItem(STORE.token);
  localStorage.removeItem(STORE.invites);
  S.invitations = null;
  showLobby();
}

async function play(card) {
  // One card at a time: a second tap before the reply would only be refused.
  S.playing = true;
  render();
  await request({ type: "play", card });
  S.playing = false;
  render();
}

async function ask(seat, index, question) {
  // The box closes at once, so a second tap cannot ask twice (the draft stays if refused).
  S.selected = null;
  render();
  const reply = await request({ type: "ask", seat, index, text: question });
  if (reply.type === "question") S.drafts.ask = "";
  render();
}

async function answer(question, reply) {
  // Off the list at once, so a second tap cannot send it twice; back on if refused.
  S.toAnswer = S.toAnswer.filter((q) => q.question !== question.question);
  render();
  const got = await request({ type: "answer", question: question.question, text: reply });
  if (got.type === "ok") {
    delete S.drafts.answer[question.question];
    say(`You answered ${question.asker}: ${reply}`);
  } else if (got.code !== "no_such_question") {
    S.toAnswer.push(question);
  }
  render();
}

const act = {
  setName(name, password) {
    localStorage.setItem(STORE.name, name);
    if (password !== undefined) S.password = password;
    S.note = "";
    greet();
  },
  createTable, joinSeat, leave, play, ask, answer,
  watch: (table) => request({ type: "spectate", table }),
  ready: () => request({ type: "ready" }),
  rematch: () => request({ type: "rematch" }),
  hint: () => request({ type: "hint" }),
  pause: () => request({ type: "pause" }),
  resume: () => request({ type: "resume" }),
  chat: (line) => request({ type: "chat", text: line }),
  conventions: (card) => request({ type: "conventions", card }),
  select(seat, index) {
    const same = S.selected && S.selected[0] === seat && S.selected[1] === index;
    S.selected = same ? null : [seat, index];
    render();
  },
  clockText: () => clockText(),
};

// ------------------------------------------------------------------ drawing

// A redraw replaces every node: one between the press and the release of a tap would take
// the button from under the finger and the tap would do nothing. So while a pointer is
// down, and from its release until the click it makes (a touch's click comes as an event
// of its own, after the release), redraws wait; the last one owed runs then.
const pressed = new Set(); // ids of the pointers down
let settling = null; // the timer that ends the wait when a release brings no click
let owed = false;

function held() { return pressed.size > 0 || settling !== null; }

function flush() {
  clearTimeout(settling);
  settling = null;
  if (owed && !pressed.size) render();
}

if (document.addEventListener) {
  document.addEventListener("pointerdown", (e) => {
    pressed.add(e.pointerId);
    clearTimeout(settling);
    settling = null;
  }, true);
  const release = (e) => {
    pressed.delete(e.pointerId);
    if (pressed.size) return;
    clearTimeout(settling);
    // A cancelled pointer (a scroll) clicks nothing: no reason to wait.
    settling = e.type === "pointercancel" ? null : setTimeout(flush, 400);
    if (settling === null) flush();
  };
  document.addEventListener("pointerup", release, true);
  document.addEventListener("pointercancel", release, true);
  // Bubbling, on the window, and a turn later: after the tapped button's handler and its
  // default action (a form submits only while its button is still in the page).
  window.addEventListener("click", () => {
    if (pressed.size) return;
    clearTimeout(settling);
    settling = setTimeout(flush, 0);
  });
}

function render() {
  if (held()) { owed = true; return; }
  owed = false;
  // Redrawing replaces the nodes: keep the focus (and the caret) where the player types.
  const s = S.state;
  const mine = S.view === "table" && s && s.status === "playing" && s.you && s.turn === s.you;
  document.title = mine ? "Your turn \u2014 Jackal" : "Jackal";
  const active = document.activeElement;
  const focused = active && active.id;
  let caret = null;
  try { caret = active ? active.selectionStart : null; } catch { caret = null; }
  app.replaceChildren();
  const bar = el("header", {}, text("h1", "Jackal"));
  const note = text("p", S.note, S.note ? "note" : "note empty");
  note.setAttribute("id", "note");
  note.setAttribute("role", "status");
  bar.append(note);
  app.append(bar);
  if (S.view === "connecting") app.append(text("p", "Connecting\u2026", "muted"));
  else if (S.view === "name") app.append(nameForm(S, act));
  else if (S.view === "lobby") app.append(lobbyView(S, act));
  else if (S.view === "table" && S.state) app.append(tableView(S, act));
  if (focused) {
    const again = document.getElementById(focused);
    if (again && again !== app && again.focus) {
      again.focus();
      try { again.setSelectionRange(caret, caret); } catch { /* a number input has none */ }
    }
  }
  // The newest chat line is at the bottom of its scrolling box.
  const log = document.getElementById("chat-log");
  if (log && log !== app && log.scrollHeight) log.scrollTop = log.scrollHeight;
}

// The clock counts down without redrawing the page: only its own text changes.
setInterval(() => {
  const node = document.getElementById("clock");
  if (!node || node === app) return;
  node.textContent = clockText();
  node.className = hurry() ? "hurry" : "";
}, 250);

/** The terminal's warning: your own clock is down to a third of the limit, or 10 s. */
function hurry() {
  const c = S.clock;
  const s = S.state;
  if (!c || !s || c.seat !== s.you || c.end === null || !s.turn_seconds) return false;
  return (c.end - Date.now()) / 1000 <= Math.min(s.turn_seconds / 3, 10);
}

function clockText() {
  const c = S.clock;
  if (S.state && S.state.status === "playing" && c) {
    const left = c.stopped !== null ? c.stopped : Math.max(0, (c.end - Date.now()) / 1000);
    const who = S.state.you === c.seat ? "You" : c.seat;
    return `${who}: ${Math.ceil(left)} s${c.stopped !== null ? " (stopped)" : ""}`;
  }
  if (S.state && S.state.status === "between_deals" && S.nextDeal) {
    return `Next deal in ${Math.max(0, Math.ceil((S.nextDeal - Date.now()) / 1000))} s`;
  }
  return "";
}

window.addEventListener("hashchange", () => { if (S.view === "lobby") followLink(); });
window.addEventListener("online", reconnectNow);
if (document.addEventListener) {
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") reconnectNow();
  });
}

render();
connect();

// The name form and the lobby: the tables with the kind of each seat (a person, a bot,
// empty, or held for a player away), a sit button per free seat, watching, lobby chat,
// and the form that creates a table (bots, private with invitation links, clock, target,
// convention card, hints where the server has them).

import { CONVENTION_CARDS, SEATS, draftForm, el, text } from "./dom.js";
import { STORE } from "./conn.js";
import { chatBox } from "./chat.js";

export function nameForm(S, act) {
  const input = el("input", { id: "name", maxlength: "32", autocomplete: "nickname",
                              placeholder: "your name", required: true });
  input.value = localStorage.getItem(STORE.name) || "";
  const password = S.needPassword
    ? el("input", { id: "password", type: "password", autocomplete: "current-password" }) : null;
  const form = el("form", { class: "name" }, el("label", { for: "name" }, "Your name"), input,
                  password ? el("label", { for: "password" }, "The server's password") : null,
                  password,
                  el("button", { type: "submit", class: "primary" }, "Enter"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = input.value.trim();
    if (name) act.setName(name, password ? password.value : undefined);
  });
  return form;
}

const KIND_WORDS = { human: "", bot: "bot", empty: "free", held: "away" };

function tableItem(S, t, act) {
  const item = el("li", { "data-table": t.table, class: "table-entry" });
  const flags = [t.status.replace("_", " ")];
  if (t.private) flags.push("private");
  if (t.seeded) flags.push("seeded");
  if (t.turn_seconds) flags.push(`${Math.round(t.turn_seconds)} s a card`);
  if (t.hints) flags.push("hints");
  if (t.creator) flags.push(`by ${t.creator}`);
  flags.push(`to ${t.target}`);
  item.append(el("div", { class: "entry-head" }, text("strong", t.name),
                 text("span", flags.join(" \u00b7 "), "muted")));
  const seats = el("div", { class: "seats" });
  const open = !t.private && (t.status === "waiting" || t.status === "over");
  const kinds = Object.fromEntries(SEATS.map((seat) =>
    [seat, t.kinds ? t.kinds[seat] : (t.seats[seat] ? "human" : "empty")]));
  for (const seat of SEATS) {
    const kind = kinds[seat];
    const who = t.seats[seat] || "";
    const cell = el("span", { class: `seat ${kind}`, "data-kind": kind },
                    text("b", seat), who ? el("span", { class: "name", title: who }, who) : null,
                    KIND_WORDS[kind] ? text("small", ` (${KIND_WORDS[kind]})`) : null);
    if (kind === "empty" && open) {
      cell.append(el("button", { type: "button", class: "sit", "data-join": `${t.table}/${seat}`,
                                 onclick: () => act.joinSeat(t.table, seat) }, "Sit"));
    }
    seats.append(cell);
  }
  item.append(seats);
  const free = SEATS.some((seat) => kinds[seat] === "empty");
  if (t.private && free && t.status !== "playing") {
    // A code read out or pasted works as well as the link (the code picks its seat).
    item.append(draftForm({
      input: { id: `code-${t.table}`, maxlength: "128", autocomplete: "off",
               placeholder: "invitation code", "aria-label": "invitation code" },
      form: { class: "inline", "data-code": t.table }, label: "Join",
      // Kept while typed: a change to the table list redraws the lobby meanwhile.
      drafts: S.drafts.codes, key: t.table,
      send: (code) => act.joinSeat(t.table, null, code) }));
  } else if (t.private) item.append(text("p", "Private: seats by invitation only", "muted small"));
  if (t.allow_spectators !== false) {
    item.append(el("button", { type: "button", "data-watch": t.table,
                               onclick: () => act.watch(t.table) },
                   `Watch${t.spectators ? ` (${t.spectators})` : ""}`));
  }
  return item;
}

function createForm(S, act) {
  const o = S.create;
  const form = el("form", { id: "create", class: "create" });
  const field = (label, node) => el("label", { for: node.getAttribute("id") }, label, node);
  const box = (id, label, prop, then = null) => {
    const node = el("input", { type: "checkbox", id,
                               onchange: () => { o[prop] = node.checked; if (then) then(); } });
    node.checked = o[prop];
    return el("label", { for: id, class: "check" }, node, ` ${label}`);
  };
  const value = (node, prop) => {
    node.value = o[prop];
    node.addEventListener("input", () => { o[prop] = node.value; });
    node.addEventListener("change", () => { o[prop] = node.value; });
    return node;
  };
  form.append(text("h2", "New table (you sit South)"));
  form.append(field("Name ", value(el("input", { id: "table-name", maxlength: "32",
                                                 placeholder: "optional" }), "name")));
  const bots = el("div", { class: "bots" }, text("span", "Bots at: "));
  for (const seat of ["N", "E", "W"]) bots.append(box(`bot${seat}`, seat, seat));
  form.append(bots);
  // Only a private table may keep watchers out: its box shows while "private" is ticked.
  const watchers = box("allow-spectators", "let others watch", "spectators");
  watchers.hidden = !o.private;
  form.append(box("private", "private: invite by link", "private",
                  () => { watchers.hidden = !o.private; }));
  form.append(watchers);
  form.append(field("Target ", value(el("input", { type: "number", id: "target", min: "1",
                                                   max: "1000000", inputmode: "numeric" }),
                                     "target")));
  form.append(field("Seconds a card ", value(el("input", {
    type: "number", id: "turn-seconds", min: "0", max: "86400", placeholder: "no clock",
    inputmode: "numeric" }), "turnSeconds")));
  const select = el("select", { id: "conventions" },
                    ...CONVENTION_CARDS.map((n) => el("option", { value: n }, n)));
  form.append(field("Convention card ", value(select, "conventions")));
  if (S.features.includes("hints")) form.append(box("hints", "allow hints", "hints"));
  form.append(el("button", { type: "submit", class: "primary", "data-action": "create" },
                 "Create table"));
  form.addEventListener("submit", (e) => { e.preventDefault(); act.createTable(); });
  return form;
}

export function lobbyView(S, act) {
  // Another name takes a new connection (hello is said once): forget this one, load again.
  const me = el("p", { class: "muted small" }, `You are ${localStorage.getItem(STORE.name) || "?"} `,
                el("button", { type: "button", class: "small", "data-action": "rename",
                               onclick: () => { localStorage.removeItem(STORE.name); location.reload(); } },
                   "Change name"));
  const list = el("div", { class: "main" }, me, text("h2", "Tables"));
  if (!S.tables.length) list.append(text("p", "No tables yet: create one.", "muted"));
  list.append(el("ul", { class: "tables" }, S.tables.map((t) => tableItem(S, t, act))));
  if (S.total > S.tables.length) {
    list.append(text("p", `The first ${S.tables.length} of ${S.total} tables`, "muted small"));
  }
  const side = el("div", { class: "side" }, createForm(S, act), chatBox(S, act, S.lobbyChat, null));
  return el("section", { class: "lobby" }, list, side);
}

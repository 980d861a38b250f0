// Small DOM helpers for the page: every text goes in as a text node (never as HTML), and
// every attribute through setAttribute, so a name like "<img onerror=...>" stays text.

export const SEATS = ["N", "E", "S", "W"];
export const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const RANKS = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];

export function team(seat) { return seat === "N" || seat === "S" ? "NS" : "EW"; }
export function partner(seat) { return { N: "S", S: "N", E: "W", W: "E" }[seat]; }

/** The convention cards a table may play. */
export const CONVENTION_CARDS = ["beginner", "advanced", "none"];

/** A seat's entry in a table_state snapshot ({} when the snapshot has none). */
export function seatOf(s, seat) { return (s.seats || []).find((x) => x.seat === seat) || {}; }

/** The key of a played card's meaning: "deal/seat/index". */
export function meaningKey(deal, seat, index) { return `${deal}/${seat}/${index}`; }

/** An element: attributes (onclick/oninput/onsubmit become listeners, "class" the class,
 * false/null/undefined leave the attribute out), then children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** A one-line form: ``input``, ``form`` and ``button`` are the el() attributes of its
 * input, the form and its submit button (``label`` the button's text). Submitting sends
 * the trimmed line to ``send`` unless it is blank; clearing a draft is the sender's job.
 * With ``drafts``, the input starts from drafts[key] and writes each keystroke back there,
 * so a redraw keeps what the player was typing. Returns the form. */
export function draftForm({ input, form, button = {}, label, drafts = null, key, send }) {
  const field = el("input", input);
  if (drafts) {
    field.value = drafts[key] || "";
    field.addEventListener("input", () => { drafts[key] = field.value; });
  }
  const node = el("form", form, field, el("button", { type: "submit", ...button }, label));
  node.addEventListener("submit", (e) => {
    e.preventDefault();
    const line = field.value.trim();
    if (line) send(line);
  });
  return node;
}

export function text(tag, value, cls) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  node.textContent = value;
  return node;
}

export function cardLabel(card) {
  return (card[0] === "T" ? "10" : card[0]) + SUITS[card[1]];
}

/** A card: a button when it can be tapped, a span otherwise. */
export function cardNode(card, { onclick = null, playable = false, cls = "", tag = null,
                                  inner = false } = {}) {
  const red = card[1] === "H" || card[1] === "D";
  const name = tag || (onclick ? "button" : "span");
  // ``inner``: the face inside a button that carries data-card itself (one match a card).
  const node = el(name, { class: `card${red ? " red" : ""}${cls ? " " + cls : ""}`,
                          type: name === "button" ? "button" : null,
                          "data-card": inner ? null : card,
                          "data-playable": playable, onclick });
  node.textContent = cardLabel(card);
  return node;
}

/** "7s?" / "+7" / "-7" / "." : a few characters for a card's meaning, as the terminal
 * prints under its rows (client/tui/meaning.py's short_meaning). */
export function shortMeaning(data) {
  if (!data) return "";
  const rank = (r) => (Number.isInteger(r) && r >= 1 && r <= 13 ? RANKS[r] : String(r));
  if (data.kind === "promise") {
    if (data.rank === null || data.rank === undefined) return "-";
    const count = data.count ?? 2;
    return rank(data.rank) + (count === 2 ? "s" : `x${count}`) + (data.may_be_fallback ? "?" : "");
  }
  if (data.kind === "answer") {
    if (data.rank === null || data.rank === undefined) return data.holds ? "+?" : "-?";
    return (data.holds ? "+" : "-") + rank(data.rank);
  }
  if (data.kind === "none" || data.kind === "no_meaning") {
    return data.rule === "promise" || data.rule === "answer" ? "-" : ".";
  }
  return data.kind ? "?" : "";
}

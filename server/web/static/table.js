// The table: whose turn and the clock, the score, the four rows with each card's meaning
// (tap a card to read it, and to ask its player about it), the hand (a tap plays a card
// when it is your turn), questions to answer, hints, pause, the deal summary, invitation
// links, chat, and the buttons for ready, rematch and leave.

import { CONVENTION_CARDS, SEATS, cardNode, draftForm, el, meaningKey, partner, seatOf, shortMeaning,
         team, text } from "./dom.js";
import { chatBox } from "./chat.js";
import { summaryView } from "./summary.js";

function cardName(s, side) {
  const card = s.conventions && s.conventions[side];
  return typeof card === "string" ? card : (card && card.name) || "?";
}

const ORDINAL = ["", "1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th"];

function seatName(s, seat) {
  const info = seatOf(s, seat);
  return info.kind === "empty" || !info.name ? "(empty)" : info.name;
}

/** What the seat's name leaves unsaid: a bot, a bot standing in, a player away. */
function seatNote(s, seat) {
  const info = seatOf(s, seat);
  if (info.kind === "empty" || !info.name) return "";
  if (info.kind === "bot") return "bot";
  if (info.substitute) return "a bot plays";
  if (info.connected === false) return "away";
  return "";
}

function statusLine(s) {
  const paused = s.pause && s.pause.paused;
  if (s.status === "playing") {
    if (paused) return "Paused";
    if (s.turn && s.turn === s.you) return "Your turn: tap a card";
    return s.turn ? `${seatOf(s, s.turn).name || s.turn} (${s.turn}) to play` : "";
  }
  if (s.status === "waiting") return "Waiting for the players to sit and say ready";
  if (s.status === "between_deals") return "Deal over";
  return "Match over";
}

function playable(S) {
  const s = S.state;
  return Boolean(S.online && !S.playing && s.status === "playing" && s.you && s.turn === s.you
                 && !(s.pause && s.pause.paused));
}

function rowsView(S, act) {
  const s = S.state;
  const rows = el("div", { class: "rows" });
  const order = s.first ? [0, 1, 2, 3].map((i) => SEATS[(SEATS.indexOf(s.first) + i) % 4]) : SEATS;
  const bots = new Set((s.bot_cards || []).map((b) => `${b.seat}/${b.index}`));
  for (const seat of order) {
    const mine = seat === s.you;
    const row = el("div", { class: `row${seat === s.turn ? " active" : ""}${mine ? " mine" : ""}` });
    const note = [seatNote(s, seat), seat === s.dealer ? "dealer" : ""].filter(Boolean).join(", ");
    row.append(el("div", { class: "who" }, text("b", seat),
                  el("span", { "data-seat-name": seat, title: seatName(s, seat) }, seatName(s, seat)),
                  note ? text("small", note, "muted") : null));
    const cards = el("div", { id: `row-${seat}`, class: "played" });
    (s.rows[seat] || []).forEach((card, i) => {
      const index = i + 1;
      const meaning = S.meanings.get(meaningKey(s.deal, seat, index));
      const chosen = S.selected && S.selected[0] === seat && S.selected[1] === index;
      const node = el("button", { type: "button", class: `played-card${chosen ? " chosen" : ""}`,
                                  "data-card": card, "data-index": index,
                                  onclick: () => act.select(seat, index) },
                      cardNode(card, { cls: bots.has(`${seat}/${index}`) ? "by-bot" : "", inner: true }),
                      text("small", meaning && meaning !== "pending" ? shortMeaning(meaning.meaning) : "",
                           "meaning"));
      cards.append(node);
    });
    row.append(cards);
    rows.append(row);
  }
  return rows;
}

function detailView(S, act) {
  const s = S.state;
  if (!S.selected) return null;
  const [seat, index] = S.selected;
  const card = (s.rows[seat] || [])[index - 1];
  if (!card) return null;
  const meaning = S.meanings.get(meaningKey(s.deal, seat, index));
  const box = el("div", { id: "meaning", class: "detail" },
                 el("p", {}, text("b", `${seat}'s ${ORDINAL[index]} card `), cardNode(card)),
                 text("p", meaning && meaning !== "pending" ? meaning.text : "\u2026"));
  // Asking (client/tui/asking.py): seated players ask an opponent about a played card.
  if (s.you && team(seat) !== team(s.you)) {
    const info = seatOf(s, seat);
    let why = null;
    if (info.kind === "empty") why = "Nobody sits there to answer.";
    else if (s.status !== "playing") why = "Questions are asked during a deal.";
    else if (S.questionsLeft <= 0) why = "You have asked your 3 questions this deal.";
    if (why) box.append(text("p", why, "muted"));
    else {
      const form = draftForm({
        input: { id: "ask-text", maxlength: "1000", autocomplete: "off",
                 placeholder: `ask ${seat} about it`, "aria-label": "question" },
        form: { id: "ask", class: "inline" }, button: { "data-action": "ask" }, label: "Ask",
        drafts: S.drafts, key: "ask", send: (line) => act.ask(seat, index, line) });
      box.append(form, text("p", `${S.questionsLeft} question${S.questionsLeft === 1 ? "" : "s"} left this deal`, "muted small"));
    }
  } else if (!s.you) {
    box.append(text("p", "Only the players at the table ask questions.", "muted small"));
  } else if (seat === partner(s.you)) {
    box.append(text("p", "Your partner's card: partners talk only through their cards.", "muted small"));
  }
  return box;
}

function questionsView(S, act) {
  const s = S.state;
  if (!s.you || (!S.toAnswer.length && !S.asked.length)) return null;
  const box = el("div", { id: "questions", class: "detail" });
  for (const q of S.toAnswer) {
    const about = q.index ? ` about your ${ORDINAL[q.index]} card` : "";
    const form = draftForm({
      input: { id: `answer-${q.question}`, maxlength: "1000", autocomplete: "off",
               placeholder: "your answer", "aria-label": "answer" },
      form: { class: "inline answer", "data-question": q.question },
      button: { "data-action": "answer" }, label: "Answer",
      drafts: S.drafts.answer, key: q.question, send: (line) => act.answer(q, line) });
    box.append(text("p", `${q.asker} asks${about}: ${q.text || ""}`), form);
  }
  for (const q of S.asked) {
    box.append(text("p", `You asked ${q.seat}${q.index ? ` (${ORDINAL[q.index]} card)` : ""}: ` +
                    `${q.text || ""} \u2014 ${q.answer === null || q.answer === undefined ? "waiting for the answer" : q.answer}`,
                    "small"));
  }
  return box;
}

function handView(S, act) {
  const s = S.state;
  if (!s.hand) return null;
  const mine = playable(S);
  const hinted = S.hint && S.hint.card;
  const hand = el("div", { id: "hand", class: "hand" });
  for (const card of s.hand) {
    const node = cardNode(card, { tag: "button", playable: mine,
                                  cls: card === hinted ? "hinted" : "",
                                  onclick: mine ? () => act.play(card) : null });
    if (!mine) node.setAttribute("disabled", "");
    hand.append(node);
  }
  return hand;
}

function actionsView(S, act) {
  const s = S.state;
  const actions = el("div", { class: "actions" });
  const me = s.you ? seatOf(s, s.you) : null;
  if (me && !me.ready && (s.status === "waiting" || s.status === "between_deals")) {
    actions.append(el("button", { type: "button", class: "primary", "data-action": "ready",
                                  onclick: act.ready }, "Ready"));
  }
  if (s.status === "over" && s.you) {
    actions.append(el("button", { type: "button", class: me && me.ready ? "" : "primary",
                                  "data-action": "rematch", disabled: Boolean(me && me.ready),
                                  onclick: act.rematch },
                      me && me.ready ? "Rematch asked" : "Rematch"));
  }
  if (s.you && s.hints && playable(S)) {
    actions.append(el("button", { type: "button", "data-action": "hint", onclick: act.hint },
                      "Hint"));
  }
  if (s.you && s.status !== "playing") {
    // A partnership may change its card before the match, between deals and for a rematch.
    const current = cardName(s, team(s.you));
    const select = el("select", { id: "my-conventions", "aria-label": "your partnership's card" },
                      ...CONVENTION_CARDS.map((n) => el("option", { value: n }, n)));
    select.value = CONVENTION_CARDS.includes(current) ? current : "beginner";
    actions.append(el("span", { class: "cardpick" }, select,
      el("button", { type: "button", "data-action": "conventions",
                     onclick: () => act.conventions(select.value) }, "Use card")));
  }
  const on = s.status === "playing" || s.status === "between_deals";
  if (s.you && on && S.features.includes("pause")) {
    const p = s.pause;
    if (p && (p.paused || (p.agreed || []).includes(s.you))) {
      actions.append(el("button", { type: "button", "data-action": "resume", onclick: act.resume },
                        p.paused ? "Resume" : "Withdraw pause"));
    } else if (p) {
      actions.append(el("button", { type: "button", "data-action": "pause", onclick: act.pause },
                        `Agree to pause (${p.asked_by})`));
    } else if (s.status === "between_deals" || s.turn === s.you) {
      actions.append(el("button", { type: "button", "data-action": "pause", onclick: act.pause },
                        "Pause"));
    }
  }
  actions.append(el("button", { type: "button", "data-action": "leave", onclick: act.leave },
                    s.you ? "Leave" : "Stop watching"));
  return actions;
}

function invitesView(S) {
  if (!S.invitations || !S.state.you) return null;
  const box = el("div", { class: "invites" },
                 text("p", "Send each friend the link of their seat:"));
  for (const [seat, link] of S.invitations.links) {
    if (seatOf(S.state, seat).kind !== "empty") continue;
    const code = el("code", { "data-invite": seat }, link);
    const copy = el("button", { type: "button", class: "small", onclick: () => {
      if (typeof navigator !== "undefined" && navigator.clipboard) navigator.clipboard.writeText(link).catch(() => {});
    } }, `Copy ${seat}`);
    box.append(el("div", { class: "invite" }, copy, code));
  }
  return box.children.length > 1 ? box : null;
}

export function tableView(S, act) {
  const s = S.state;
  const box = el("section", { class: "table", "data-status": s.status, "data-you": s.you || null,
                              "data-turn": s.turn || null, "data-table": s.table });
  // Two columns on a wide screen (the play, then what is read beside it), one on a phone.
  const main = el("div", { class: "main" });
  const side = el("div", { class: "side" });
  const scores = s.scores || { NS: 0, EW: 0 };
  const us = s.you ? team(s.you) : null;
  main.append(el("div", { class: "info" }, text("strong", s.name),
                 text("span", ` deal ${s.deal || 0}${s.seeded ? " \u00b7 seeded" : ""}${s.you ? "" : " \u00b7 watching"}`, "muted"),
                 text("div", `cards: NS ${cardName(s, "NS")} \u00b7 EW ${cardName(s, "EW")}`, "muted small")));
  main.append(el("div", { class: "bar" },
    el("span", { id: "score" }, `NS ${scores.NS}${us === "NS" ? " (you)" : ""} \u00b7 EW ${scores.EW}${us === "EW" ? " (you)" : ""} \u00b7 to ${s.target}`),
    el("span", { id: "clock" }, act.clockText())));
  main.append(text("p", statusLine(s), "turn" + (playable(S) ? " mine" : "")));
  // Between deals the buttons (ready, rematch) come first: the summary below is long.
  const actions = actionsView(S, act);
  if (s.status !== "playing") main.append(actions);
  main.append(rowsView(S, act));
  main.append(detailView(S, act) || text("p", s.status === "playing" ? "Tap a played card to read what it means." : "", "muted small"));
  const hand = handView(S, act);
  if (hand) main.append(hand);
  if (S.hint && playable(S)) {
    main.append(el("div", { id: "hint", class: "detail" },
                   el("p", {}, text("b", "Hint: "), cardNode(S.hint.card)), text("p", S.hint.text)));
  }
  const questions = questionsView(S, act);
  if (questions) main.append(questions);
  if (s.status === "playing") main.append(actions);
  // The summary comes after the play on a phone; a wide screen gives it the full width
  // under both columns (style.css), where it is read without scrolling far.
  box.append(...[main, S.summary ? summaryView(S) : null, side].filter(Boolean));
  const invites = invitesView(S);
  if (invites) side.append(invites);
  if (S.log.length) {
    side.append(el("ul", { id: "table-log", class: "log" },
                   S.log.slice(-6).map((line) => text("li", line))));
  }
  const closed = s.you && s.status === "playing" ? "Chat opens when the deal ends" : null;
  side.append(chatBox(S, act, S.chat, closed));
  return box;
}

// The after-deal summary, as the terminal's (client/tui/summary.py): the winner and the
// scores, each side's kept cards and what they cost, every dealt hand with its kept cards
// marked, each side's best keep with both hands known, the information cost beside the
// expert pair's on the same hands, the deal's questions, and the evening's means.

import { SEATS, cardNode, el, seatOf, team, text } from "./dom.js";

const TEAMS = ["NS", "EW"];

function expertText(S, deal, side) {
  const got = S.expert[deal];
  if (!got) return "\u2026";
  if (got.information_cost) return String(got.information_cost[side]);
  return "n/a (busy)";
}

function means(S) {
  const history = (S.state && S.state.history) || [];
  let count = 0, waiting = 0;
  const ours = { NS: 0, EW: 0 }, theirs = { NS: 0, EW: 0 };
  for (const done of history) {
    if (!done.information_cost || done.expert_unavailable) continue;
    const got = S.expert[done.deal];
    if (got && !got.information_cost) continue; // the server was too busy to work it out
    if (!got) { waiting += 1; continue; }
    const expert = got.information_cost;
    count += 1;
    for (const side of TEAMS) { ours[side] += done.information_cost[side]; theirs[side] += expert[side]; }
  }
  if (!count) return null;
  const box = el("div", { class: "means" },
                 text("h3", `Information cost, mean of ${count} deal${count === 1 ? "" : "s"}`));
  for (const side of TEAMS) {
    box.append(text("p", `${side} ${(ours[side] / count).toFixed(1)} \u00b7 expert pair on the same deals ${(theirs[side] / count).toFixed(1)}`));
  }
  if (waiting) box.append(text("p", `${waiting} more to come: the expert pair's figure is being worked out`, "muted small"));
  return box;
}

export function summaryView(S) {
  const m = S.summary;
  const s = S.state;
  const box = el("div", { id: "summary", class: "summary" });
  const points = m.victory_points ?? m.points;
  box.append(text("h2", `Deal ${m.deal}: ${m.winner ? `${m.winner} wins ${points} victory points` : "a tie"}`));
  box.append(text("p", `Score NS ${m.scores.NS} \u00b7 EW ${m.scores.EW}` + (s ? ` (to ${s.target})` : "")));
  for (const side of TEAMS) {
    const part = el("div", { class: "side" },
                    text("h3", `${side}: penalty ${m.penalty[side]}${m.winner === side ? " (lower: wins)" : ""}`));
    const groups = el("ul", { class: "breakdown" });
    for (const g of (m.breakdown && m.breakdown[side]) || []) {
      groups.append(el("li", {}, el("span", { class: "kept" }, g.cards.map((c) => cardNode(c))),
                       text("span", ` ${g.count} \u00d7 ${g.rank}: ${g.penalty ?? g.points}`)));
    }
    part.append(groups);
    if (m.information_cost && m.best) {
      // Each figure stays with its words when the line wraps.
      const figures = [`best keep ${m.best[side].penalty}`, `information cost ${m.information_cost[side]}`,
                       `expert pair's ${expertText(S, m.deal, side)}`];
      part.append(el("p", { class: "figures" },
                     figures.flatMap((f, i) => [i ? " \u00b7 " : null, text("span", f)])));
    }
    box.append(part);
  }
  const dealt = el("div", { class: "dealt" }, text("h3", m.dealt ? "Dealt hands (kept cards marked)" : "Kept hands"));
  for (const seat of SEATS) {
    const kept = new Set((m.hands && m.hands[seat]) || []);
    const cards = m.dealt ? m.dealt[seat] : [...kept];
    const name = s ? seatOf(s, seat).name : null;
    const line = el("div", { class: "hand-line", "data-seat": seat },
                    el("span", { class: "who", title: name || null }, `${seat} ${name || ""}`));
    line.append(el("span", { class: "cards" },
                   cards.map((c) => cardNode(c, { cls: kept.has(c) && m.dealt ? "kept" : "" }))));
    if (m.best) {
      const best = (m.best[team(seat)].hands || {})[seat] || [];
      line.append(el("span", { class: "best" }, text("small", "best: "), best.map((c) => cardNode(c))));
    }
    dealt.append(line);
  }
  box.append(dealt);
  if (m.questions && m.questions.length) {
    const list = el("ul", { class: "asked" });
    for (const q of m.questions) {
      list.append(text("li", `${q.asker} asked ${q.seat}${q.index ? ` (card ${q.index})` : ""}: ${q.text || "(no text)"} \u2014 ${q.answer ?? "no answer"}`));
    }
    box.append(text("h3", "Questions"), list);
  }
  const evening = means(S);
  if (evening) box.append(evening);
  const history = (s && s.history) || [];
  if (history.length > 1) {
    box.append(text("h3", "Deals of the match"));
    box.append(el("ul", { class: "history" }, history.map((d) => text("li",
      `${d.deal}: ${d.winner ? `${d.winner} +${d.victory_points}` : "tie"} (penalty NS ${d.penalty.NS}, EW ${d.penalty.EW}) \u2192 NS ${d.scores.NS} \u00b7 EW ${d.scores.EW}`))));
  }
  return box;
}

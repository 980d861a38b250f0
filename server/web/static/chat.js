// Chat, with the terminal's rules (docs/PROTOCOL.md, chat): in the lobby everyone at no
// table reads it; a seat talks to its table only before the match, between deals and
// after it (never during a deal: partners talk only through their cards); a spectator
// talks to the other spectators only. The server enforces this; the page just says so.

import { draftForm, el, text } from "./dom.js";

const CHANNELS = { lobby: "", table: "", spectators: "[watching] " };

/** The chat log and its form; ``closed`` is why the player cannot talk now (or null). */
export function chatBox(S, act, lines, closed) {
  const log = el("ul", { id: "chat-log", class: "chat-log" });
  for (const line of lines.slice(-30)) {
    log.append(el("li", { class: `chat-${line.channel}` },
                  text("b", `${CHANNELS[line.channel] || ""}${line.name}${line.seat ? ` (${line.seat})` : ""}: `),
                  text("span", line.text)));
  }
  const form = draftForm({
    input: { id: "chat-input", maxlength: "500", autocomplete: "off",
             placeholder: closed || "say something", disabled: Boolean(closed),
             "aria-label": "chat" },
    form: { id: "chat", class: "chat" }, button: { disabled: Boolean(closed) }, label: "Send",
    drafts: S.drafts, key: "chat", send: (line) => { if (!closed) act.chat(line); } });
  return el("div", { class: "chat-box" }, text("h2", "Chat"), log, form);
}

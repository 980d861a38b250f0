"""What the terminal client knows, and what the player is in the middle of doing:
:class:`TuiState`, plain data and small methods with no I/O. The key bindings call its
methods; what must be sent goes to its outbox. Server messages reach it through
:mod:`.events`, and the layout reads it each time it draws."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import InitVar, dataclass, field
from enum import Enum

from ...game.cards import Card
from ...game.explain import Meaning, ordinal
from ...game.seats import SEATS, Seat, Team
from ...protocol import messages as m
from ...protocol import requests
from ...protocol.text import escape_text
from ..mirror import TableMirror
from . import gathering
from .composer import Composer
from .hint import hint_is_current, why_no_hint
from .lobby import JoinSeat, LobbyState, SpectateTable
from .meaning import explain_card
from .parts import Bell, ClockView, LinkView, Notice, Overlay, Panels

__all__ = [
    "Intent",
    "LogLine",
    "Mode",
    "Overlay",
    "PlayAgain",
    "Prompt",
    "TuiState",
    "ordinal",
]

LOG_SIZE = 300


def article(word: str) -> str:
    """"a" or "an" before ``word`` (by its first letter: bot names are plain words)."""
    return "an" if word[:1].lower() in "aeiou" else "a"

class Mode(Enum):
    """Which screen is up."""

    LOBBY = "lobby"
    TABLE = "table"


@dataclass(frozen=True)
class PlayAgain:
    """Intent: what next after a match (or after watching): a new match in the embedded
    game, the lobby on a server."""


#: What key handlers queue for the network task: protocol messages, or intents that
#: take several messages (the network task knows how to carry them out).
Intent = requests.ClientMessage | JoinSeat | SpectateTable | PlayAgain


@dataclass(frozen=True)
class LogLine:
    """One line of the event log; ``style`` is a class name for the layout."""

    text: str
    style: str = ""


@dataclass
class Prompt:
    """A one-line text entry: ``on_submit`` gets the text and returns an error or None."""

    label: str
    on_submit: Callable[[str], str | None]
    text: str = ""
    max_len: int = 200
    hint: str = ""
    #: Checks the text as it is typed: what is wrong with it, or "" (shown as ``hint``).
    check: Callable[[str], str] | None = None

    def edit(self, text: str) -> None:
        """Change the text (to at most ``max_len``), judged by ``check`` if it has one."""
        self.text = text[:self.max_len]
        self.hint = self.hint if self.check is None else self.check(self.text)


@dataclass
class TuiState:
    """Everything the terminal client shows; see the module docstring.

    The lobby's table list and its actions (``lobby.join``, ``lobby.create`` ...) live in
    :attr:`lobby`, which reports back through this state's ``say``, ``send`` and
    ``open_prompt``.
    """

    mode: Mode = Mode.TABLE
    #: The connection as the header shows it.
    link: LinkView = field(default_factory=LinkView)
    #: The turn's clock and the countdown to the next deal, as shown.
    clock: ClockView = field(default_factory=ClockView)
    #: On a server (not the built-in game): "n" after a match goes back to the lobby,
    #: and quitting leaves a held seat behind.
    on_server: bool = False
    #: Our seat's session stays after the match (the server has ``rematch``): "n" then
    #: asks for a rematch at this table and "g" leaves for the lobby.
    can_rematch: bool = False
    #: The target the rematch is asked for (None: the finished match's), and the deal
    #: our last ready was for (a snapshot without it says it was lost: :mod:`.gathering`).
    rematch_target: int | None = None
    ready_for: int | None = None
    #: Ask "Play 7H?" and wait for a second Enter before a card is sent (``--confirm``).
    confirm: InitVar[bool] = False
    #: What the substitute last did at our seat, until we play again ourselves.
    substitute_note: str = ""
    #: The next seated ``table_state`` is a seat taken back (a restarted client, or a
    #: reconnection): the log says so, with where the match stands.
    taking_back: bool = False
    #: The table as the server describes it: the process's one mirror (the seat
    #: session's while seated), which the screen renders from.
    mirror: TableMirror = field(default_factory=TableMirror)
    # -- what the player is doing ---------------------------------------------------------
    #: The message line.
    notice: Notice = field(default_factory=Notice)
    #: The panel over the screen, its scroll, the card being asked about.
    panels: Panels = field(default_factory=Panels)
    prompt: Prompt | None = None
    #: The last hint the server gave our seat (shown again on the same turn).
    hint: m.HintReply | None = None
    #: Questions the opponents asked us and we have not answered, oldest first.
    questions_to_me: list[m.Question] = field(default_factory=list)
    # -- plumbing ----------------------------------------------------------------------------
    log: deque[LogLine] = field(default_factory=lambda: deque(maxlen=LOG_SIZE))
    outbox: deque[Intent] = field(default_factory=deque)
    wake: Callable[[], None] = field(default=lambda: None)
    quit_requested: bool = False
    lobby: LobbyState = field(init=False, repr=False, compare=False)
    #: The terminal bell (``--no-bell`` turns it off).
    bell: Bell = field(default_factory=Bell)

    #: The card being chosen, and the play on its way.
    composer: Composer = field(init=False, repr=False, compare=False)

    def __post_init__(self, confirm: bool) -> None:
        self.lobby = LobbyState(say=self.say, send=self.send, open_prompt=self.open_prompt)
        self.composer = Composer(table=lambda: self.mirror, say=self.say, send=self.send,
                                 seat_label=self.seat_label, confirm=confirm)

    # ====================================================================== reading
    # The table itself lives in the mirror; these read it under the names the layout uses.

    @property
    def table(self) -> str | None:
        return self.mirror.table

    @property
    def table_status(self) -> str:
        return self.mirror.status

    @property
    def you(self) -> Seat | None:
        return self.mirror.you

    @property
    def turn(self) -> Seat | None:
        return self.mirror.turn

    @property
    def hand(self) -> list[Card]:
        return self.mirror.hand

    @property
    def rows(self) -> dict[Seat, list[Card]]:
        return self.mirror.rows

    @property
    def my_turn(self) -> bool:
        return self.mirror.my_turn

    @property
    def in_match(self) -> bool:
        """A match is under way at our seat and we are connected to it (quitting then
        needs a confirmation; while reconnecting Ctrl-Q quits at once: the seat is held
        and its token saved either way)."""
        return self.you is not None and self.table_status in ("playing", "between_deals") \
            and self.link.status not in ("lost", "closed", "reconnecting")


    def sorted_hand(self) -> list[Card]:
        """The hand sorted by rank, then suit (spades, hearts, diamonds, clubs)."""
        return self.composer.hand()

    def group_sizes(self) -> Counter[int]:
        """How many cards of each rank the hand holds."""
        return Counter(card.rank for card in self.hand)

    def explain(self, seat: Seat, index: int) -> tuple[str, Meaning] | None:
        """The meaning of ``seat``'s ``index``-th card under its partnership's declared card,
        as (text, data); None when there is no card there or no explanation available."""
        return explain_card(self.mirror, seat, index)

    def seat_label(self, seat: Seat) -> str:
        """"N Alice", "E (empty)", with "(you)" on our own seat ("S you" when our name
        is "you", not "S you (you)")."""
        info = self.mirror.seats[seat]
        if info.kind == "empty" or not info.name:
            label = f"{seat} (empty)"
        else:  # escaped: an old record or server may hold what today's server refuses
            label = f"{seat} {escape_text(info.name)}"
        if seat is self.you and (info.name or "").lower() != "you":
            label += " (you)"
        return label

    def who(self, seat: Seat) -> str:
        """How the log names a seat: "You" for ours, else its label."""
        return "You" if seat is self.you else self.seat_label(seat)

    # ====================================================================== table actions

    def toggle_pause(self) -> None:
        """p: ask for a pause, agree to the one asked for, or end it (or withdraw ours)."""
        pause = self.mirror.pause
        if self.you is None:
            self.say("Only the players at the table ask for a pause.", "error")
        elif pause is not None and (pause.paused or self.you in pause.agreed):
            self.send(requests.Resume())
        elif self.table_status not in ("playing", "between_deals"):
            self.say("A pause is for a match under way.", "error")
        elif pause is None and self.table_status == "playing" and not self.my_turn:
            self.say("During a deal you ask for a pause on your own turn (so it says "
                     "nothing to partner).", "error")
        else:
            self.send(requests.Pause())

    def open_chat(self) -> None:
        """m: type a chat line (seated players cannot talk while a deal is played)."""
        if self.mode is Mode.TABLE and self.you is not None and self.table_status == "playing":
            self.say("No chat during a deal: partners talk only through their cards. "
                     "Chat opens again when the deal ends.", "error")
            return
        where = "the lobby" if self.mode is Mode.LOBBY or self.table is None \
            else "the spectators" if self.you is None else "the table"

        def send(text: str) -> str | None:
            if not text.strip():
                return "Type something first (Esc to cancel)."
            self.send(requests.Chat(text=text.strip()))
            return None

        self.open_prompt(f"Say to {where}: ", send, max_len=500)


    def take_hint(self, msg: m.HintReply) -> None:
        """The server's hint for our seat: put the cursor on its card and show why."""
        self.hint = msg
        hand = self.sorted_hand()
        if msg.card in hand and self.my_turn:
            self.composer.select(hand.index(msg.card))
        self.say(f"Hint: the expert would play {msg.card} (under the cursor: Enter plays "
                 f"it). x shows why again.")
        if self.prompt is None:
            self.panels.open(Overlay.HINT)

    def ask_hint(self) -> None:
        """x: what would the expert play now, and why? Asked of the server (which tells
        everyone at the table), or shown again when this turn's hint is known."""
        problem = why_no_hint(self.mirror)
        if problem is not None:
            self.say(problem, "error")
            return
        if hint_is_current(self.hint, self.mirror):
            assert self.hint is not None
            self.take_hint(self.hint)
            return
        self.hint = None
        self.say("Asking the expert bot for a hint (everyone at the table will be told)...")
        self.send(requests.Hint())


    def on_error(self, code: str, message: str) -> None:
        """A request failed on the server: nothing changed there; say why."""
        self.composer.awaiting_play = None
        self.say(f"Server: {message} [{code}]", "error")
        self.add_log(f"Server refused: {message} [{code}]", "error")
        if self.prompt is None:  # a refused new table: its dialog again, answers kept
            self.lobby.create_refused(message)

    def set_status(self, status: str, detail: str = "", retry_in: float | None = None) -> None:
        """Connection status from the network task (connected / reconnecting / lost);
        ``retry_in``: seconds until the next reconnection attempt."""
        if status == "reconnecting" and self.you is not None:
            self.taking_back = True  # the reclaim's snapshot then says where we stand
        line = self.link.set(status, detail, retry_in)
        if line:
            self.add_log(line, "good" if status == "connected" else "warn")

    # ====================================================================== small helpers

    def add_log(self, text: str, style: str = "") -> None:
        # Escaped here, once for every line: log lines quote names, questions, answers
        # and the server's own messages, any of which an old record or server may hold raw.
        self.log.append(LogLine(escape_text(text), style))

    def say(self, text: str, style: str = "info") -> None:
        """Show ``text`` on the message line (the place where choices are explained);
        escaped, as log lines are."""
        self.notice.say(text, style)

    def send(self, msg: Intent) -> None:
        """Queue ``msg`` for the network task and wake it."""
        self.outbox.append(msg)
        self.wake()

    def open_prompt(self, label: str, on_submit: Callable[[str], str | None], *,
                    max_len: int = 200, text: str = "",
                    check: Callable[[str], str] | None = None, hint: str = "") -> None:
        """Open a one-line text entry (see :class:`Prompt`) that holds ``text`` already."""
        self.prompt = Prompt(label, on_submit, text, max_len, hint, check)

    @property
    def after_match_keys(self) -> str:
        """What n (and g) do for us once the match is over. On a server without a rematch
        for us (a spectator, or a server without the feature) n goes to the lobby."""
        if self.can_rematch:
            return "n: rematch, g: lobby"
        return "n: lobby" if self.on_server else "n: play again"

    def to_lobby(self) -> None:
        """g after the match: give up the seat (no rematch for us) and go to the lobby."""
        if self.you is None or self.table_status != "over" or not self.can_rematch:
            self.say("g goes back to the lobby once the match is over.", "error")
            return
        self.send(requests.Leave())
        self.send(PlayAgain())
        self.say("Back to the lobby...")

    def ready(self) -> None:
        """n: ready to start (or for the next deal); after the match, play again. A
        spectator goes back to the lobby."""
        if self.you is None:
            if self.table is not None and self.mode is Mode.TABLE:
                self.send(PlayAgain())
                self.say("Back to the lobby...")
        elif self.table_status == "over" and self.can_rematch:
            gathering.ask_rematch(self)
        elif self.table_status == "over":
            self.send(PlayAgain())
            self.say("Back to the lobby..." if self.on_server else "Setting up a new match...")
        elif self.table_status == "playing":
            self.say("The deal is under way.", "error")
        else:
            gathering.said_ready(self)

    # ---------------------------------------------------------------- prompts and panels

    def prompt_char(self, char: str) -> None:
        if self.prompt is not None and char.isprintable():
            self.prompt.edit(self.prompt.text + char)

    def prompt_backspace(self) -> None:
        if self.prompt is not None:
            self.prompt.edit(self.prompt.text[:-1])

    def prompt_submit(self) -> None:
        """Enter in a prompt: hand the text over; keep the prompt open if it is refused."""
        prompt = self.prompt
        if prompt is None:
            return
        error = prompt.on_submit(prompt.text)
        if error is None:
            if self.prompt is prompt:
                self.prompt = None
        else:
            prompt.hint = error

    def prompt_cancel(self) -> None:
        self.prompt = None

    def request_quit(self) -> None:
        """Ctrl-Q / Ctrl-C: quit at once, or ask first while a match is under way."""
        if self.in_match and self.panels.overlay is not Overlay.QUIT:
            self.panels.overlay = Overlay.QUIT
        else:
            self.quit_requested = True

    def confirm_quit(self) -> None:
        self.quit_requested = True

    # ====================================================================== bots at the table

    def table_add_bot(self) -> None:
        """b at a table that is still waiting for players: fill a free seat with a bot."""
        if self.table is None or self.table_status not in ("waiting", "over"):
            self.say("Bots can be added only before the first deal or after the match.",
                     "error")
            return
        free = [s.value for s in SEATS if self.mirror.seats[s].kind == "empty"]
        self.lobby.bot_prompt(self.table, free, refresh=False)


def deal_result_text(deal: int, winner: Team | None, penalty: Mapping[Team, int],
                     points: int) -> str:
    """The log's line for a scored deal (as it ends, and again when a restarted client
    takes its seat back)."""
    if winner is None:
        return f"Deal {deal} tied at {penalty.get(Team.NS)}: nobody scores."
    return (f"Deal {deal}: {winner} win, penalties {penalty.get(Team.NS)}-"
            f"{penalty.get(Team.EW)} (NS-EW), +{points} points.")

"""Run any program as a Jackal seat: what ``jackal bot --exec COMMAND`` does. The host writes
each ``your_turn`` (and, with ``events="all"``, every event) to the program's stdin as one
line and reads a card back; everything else (the seat, keepalive, reconnecting, answering
questions) is the same :class:`~jackal.client.session.SeatSession` and ``play_match`` as
``jackal bot --strategy``. Faults, restarts and limits are docs/BOTS.md's ("Level 2")."""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import signal
import subprocess
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, NoReturn

import msgspec
import trio

from ..bots.base import Strategy, accept_choice
from ..bots.host import fallback_card
from ..game.cards import Card, format_cards
from ..game.conventions import ConventionCard
from ..game.seats import Team
from ..protocol.codec import encode
from ..protocol.messages import DealStarted, ServerMessage, YourTurn
from .botrunner import BotResult, choose_card, play_match
from .release import ReleaseClock
from .sandbox import Sandbox
from .session import SeatSession

__all__ = ["EXEC_EVENTS", "EXEC_FEATURES", "MOVE_SECONDS", "START_SECONDS", "ConventionCards",
           "ExecEvents", "ExecProgram", "ExecResult", "ProgramFault", "end_tree", "kill_group",
           "play_exec_match"]

log = logging.getLogger("jackal.bot")

#: The ``welcome.features`` a hosted program relies on (pass them to ``SeatSession``).
EXEC_FEATURES = ("your_turn",)
#: A hosted program's two time limits, one default wherever one is hosted (``jackal bot
#: --exec`` and the tournament's ``exec:`` entries; the tournament also times ``cmd:``
#: clients by the first): the time for each move, and the extra time for the first answer
#: after each start or restart (an interpreter loading).
MOVE_SECONDS = 10.0
START_SECONDS = 10.0
#: Longest answer line read from the program; a card is three characters at most.
MAX_ANSWER = 1024
#: How long the program gets to exit after its stdin is closed.
EXIT_GRACE = 2.0
#: What a program is sent: ``your_turn`` only (the default), or every event and the cards.
ExecEvents = Literal["your_turn", "all"]
EXEC_EVENTS: tuple[ExecEvents, ...] = ("your_turn", "all")


class ConventionCards(msgspec.Struct, tag="convention_cards", tag_field="type"):
    """Host to program (``events="all"``), before a deal's first line: both whole cards
    the deal is played under. The host's own line, never sent on the network."""

    deal: int
    cards: dict[Team, ConventionCard]


class ProgramFault(Exception):
    """The program did not answer a move with a card: ``kind`` is timeout, crash or garbage."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


async def end_tree(proc: trio.Process, *, launched: bool) -> None:
    """Stop ``proc`` and everything it started, and wait for it. A program run by the
    launcher (:mod:`jackal.client.reaper`, ``launched``) is asked with SIGTERM first, so
    the launcher kills the processes that left the group too (``setsid``); the group is
    killed whole after that, or at once."""
    if launched and proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        with trio.move_on_after(EXIT_GRACE):
            await proc.wait()
    kill_group(proc)
    await proc.wait()


def kill_group(proc: trio.Process) -> None:
    """SIGKILL ``proc``'s whole process group (it leads one: ``start_new_session``).

    Safe after ``proc`` itself has exited: the group's id stays taken while any member
    lives, and no new group can get it.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


class ExecProgram:
    """One external program: start it, ask it for a card, restart it, stop it."""

    def __init__(self, command: str | Sequence[str], *, max_restarts: int = 3,
                 startup_seconds: float = 0.0, sandbox: Sandbox | None = None,
                 where: str = "") -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("empty command")
        self.max_restarts = max_restarts
        #: Extra time for the first answer after a (re)start, so that a short move limit
        #: does not count the interpreter's own start-up against the program.
        self.startup_seconds = startup_seconds
        self.sandbox = sandbox
        #: Put before each of its log lines: which copy this is where several run at once
        #: (``jackal tournament`` gives "table t3 seat E (mybot): "); empty for jackal bot.
        self.where = where
        #: Where the program's stderr goes: ours (None), or a pipe the caller reads
        #: (``subprocess.PIPE``; the tournament labels and escapes each line).
        self.stderr: int | None = None
        #: Whether the running process is the launcher (:mod:`jackal.client.reaper`).
        self._launched = False
        self.restarts = 0
        #: Why the program is not started again (set once; every later move faults at
        #: once with its kind and detail), or None while it may be.
        self.given_up: ProgramFault | None = None
        #: How many times the program was started: a new number is a new process, which
        #: knows nothing the earlier one was told.
        self.starts = 0
        self._fresh = False
        self._proc: trio.Process | None = None
        self._buffer = b""

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    async def start(self) -> None:
        """Start the program; raises ``OSError`` when it cannot be run at all."""
        sandbox = self.sandbox
        if sandbox is None:
            self._proc = await trio.lowlevel.open_process(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self.stderr, start_new_session=True)
        else:
            try:
                self._proc = await trio.lowlevel.open_process(
                    sandbox.argv(self.argv), env=sandbox.env(), pass_fds=sandbox.pass_fds(),
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                    start_new_session=True)
            finally:
                sandbox.started()
            self._launched = sandbox.plan.bwrap is None
        self._buffer = b""
        self._fresh = True
        self.starts += 1

    async def ask(self, line: bytes, timeout: float) -> str:
        """Send one line, return the program's answer line; raise :class:`ProgramFault`."""
        if self.given_up is not None:
            raise ProgramFault(self.given_up.kind, self.given_up.detail)
        if not self.running:
            self.restarts += 1
            log.warning("%sstarting the program again (restart %d of at most %d)",
                        self.where, self.restarts, self.max_restarts)
            try:
                await self.start()
            except OSError as exc:
                await self._stopped(ProgramFault("crash", f"cannot start it again: {exc}"),
                                    "it cannot be started")
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            with trio.fail_after(timeout + (self.startup_seconds if self._fresh else 0.0)):
                await proc.stdin.send_all(line)
                answer = await self._read_line()
            self._fresh = False
        except trio.TooSlowError:
            hung_again = self._fresh and self.restarts > 0
            await self._stopped(ProgramFault("timeout", f"no answer within {timeout:g}s"),
                                "it hung again on its first move after a restart"
                                if hung_again else None)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await self._stopped(ProgramFault("crash", self._exit_detail()), None)
        if answer is None:
            await self._stopped(ProgramFault("crash", self._exit_detail()), None)
        return answer

    async def _stopped(self, fault: ProgramFault, give_up: str | None) -> NoReturn:
        """Kill the program after ``fault`` and raise it. It will be started again at the
        next move, unless ``give_up`` says why not or its restarts are used up: then
        every later move raises a fault of the same kind at once."""
        await self.kill()
        if give_up is None and self.restarts >= self.max_restarts:
            give_up = f"it was started again {self.restarts} times already (the limit)"
        if give_up is not None:
            log.warning("%sthe program is not started again: %s (%s); its moves are played "
                        "for it for the rest of the match", self.where, give_up, fault)
            self.given_up = ProgramFault(fault.kind, f"not started again ({give_up})")
        raise fault

    async def tell(self, line: bytes, timeout: float) -> bool:
        """Send a line that needs no answer; False when it did not reach the program.

        A program that is not running is not started for it (it is at its next move); one
        that does not take the line within ``timeout`` is killed, as a timeout is.
        """
        proc = self._proc
        if not self.running or proc is None or proc.stdin is None:
            return False
        try:
            with trio.fail_after(timeout + (self.startup_seconds if self._fresh else 0.0)):
                await proc.stdin.send_all(line)
            return True
        except trio.TooSlowError:
            log.warning("%sthe program did not read its input for %gs; stopping it",
                        self.where, timeout)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # it exited: the next move starts it again, and says so
        await self.kill()
        return False

    async def _read_line(self) -> str | None:
        """The next non-blank line of the program's stdout, or None at its end."""
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        while True:
            head, newline, rest = self._buffer.partition(b"\n")
            if newline:
                self._buffer = rest
                text = head.decode("utf-8", errors="replace").strip()
                if text:
                    return text
                continue
            if len(self._buffer) > MAX_ANSWER:
                self._buffer = b""
                raise ProgramFault("garbage", f"an answer line longer than {MAX_ANSWER} "
                                              "bytes")
            data = await proc.stdout.receive_some(4096)
            if not data:
                return None
            self._buffer += data

    def _exit_detail(self) -> str:
        code = None if self._proc is None else self._proc.returncode
        return "the program closed its output" if code is None else \
            f"the program exited with status {code}"

    async def kill(self) -> None:
        """Stop the program and everything it started, at once (idempotent)."""
        proc = self._proc
        if proc is None:
            return
        with trio.CancelScope(shield=True):
            await end_tree(proc, launched=self._launched)
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    await stream.aclose()
        # Forgotten once stopped: close() at the end must not report the status of a
        # process the host killed (-9) or gave up on mid-match as the program's last word.
        self._proc = None

    async def close(self) -> None:
        """End of the match: close its stdin, give it :data:`EXIT_GRACE` s, then kill it."""
        proc = self._proc
        if proc is None:
            return
        with trio.CancelScope(shield=True):
            if proc.stdin is not None:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await proc.stdin.aclose()
            with trio.move_on_after(EXIT_GRACE):
                status = await proc.wait()
                if status != 0:
                    # Its last word: a program checking itself at the end says so here.
                    log.warning("%sthe program exited with status %d at the end of the "
                                "match", self.where, status)
        await self.kill()


@dataclass
class ExecResult:
    """How the match ended for the hosted program."""

    match: BotResult
    #: Moves the fallback (or substitute) played, by fault kind ("timeout", "crash",
    #: "garbage").
    faults: Counter[str] = field(default_factory=Counter)
    restarts: int = 0
    #: The same moves by deal number (a tournament scores deal 1 only).
    deal_faults: dict[int, Counter[str]] = field(default_factory=dict)

    def fault_summary(self) -> str:
        """``"2 timeout, 1 garbage"``, or ``"none"``."""
        return ", ".join(f"{count} {kind}" for kind, count in sorted(self.faults.items())) \
            or "none"


async def play_exec_match(session: SeatSession, program: ExecProgram, *,
                          move_seconds: float = MOVE_SECONDS,
                          events: ExecEvents = "your_turn",
                          substitute: Strategy | None = None, floor_seconds: float = 0.0,
                          thinking: trio.CapacityLimiter | None = None) -> ExecResult:
    """Play every turn of ``session``'s seat with ``program`` until the match ends.

    ``session.run`` must already be running (and seated); ``program`` already started.
    Each ``your_turn`` from the server goes to the program as it came (re-encoded from
    the decoded message, the same JSON); with ``events="all"`` every other event too,
    and a :class:`ConventionCards` line once a deal. A move the program fails is played
    by ``substitute`` when given, else by the fallback card. Raises
    :class:`~jackal.client.session.SessionLost` if the seat is lost for good.

    With ``floor_seconds``, every card (the program's, the substitute's or the fallback)
    leaves on the fixed schedule of :class:`~jackal.client.release.ReleaseClock`, counted
    from when the turn reached the host. ``thinking`` bounds how many programs think at
    once (``jackal tournament --jobs``); the wait for it is not the program's move time.
    """
    host = _ExecTurns(session, program, move_seconds, events, substitute,
                      ReleaseClock(floor_seconds, program.where), thinking)
    try:
        result = await play_match(session, on_your_turn=host.choose,
                                  on_event=host.relay if events == "all" else None)
    finally:
        await program.close()
    return ExecResult(match=result, faults=host.faults, restarts=program.restarts,
                      deal_faults=host.deal_faults)


class _ExecTurns:
    """One program's turns at one seat: what it is told, and what it answers."""

    def __init__(self, session: SeatSession, program: ExecProgram, move_seconds: float,
                 events: ExecEvents, substitute: Strategy | None, clock: ReleaseClock,
                 thinking: trio.CapacityLimiter | None) -> None:
        self.session, self.program, self.move_seconds = session, program, move_seconds
        self.events, self.substitute, self.clock = events, substitute, clock
        self.thinking = thinking
        self.faults: Counter[str] = Counter()
        self.deal_faults: dict[int, Counter[str]] = {}
        # (deal, program start) the cards were last told for: a new deal or a restarted
        # program is told again.
        self.cards_told: tuple[int, int] | None = None

    def with_cards(self, line: bytes, deal: int, starts: int) -> bytes:
        if self.events != "all" or self.cards_told == (deal, starts):
            return line
        mirror = self.session.mirror
        cards = ConventionCards(deal=deal, cards=dict(mirror.played_under
                                                      or mirror.conventions))
        return encode(cards) + line

    def told(self, deal: int) -> None:
        if self.events == "all":
            program = self.program
            self.cards_told = (deal, program.starts) if program.running else None

    async def relay(self, event: ServerMessage) -> None:
        if isinstance(event, YourTurn):
            return  # asked by choose(), which waits for the answer
        line = encode(event)
        deal = self.session.mirror.deal
        if isinstance(event, DealStarted):
            line = self.with_cards(line, deal, self.program.starts)
        if await self.program.tell(line, self.move_seconds) and isinstance(event, DealStarted):
            self.told(deal)

    async def choose(self, turn: YourTurn) -> tuple[Card, str]:
        started = trio.current_time()
        if self.thinking is None:
            chosen = await self.decide(turn)
        else:
            async with self.thinking:
                chosen = await self.decide(turn)
        await self.clock.hold(started)
        return chosen

    async def decide(self, turn: YourTurn) -> tuple[Card, str]:
        program, hand = self.program, tuple(turn.hand)
        # A program that is not running is started by ask(): a new process, to be told.
        starts = program.starts + (0 if program.running else 1)
        try:
            try:
                answer = await program.ask(self.with_cards(encode(turn), turn.deal, starts),
                                           self.move_seconds)
            finally:
                self.told(turn.deal)
            card = accept_choice(answer, hand)
            if card is None:
                raise ProgramFault("garbage", f"answered {answer[:40]!r}, which is not a "
                                              f"card of the hand {format_cards(hand)}")
            return card, ""
        except ProgramFault as exc:
            return await self.fault(turn, exc)

    async def fault(self, turn: YourTurn, exc: ProgramFault) -> tuple[Card, str]:
        """The program failed this turn: the substitute, or the same fallback as every
        other bot host (jackal bot, server-side bots), plays for it."""
        if self.substitute is not None:
            card, who = await choose_card(self.substitute, self.session), "substitute"
        else:
            card, who = fallback_card(self.session.mirror.view()), "fallback"
        self.faults[exc.kind] += 1
        self.deal_faults.setdefault(turn.deal, Counter())[exc.kind] += 1
        # Once per kind at warning level: a program that keeps failing the same way must
        # not drown the log.
        log.log(logging.WARNING if self.faults[exc.kind] == 1 else logging.DEBUG,
                "%sthe program failed to answer (%s); the %s plays %s", self.program.where,
                exc, who, card)
        return card, f" ({who}: {exc.kind})"

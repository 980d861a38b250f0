"""A table's seating, a part the table owns: who sits where and who watches, who may sit
where (invitations, the addresses a side has held during the match), seat tokens, and
who is here to be told things. Also the types the table and its parts share (kept apart
from table.py so that none of them imports it)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Protocol

from ..game.seats import SEATS, TEAMS, Seat, Team
from ..protocol.errors import ErrorCode, ProtocolError
from ..protocol.messages import BotPlayedBy, SeatInfo, SeatKind, ServerMessage
from .tokens import hash_invite, new_token

__all__ = ["Outbox", "Peer", "SeatSlot", "Seating"]


class Peer(Protocol):
    """Whoever can receive messages: in the server, one client connection."""

    def deliver(self, msg: ServerMessage) -> None: ...


Outbox = list[tuple[Peer, ServerMessage]]


@dataclass
class SeatSlot:
    """One seat: who sits there, whether they are here, and who plays for them."""

    seat: Seat
    kind: SeatKind = "empty"
    name: str | None = None
    peer: Peer | None = None
    token_hash: str | None = None
    ready: bool = False
    #: Bot seats: the strategy; human seats: the takeover bot's, while it plays.
    strategy: str | None = None
    #: A disconnected human's seat is held until this time.
    held_until: float | None = None
    #: A server-side bot plays this human seat (the hold ran out).
    takeover: bool = False
    #: The network address (host) of the connection that took or last reclaimed this
    #: human seat (None: unknown, e.g. restored from a record).
    host: str | None = None
    #: During a deal: the seat's presence (connected, substitute) as the others were last
    #: told of it, while it differs from the truth; None: they know the truth. A drop, a
    #: return or a takeover is told only at the seat's turn boundaries (:mod:`.holds`).
    shown: tuple[bool, str | None] | None = None

    @property
    def presence(self) -> tuple[bool, str | None]:
        """Whether a player (or a bot seat) is here, and the substitute playing for an
        absent one (None: none)."""
        return self.connected, self.strategy if self.kind == "human" and self.takeover \
            else None

    @property
    def connected(self) -> bool:
        return self.kind == "bot" or self.peer is not None

    @property
    def bot_controlled(self) -> bool:
        return self.kind == "bot" or (self.kind == "human" and self.takeover)

    @property
    def stand_in(self) -> BotPlayedBy | None:
        """Who plays this person's card when they do not: the ``substitute`` while they
        are away, else the substitute's one card when their ``clock`` ran out. None at a
        bot's seat, whose cards are its own."""
        if self.kind == "bot":
            return None
        return "substitute" if self.takeover else "clock"

    def clear(self) -> None:
        """Make the seat empty."""
        self.kind = "empty"
        self.name = self.peer = self.token_hash = self.strategy = self.held_until = None
        self.host = self.shown = None
        self.ready = self.takeover = False


class Seating:
    """The four seats of one table and who watches it: who may sit where (invitations,
    addresses held during the match), seat tokens, and who is here to be told things."""

    __slots__ = ("_left_names", "_match_hosts", "creator", "invites", "seats", "spectators",
                 "table_id")

    def __init__(self, table_id: str, invites: dict[Seat, str] | None,
                 creator: Peer | None = None) -> None:
        self.table_id = table_id
        #: A private table: each seat's invitation code, hashed (None: a public table).
        self.invites = invites
        self.seats: dict[Seat, SeatSlot] = {seat: SeatSlot(seat) for seat in SEATS}
        self.spectators: dict[Peer, None] = {}  # insertion-ordered set
        #: The connection that created the table: at a private table it may ``add_bot``
        #: without a code (not kept over a restart: the codes still work then).
        self.creator = creator
        #: The addresses that have held a seat of each partnership since the match
        #: started: none of them may take a seat of the other side that someone left.
        self._match_hosts: dict[Team, set[str]] = {team: set() for team in TEAMS}
        #: The name of the player who left each seat mid-match: a player of that side
        #: who sits there again during the deal takes it back under it (see :meth:`sit`).
        self._left_names: dict[Seat, str] = {}

    # ------------------------------------------------------------------ who is here

    def audience(self) -> list[tuple[Peer, Seat | None]]:
        """Every connected recipient with its seat (None for spectators)."""
        out: list[tuple[Peer, Seat | None]] = [
            (slot.peer, slot.seat) for slot in self.seats.values() if slot.peer is not None]
        out.extend((peer, None) for peer in self.spectators)
        return out

    def broadcast(self, *msgs: ServerMessage, skip: Peer | None = None) -> Outbox:
        """``msgs``, in order, for everyone at the table (but ``skip``)."""
        audience = [peer for peer, _ in self.audience() if peer is not skip]
        return [(peer, msg) for msg in msgs for peer in audience]

    def seat_of(self, peer: Peer) -> Seat | None:
        for slot in self.seats.values():
            if slot.peer is peer:
                return slot.seat
        return None

    def require_seat(self, peer: Peer) -> SeatSlot:
        seat = self.seat_of(peer)
        if seat is None:
            raise ProtocolError(ErrorCode.NOT_SEATED,
                                f"you have no seat at table {self.table_id}")
        return self.seats[seat]

    @property
    def is_empty(self) -> bool:
        """Nobody sits here (not even a bot) and nobody watches."""
        return not self.spectators and all(slot.kind == "empty" for slot in self.seats.values())

    @property
    def people_playing(self) -> bool:
        """A person sits here and is connected (not a bot, not a held seat)."""
        return any(slot.kind == "human" and slot.peer is not None
                   for slot in self.seats.values())

    @property
    def attended(self) -> bool:
        """Someone is here: a person playing, or anyone watching. A table nobody attends
        for ``unattended_seconds`` stops (the table task's rule)."""
        return bool(self.spectators) or self.people_playing

    @property
    def humans(self) -> list[SeatSlot]:
        return [slot for slot in self.seats.values() if slot.kind == "human"]

    def present(self) -> set[Seat]:
        """The seats of the persons here: human, seated and connected."""
        return {slot.seat for slot in self.humans if slot.peer is not None}

    def holds(self) -> list[float]:
        """When each seat held for an absent player stops being held."""
        return [slot.held_until for slot in self.seats.values()
                if slot.held_until is not None and not slot.takeover]

    def infos(self) -> tuple[SeatInfo, ...]:
        """Each seat as snapshots show it, N first."""
        out = []
        for slot in (self.seats[seat] for seat in SEATS):
            # What the others were told, not the truth a seat times (see ``shown``).
            connected, substitute = slot.shown or slot.presence
            out.append(SeatInfo(seat=slot.seat, name=slot.name, kind=slot.kind,
                                connected=connected, ready=slot.ready,
                                substitute=substitute))
        return tuple(out)

    # ------------------------------------------------------------------ who may sit where

    def invited_seat(self, seat: Seat | None, invite: str | None) -> Seat | None:
        """The seat ``invite`` opens at a private table (``seat`` as given at a public
        one): ``not_invited`` unless the code is that seat's (or, without ``seat``, any
        seat's). Every seat's hash is compared, in constant time."""
        invites = self.invites
        if invites is None:
            return seat
        if invite is None:
            raise ProtocolError(ErrorCode.NOT_INVITED,
                                f"field 'invite': table {self.table_id} is private: its "
                                f"seats are taken with their invitation codes")
        given = hash_invite(invite)
        opened: Seat | None = None
        for each in SEATS:
            if hmac.compare_digest(given, invites[each]):
                opened = each
        if opened is None or (seat is not None and seat is not opened):
            which = f"seat {seat}" if seat is not None else "any seat"
            raise ProtocolError(ErrorCode.NOT_INVITED,
                                f"field 'invite': not the invitation code of {which} "
                                f"at table {self.table_id}")
        return opened

    def choose(self, peer: Peer, seat: Seat | None, invite: str | None, host: str | None,
               in_match: bool) -> SeatSlot:
        """The seat ``peer`` (from address ``host``) may take: ``seat``, or the first free
        one its address may take; refused with the code that says why not."""
        if self.seat_of(peer) is not None:
            raise ProtocolError(ErrorCode.ALREADY_SEATED, "you already sit at this table")
        seat = self.invited_seat(seat, invite)
        if seat is None:
            free = [slot for slot in self.seats.values() if slot.kind == "empty"
                    and not (in_match and slot.seat in self._left_names)]
            if not free and in_match and any(slot.kind == "empty"
                                              for slot in self.seats.values()):
                raise ProtocolError(ErrorCode.SEAT_VACATED,
                                    f"the free seats of table {self.table_id} were left "
                                    f"mid-match: only the creator's invitations fill them")
            if not free:
                raise ProtocolError(ErrorCode.TABLE_FULL,
                                    f"table {self.table_id} has no free seat")
            open_to = [slot for slot in free
                       if not self._opponent_of(slot.seat, host, in_match)]
            slot = open_to[0] if open_to else free[0]
        else:
            slot = self.seats[seat]
            if slot.kind != "empty":
                raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {seat} is taken")
            if in_match and seat in self._left_names and invite is None:
                # Whoever sits there reads its hand: only someone the creator invites
                # (its seat's code at a private table), never just anyone who asks,
                # since any connection may be the other partnership's, from any address.
                raise ProtocolError(ErrorCode.SEAT_VACATED,
                                    f"seat {seat} was left mid-match: only an invitation "
                                    f"from the table's creator seats someone there")
        if self._opponent_of(slot.seat, host, in_match):
            raise ProtocolError(ErrorCode.OPPONENT_ADDRESS,
                                f"seat {slot.seat} was left mid-match, and your address "
                                f"holds a seat of the other side at table {self.table_id}")
        return slot

    def sit(self, slot: SeatSlot, peer: Peer, name: str, host: str | None, *,
            in_match: bool, playing: bool) -> str:
        """Seat ``peer`` at ``slot`` (chosen by :meth:`choose`); returns its new token."""
        left_name = self._left_names.get(slot.seat)
        if left_name is not None and playing and host is not None \
                and host in self._match_hosts[slot.seat.team]:
            # Someone of that side (its player, back from a leave, or partner's second
            # connection) sits down during the deal: as a reclaim does, the seat keeps
            # its name, which would otherwise be free text to partner.
            name = left_name
        token, token_hash = new_token()
        slot.kind, slot.name, slot.peer, slot.token_hash = "human", name, peer, token_hash
        slot.ready, slot.host = False, host
        self.remember_host(slot, in_match)
        self.spectators.pop(peer, None)
        return token

    def restore(self, seat: Seat, kind: SeatKind, name: str | None, token_hash: str | None,
                strategy: str | None, *, ready: bool, held_until: float) -> None:
        """``seat`` as a record left it after a restart, its player not connected: a
        person's seat is held until ``held_until`` and kept ``ready`` if the record says so;
        a bot is always ready."""
        slot = self.seats[seat]
        slot.kind, slot.name, slot.token_hash, slot.strategy = kind, name, token_hash, strategy
        slot.ready = kind == "bot" or ready
        if kind == "human":
            slot.held_until = held_until

    def all_ready(self) -> bool:
        """Every seat is taken, and every person seated said ready."""
        return not any(slot.kind == "empty" or (slot.kind == "human" and not slot.ready)
                       for slot in self.seats.values())

    def all_back(self) -> bool:
        """Every seat is taken, and every person seated is connected and ready (after a
        match: asked for the rematch)."""
        return not any(slot.kind == "empty" or (slot.kind == "human" and not (
            slot.peer is not None and slot.ready)) for slot in self.seats.values())

    def unready(self, but: SeatSlot | None = None) -> None:
        """No person seated is ready any more (but ``but``, who is)."""
        for slot in self.humans:
            slot.ready = slot is but

    def match_over(self, held_until: float) -> None:
        """The match ended: a player who is away (their seat held or played by a bot) may
        still come back to see the end, so their seat is held once more (to
        ``held_until``), then the table goes; from here a person's ready flag says they
        asked for a rematch."""
        for slot in self.seats.values():
            away = slot.kind == "human" and slot.peer is None
            slot.held_until = held_until if away else None
            slot.takeover = False
            slot.ready = slot.kind == "bot"

    def seat_bot(self, slot: SeatSlot, strategy: str) -> str:
        """A server-side bot with ``strategy`` sits at ``slot`` (always ready); returns
        its name."""
        name = f"{strategy} bot"
        slot.kind, slot.name, slot.strategy, slot.ready = "bot", name, strategy, True
        return name

    def watch(self, peer: Peer, *, allowed: bool) -> None:
        """``peer`` watches the table (its creator's connection may always: a tournament
        director does; others only where the table ``allowed`` spectators)."""
        if self.seat_of(peer) is not None:
            raise ProtocolError(ErrorCode.ALREADY_SEATED, "you sit at this table already")
        if not allowed and peer is not self.creator:
            raise ProtocolError(ErrorCode.NO_SPECTATORS,
                                f"table {self.table_id} allows no spectators")
        self.spectators[peer] = None

    def leave(self, slot: SeatSlot, in_match: bool) -> None:
        """The player at ``slot`` gives it up (its name is kept for the match)."""
        if in_match and slot.name is not None:
            self._left_names[slot.seat] = slot.name
        slot.clear()

    def _opponent_of(self, seat: Seat, host: str | None, in_match: bool) -> bool:
        """During a match, ``host`` has held a seat of the side ``seat`` plays against:
        a second connection of an opponent must not sit down in a seat someone left and
        read its hand."""
        return in_match and host is not None and host in self._match_hosts[seat.team.other]

    def remember_hosts(self, in_match: bool) -> None:
        """Note the address of every person seated (the match starts)."""
        for slot in self.humans:
            self.remember_host(slot, in_match)

    def remember_host(self, slot: SeatSlot, in_match: bool) -> None:
        """Note the address of ``slot``'s player once the match is on (kept to its end,
        so leaving one's own seat does not open an opponent's)."""
        if in_match and slot.host is not None:
            self._match_hosts[slot.seat.team].add(slot.host)

    def new_match(self) -> None:
        """A rematch: no address or name of the last match counts any more."""
        self._match_hosts = {team: set() for team in TEAMS}
        self._left_names = {}
        for slot in self.seats.values():
            slot.held_until, slot.takeover = None, False

    def stop_watching(self, peer: Peer) -> bool:
        """``peer`` watches no more (nothing is sent); False if it was not watching."""
        watching = peer in self.spectators
        self.spectators.pop(peer, None)
        return watching

    def mark_ready(self, slot: SeatSlot) -> bool:
        """The person at ``slot`` is ready (after a match: asks for the rematch); False if
        they were already."""
        if slot.ready:
            return False
        slot.ready = True
        return True

    # ------------------------------------------------------------------ holds

    def hold(self, slot: SeatSlot, until: float, *, unready: bool) -> None:
        """The player at ``slot`` lost their connection: the seat is theirs until
        ``until`` (``unready``: before the match, they are no longer ready)."""
        slot.peer, slot.held_until = None, until
        if unready:
            slot.ready = False

    def seat_back(self, slot: SeatSlot, peer: Peer, host: str | None,
                  in_match: bool) -> tuple[Peer | None, bool]:
        """``peer`` (from address ``host``) takes back its held seat, whoever had it and
        whoever played for it. Returns the connection the seat had (the newer one wins),
        and True if a substitute played it until now."""
        old, from_substitute = slot.peer, slot.takeover
        self.spectators.pop(peer, None)
        slot.peer, slot.held_until, slot.takeover = peer, None, False
        if from_substitute:
            slot.strategy = None
        if host is not None:
            slot.host = host
            self.remember_host(slot, in_match)
        return old, from_substitute

    def substitute(self, slot: SeatSlot, strategy: str) -> None:
        """A server-side bot with ``strategy`` plays the held seat ``slot`` from now."""
        slot.takeover, slot.strategy = True, strategy

    def hold_for_good(self, slot: SeatSlot) -> None:
        """``slot`` stays held with no end (a table without substitutes waits)."""
        slot.held_until = None

    def free(self, slot: SeatSlot) -> None:
        """``slot`` is empty again (a hold ran out before or after the match)."""
        slot.clear()

    def keep_shown(self, slot: SeatSlot, before: tuple[bool, str | None]) -> None:
        """The others keep seeing ``slot``'s presence as it was (``before``) until they are
        told (:meth:`take_shown`): a change is told only at the seat's turn boundaries."""
        if slot.shown is None:
            slot.shown = before

    def take_shown(self, slot: SeatSlot) -> tuple[bool, str | None] | None:
        """What the others saw of ``slot``'s presence until now, when it differed from the
        truth (None: they knew it); from now they know the truth."""
        shown, slot.shown = slot.shown, None
        return shown

    def find_token(self, token_hash: str) -> Seat | None:
        """The seat whose token hashes to ``token_hash``, if any (constant-time compare)."""
        found: Seat | None = None
        for slot in self.seats.values():
            # Compare against every seat, not stopping early, so timing says nothing.
            if slot.kind == "human" and slot.token_hash is not None and hmac.compare_digest(
                    token_hash, slot.token_hash):
                found = slot.seat
        return found

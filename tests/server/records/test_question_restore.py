"""Questions across a server restart (issue 32 item 2): the record brings back the deal's
open questions, its answers and each seat's count, and question ids go on where they were
(a record never holds two ``q1``)."""

from __future__ import annotations

from pathlib import Path

from jackal.game.seats import SEATS, Seat
from jackal.protocol.errors import ErrorCode, ProtocolError
from jackal.protocol.messages import Question, TableState
from jackal.server import views
from jackal.server.disclosure import MAX_QUESTIONS
from jackal.server.records.files import RecordFile
from jackal.server.records.restore import restore_tables
from jackal.server.snapshot import table_snapshot
from jackal.server.table import Table
from jackal.server.table_options import TableOptions
from support.peer import Peer
from support.records import lines


def _asked_mid_deal(directory: Path) -> None:
    """Four people; after four plays N asks E (left open) and S twice (answered once),
    E asks N (answered); then the server stops."""
    record = RecordFile.create(directory, "t1")
    table = Table("t1", TableOptions(name="asked", target=300, seed=5), recorder=record)
    table.record_header()
    peers = {seat: Peer() for seat in SEATS}
    for seat, peer in peers.items():
        table.join(peer, f"p{seat}", seat)
    for peer in peers.values():
        table.ready(peer)
    for _ in range(4):
        deal = table.match.deal
        assert deal is not None and deal.turn is not None
        table.play(peers[deal.turn], deal.legal_plays()[0], 1.0)
    table.ask(peers[Seat.N], Seat.E, "open one?", None)  # q1, left open
    out = table.ask(peers[Seat.E], Seat.N, "why?", None)  # q2
    qid = next(msg.question for _, msg in out if isinstance(msg, Question))
    table.answer(peers[Seat.N], qid, "a pair")
    record.close()


def test_open_questions_answers_and_counts_survive_a_restart(tmp_path: Path) -> None:
    _asked_mid_deal(tmp_path)
    [(table, record)] = restore_tables(tmp_path, 100.0)
    disclosure = table.disclosure
    assert [(q.asker, q.target, q.text) for q in disclosure.questions.values()] == [
        (Seat.N, Seat.E, "open one?")]
    assert disclosure.questions_left() == {Seat.N: MAX_QUESTIONS - 1, Seat.E: MAX_QUESTIONS - 1,
                                           Seat.S: MAX_QUESTIONS, Seat.W: MAX_QUESTIONS}
    # E, back with its token, sees the question it still has to answer and the answer
    # it got; N sees its open question and the one it answered; partners see nothing.
    snap = table_snapshot(table)
    east: TableState = views.table_state(snap, Seat.E)
    assert [q.text for q in east.questions or ()] == ["open one?"]
    assert [(q.text, q.answer) for q in east.answered or ()] == [("why?", "a pair")]
    for partner in (Seat.S, Seat.W):
        state = views.table_state(snap, partner)
        assert state.questions is None and state.answered is None
    # The next question is q3, not a second q1.
    east_peer, north_peer = Peer(), Peer()
    table.reclaim(east_peer, Seat.E, 101.0)
    table.reclaim(north_peer, Seat.N, 101.0)
    out = table.ask(north_peer, Seat.E, "and now?", None)
    assert next(msg.question for _, msg in out if isinstance(msg, Question)) == "q3"
    table.ask(north_peer, Seat.E, "last?", None)
    try:
        table.ask(north_peer, Seat.E, "too many?", None)
    except ProtocolError as exc:
        assert exc.code is ErrorCode.TOO_MANY_QUESTIONS
    else:
        raise AssertionError("a fourth question this deal was taken after the restart")
    record.close()
    ids = [line["question"] for line in lines(record.path) if line["event"] == "question"]
    assert len(ids) == len(set(ids)), ids

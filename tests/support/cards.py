"""Hypothesis strategies for valid convention cards, shared by the card and bot tests."""

from __future__ import annotations

from hypothesis import strategies as st
from jackal.game.conventions import (
    MAX_ONE_IN,
    Answer,
    ConventionCard,
    NoMeaning,
    Promise,
    Tolerance,
    Tolerances,
)

one_line = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=60)
promises = st.builds(Promise, offset=st.integers(-12, 12), count=st.integers(1, 4),
                     fallback=st.sampled_from(["high", "low"]))
tolerances = st.builds(Tolerance, one_in=st.one_of(st.just(0), st.integers(2, MAX_ONE_IN)),
                       when=one_line)


@st.composite
def valid_cards(draw: st.DrawFn, name: st.SearchStrategy[str] | None = None) -> ConventionCard:
    """Any card that ``jackal conventions check`` accepts: every offset, every count 1..4,
    either fallback, any boundary, answers to any earlier promise, any tolerance."""
    plays: list[Promise | Answer | NoMeaning] = []
    for _ in range(8):
        earlier = [j + 1 for j, rule in enumerate(plays) if isinstance(rule, Promise)]
        answer: bool = draw(st.booleans())
        if earlier and answer:
            plays.append(Answer(play=draw(st.sampled_from(earlier))))
        else:
            plays.append(draw(st.one_of(st.builds(NoMeaning), promises, promises)))
    return ConventionCard(
        name=draw(name if name is not None else st.just("generated")),
        low_max=draw(st.integers(1, 12)), plays=tuple(plays),
        tolerance=Tolerances(promise=draw(tolerances), answer=draw(tolerances)))

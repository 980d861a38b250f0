"""Finding a strategy by name (``random``) or by import path (``mybots:Clever``)."""

from __future__ import annotations

import importlib
from typing import Any

from ..game.conventions import ConventionCard
from ..game.errors import MalformedInput
from .base import Strategy, StrategyFactory
from .baseline import BaselineStrategy
from .beginner import BeginnerStrategy
from .expert import ExpertStrategy
from .greedy import GreedyStrategy
from .random_bot import RandomStrategy

__all__ = ["STRATEGIES", "load_strategy", "make_strategy", "substitute_strategy"]

#: Built-in strategies by name.
STRATEGIES: dict[str, StrategyFactory] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "baseline": BaselineStrategy,
    "beginner": BeginnerStrategy,
    "expert": ExpertStrategy,
}


def load_strategy(spec: str) -> StrategyFactory:
    """A factory for ``spec``: a built-in name, or ``module:Class`` importable from sys.path."""
    if spec in STRATEGIES:
        return STRATEGIES[spec]
    if ":" not in spec:
        known = ", ".join(sorted(STRATEGIES))
        raise MalformedInput(f"unknown strategy {spec!r} (built in: {known}; "
                             f"or give module:Class)")
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
        factory: Any = getattr(module, attr)
    except (ImportError, AttributeError) as exc:
        raise MalformedInput(f"cannot load strategy {spec!r}: {exc}") from None
    if not callable(factory):
        raise MalformedInput(f"strategy {spec!r} is not a class or function")
    return _seeded(factory)


def _seeded(factory: Any) -> StrategyFactory:
    """Call user classes with a seed if they accept one, without if they do not."""

    def build(seed: int) -> Strategy:
        try:
            strategy = factory(seed)
        except TypeError:
            strategy = factory()
        if not callable(getattr(strategy, "choose", None)):
            raise MalformedInput(f"{factory!r} has no choose(view) method")
        return strategy  # type: ignore[no-any-return]

    return build


def make_strategy(spec: str, seed: int = 0) -> Strategy:
    """Build the strategy named by ``spec`` with ``seed`` (any size: a server passes 128
    unpredictable bits from ``secrets`` so that no opponent can replay a bot's
    randomness; the arena passes seeds derived from its run's seed)."""
    return load_strategy(spec)(seed)


def substitute_strategy(card: ConventionCard | None = None) -> str:
    """The strategy name for a seat that needs a bot under its partnership's ``card``.

    For the substitute of a missing player and the default of ``add_bot``: a strategy
    that keeps to every card ``jackal conventions check`` accepts (never deviating more
    than the card declares) and plays it strongly. Today that is ``expert`` for every
    card: it reads and speaks any card's rules, and it measured strongest under each
    built-in card (docs/BOTS.md). Kept a function of the card so that a card-specific
    choice can be made here, in one place, without touching the server.
    """
    del card  # every valid card: see the docstring
    return "expert"

"""The Jackal rules: cards, deals, scoring, matches and convention cards.

Pure and deterministic: no I/O, no clock, no randomness that does not come from a
seed. Everything else in the project is built on this package.
"""

from __future__ import annotations

from .cards import DECK, RANK_NAMES, SUITS, Card, format_cards, parse_card, parse_hand, rank_name
from .deal import HAND_SIZE, KEEP, PLAYS_PER_DEAL, PLAYS_PER_SEAT, Deal, deal_hands
from .errors import ErrorCode, IllegalAction, JackalError, MalformedInput, Refusal
from .match import DEFAULT_TARGET, Match, deal_seed, first_dealer
from .rng import SplitMix64, derive_seed
from .scoring import (
    MAX_PENALTY,
    DealResult,
    RankGroup,
    TeamScore,
    compare_teams,
    score_deal,
    score_hands,
    score_team,
    team_penalty,
    victory_points,
)
from .seats import SEATS, TEAMS, Seat, Team

__all__ = [
    "DECK",
    "DEFAULT_TARGET",
    "HAND_SIZE",
    "KEEP",
    "MAX_PENALTY",
    "PLAYS_PER_DEAL",
    "PLAYS_PER_SEAT",
    "RANK_NAMES",
    "SEATS",
    "SUITS",
    "TEAMS",
    "Card",
    "Deal",
    "DealResult",
    "ErrorCode",
    "IllegalAction",
    "JackalError",
    "MalformedInput",
    "Match",
    "RankGroup",
    "Refusal",
    "Seat",
    "SplitMix64",
    "Team",
    "TeamScore",
    "compare_teams",
    "deal_hands",
    "deal_seed",
    "derive_seed",
    "first_dealer",
    "format_cards",
    "parse_card",
    "parse_hand",
    "rank_name",
    "score_deal",
    "score_hands",
    "score_team",
    "team_penalty",
    "victory_points",
]

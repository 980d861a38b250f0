"""Convention cards as data: :class:`ConventionCard` and its rules (:class:`Promise`,
:class:`Answer`, :class:`NoMeaning`, :class:`Tolerance`), validation, TOML/JSON files and
the built-in cards. A card that exists is a valid one: every card is checked when it is
built, decoded or converted, and a bad one raises :class:`CardError` naming the field.
What the rules mean is docs/CONVENTIONS.md's."""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import msgspec

from .errors import MalformedInput

__all__ = [
    "BUILTIN_CARDS",
    "DEFAULT_CARD",
    "MAX_DESCRIPTION",
    "MAX_NAME",
    "MAX_NOTES",
    "MAX_OFFSET",
    "MAX_ONE_IN",
    "MAX_WHEN",
    "PLAYS",
    "Answer",
    "CardError",
    "ConventionCard",
    "NoMeaning",
    "Promise",
    "Rule",
    "Tolerance",
    "Tolerances",
    "builtin_card",
    "card_from_json",
    "card_from_toml",
    "card_to_json",
    "card_to_toml",
    "load_card_file",
    "resolve_card",
    "validate_card",
]

#: Every card has exactly one rule per play number 1..PLAYS.
PLAYS = 8
#: A promise may point at most this many ranks away; further would never name a rank.
MAX_OFFSET = 12
MAX_NAME = 32
MAX_DESCRIPTION = 200
MAX_NOTES = 4000
#: A declared tolerance for false signals is "at most one play in N", N in 2..MAX_ONE_IN
#: (0 for none): beyond one in two a statement would be false more often than true. An
#: integer, as every number of a card is (the protocol's numbers are integers).
MAX_ONE_IN = 1000
MAX_WHEN = 200


class CardError(MalformedInput):
    """A convention card that cannot be used; ``field`` names the bad part ("" if none)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}" if field else problem)
        self.field = field
        self.problem = problem


class _RuleBase(msgspec.Struct, tag_field="kind", frozen=True, forbid_unknown_fields=True):
    """Rules are tagged by a ``kind`` field ("promise", "answer", "none")."""


class Promise(_RuleBase, tag="promise", frozen=True):
    """Promise ``count`` or more cards of rank (card played + ``offset``)."""

    offset: int
    count: int = 2
    fallback: Literal["high", "low"] = "high"

    def promised_rank(self, rank_played: int) -> int | None:
        """The rank a card of ``rank_played`` promises, or None off the end of A..K.

        Offsets do not wrap: under ``beginner`` an ace as 1st card and a king as 2nd
        card promise nothing.
        """
        target = rank_played + self.offset
        return target if 1 <= target <= 13 else None


class Answer(_RuleBase, tag="answer", frozen=True):
    """Answer partner's play number ``play`` (1..8): low = I hold that rank, high = none."""

    play: int


class NoMeaning(_RuleBase, tag="none", frozen=True):
    """A discard that says nothing."""


Rule = Promise | Answer | NoMeaning


class Tolerance(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How often, and when, a player may knowingly break one kind of rule.

    The player plays a false card while an honest one was in hand on at most one in
    ``one_in`` of that kind's meaningful plays (0 = never); ``when`` says in words in
    which situations it happens ("the honest card costs too much").
    """

    one_in: int = 0
    when: str = ""

    @property
    def rate(self) -> float:
        """The largest share of plays that may deviate (0.0 for none)."""
        return 1.0 / self.one_in if self.one_in else 0.0

    def words(self) -> str:
        """"may deviate when ... (about 1 in 20)", or "" for no tolerance."""
        if not self.one_in:
            return ""
        when = f" when {self.when}" if self.when else ""
        return f"may deviate{when} (about 1 in {self.one_in})"


class Tolerances(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A card's tolerance for false signals, one per kind of rule that says something."""

    promise: Tolerance = Tolerance()
    answer: Tolerance = Tolerance()

    def of(self, rule: Rule) -> Tolerance | None:
        """The tolerance that applies to plays under ``rule`` (None for a free discard)."""
        if isinstance(rule, Promise):
            return self.promise
        if isinstance(rule, Answer):
            return self.answer
        return None


class ConventionCard(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A partnership's declared agreements, one rule per play number 1..8."""

    name: str
    plays: tuple[Rule, ...]
    description: str = ""
    notes: str = ""
    #: Ranks up to and including this are "low"; above it, "high". Beginner: 7.
    low_max: int = 7
    #: How often and when the partnership may knowingly give a false signal (default: never).
    tolerance: Tolerances = Tolerances()

    def __post_init__(self) -> None:
        # Raised during decoding, msgspec turns this into a ValidationError (keeping ours
        # as __cause__), so a bad inline card on the wire is refused like any bad field.
        validate_card(self)

    def rule(self, play: int) -> Rule:
        """The rule for play number ``play`` (1..8)."""
        return self.plays[play - 1]

    def is_low(self, rank: int) -> bool:
        """Whether a card of ``rank`` counts as low under this card."""
        return rank <= self.low_max


# --------------------------------------------------------------------------- validation

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _check_text(field: str, value: str, limit: int, *, one_line: bool) -> None:
    if len(value) > limit:
        raise CardError(field, f"at most {limit} characters (got {len(value)})")
    if one_line and ("\n" in value or "\r" in value):
        raise CardError(field, "must be one line")
    if _CONTROL.search(value):
        raise CardError(field, "must not contain control characters")


def validate_card(card: ConventionCard) -> ConventionCard:
    """Check ``card`` against every rule of the format; return it, or raise :class:`CardError`.

    Cards are already checked when built; this is the explicit entry point.
    """
    if not card.name.strip():
        raise CardError("name", "must not be empty")
    _check_text("name", card.name, MAX_NAME, one_line=True)
    _check_text("description", card.description, MAX_DESCRIPTION, one_line=True)
    _check_text("notes", card.notes, MAX_NOTES, one_line=False)
    for kind in ("promise", "answer"):
        allowed: Tolerance = getattr(card.tolerance, kind)
        if allowed.one_in != 0 and not 2 <= allowed.one_in <= MAX_ONE_IN:
            raise CardError(f"tolerance.{kind}.one_in",
                            f"must be 0 (never) or 2..{MAX_ONE_IN} (at most one play in that "
                            f"many; got {allowed.one_in})")
        _check_text(f"tolerance.{kind}.when", allowed.when, MAX_WHEN, one_line=True)
    if not 1 <= card.low_max <= 12:
        raise CardError("low_max", f"must be 1..12 (the highest low rank; got {card.low_max})")
    if len(card.plays) != PLAYS:
        raise CardError("plays", f"must list exactly {PLAYS} rules, one per play "
                                 f"(got {len(card.plays)})")
    for i, rule in enumerate(card.plays):
        where = f"plays[{i}]"
        play = i + 1
        if isinstance(rule, Promise):
            if not -MAX_OFFSET <= rule.offset <= MAX_OFFSET:
                raise CardError(f"{where}.offset", f"must be -{MAX_OFFSET}..{MAX_OFFSET} "
                                                   f"(got {rule.offset}; play {play})")
            if not 1 <= rule.count <= 4:
                raise CardError(f"{where}.count",
                                f"must be 1..4 (got {rule.count}; play {play})")
        elif isinstance(rule, Answer):
            # Within a round one partner always plays before the other, and a card is the
            # same for both: only a play of an earlier round is public to both when they
            # answer it.
            if not 1 <= rule.play < play:
                raise CardError(f"{where}.play",
                                f"play {play} can only answer an earlier play of partner, "
                                f"1..{play - 1} (got {rule.play})" if play > 1 else
                                f"play 1 cannot answer anything: partner has not played yet "
                                f"(got {rule.play})")
            target = card.plays[rule.play - 1]
            if not isinstance(target, Promise):
                raise CardError(f"{where}.play",
                                f"play {play} answers play {rule.play}, which is not a promise")
        elif not isinstance(rule, NoMeaning):  # only reachable from Python, not from files
            raise CardError(where, f"not a rule: {rule!r}")
    return card


# --------------------------------------------------------------------------- loading

# msgspec reports "<problem> - at `$.plays[2].offset`"; we say "plays[2].offset: <problem>".
_AT = re.compile(r"^(?P<problem>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_FIELD_IN = re.compile(r"(?:missing required|unknown) field `(?P<field>[^`]+)`")


def _card_error(exc: msgspec.ValidationError) -> CardError:
    """Our :class:`CardError` for a msgspec validation failure, naming the field."""
    cause = exc.__cause__
    match = _AT.match(str(exc))
    path = ((match.group("path") or "") if match else "").lstrip(".")
    if isinstance(cause, CardError):
        # Raised by validate_card inside a nested struct: prefix where it sat.
        field = ".".join(part for part in (path, cause.field) if part)
        return CardError(field, cause.problem)
    problem = match.group("problem") if match else str(exc)
    named = _FIELD_IN.search(problem)
    if named:
        path = ".".join(part for part in (path, named.group("field")) if part)
        problem = ("required, but missing" if "missing" in problem
                   else "unknown field (not part of a convention card)")
    problem = problem.replace("`", "")
    return CardError(path, problem[:1].lower() + problem[1:])


def _from_obj(obj: Any) -> ConventionCard:
    if not isinstance(obj, dict):
        raise CardError("", "a convention card must be a table/object at the top level")
    try:
        return msgspec.convert(obj, ConventionCard)
    except msgspec.ValidationError as exc:
        raise _card_error(exc) from exc


def card_from_toml(text: str) -> ConventionCard:
    """Read a card from TOML text; raise :class:`CardError` naming the bad field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardError("", f"not valid TOML: {exc}") from exc
    return _from_obj(data)


def card_from_json(text: str | bytes) -> ConventionCard:
    """Read a card from JSON text; raise :class:`CardError` naming the bad field."""
    try:
        return msgspec.json.decode(text, type=ConventionCard)
    except msgspec.ValidationError as exc:
        raise _card_error(exc) from exc
    except msgspec.DecodeError as exc:
        raise CardError("", f"not valid JSON: {exc}") from exc


def card_to_json(card: ConventionCard, *, indent: int = 2) -> str:
    """The card as JSON text (pretty-printed with ``indent`` spaces; 0 for one line)."""
    raw = msgspec.json.encode(card)
    return (msgspec.json.format(raw, indent=indent) if indent else raw).decode()


def _toml_string(value: str, *, multiline: bool = False) -> str:
    """A TOML basic string, multi-line if asked (so notes stay readable in the file).

    Escapes what TOML forbids raw (control characters, DEL), backslashes and every quote,
    so no run of quotes can close a multi-line string early.
    """
    out = ['"""\n' if multiline else '"']
    for ch in value:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\n" if multiline else "\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch < " " or ch == "\x7f":
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"""' if multiline else '"')
    return "".join(out)


def _toml_rule(rule: Rule) -> str:
    if isinstance(rule, Promise):
        # Defaults are left out, as a person would write the file.
        extra = (f", count = {rule.count}" if rule.count != 2 else "") + (
            f', fallback = "{rule.fallback}"' if rule.fallback != "high" else "")
        return f'{{ kind = "promise", offset = {rule.offset}{extra} }}'
    if isinstance(rule, Answer):
        return f'{{ kind = "answer", play = {rule.play} }}'
    return '{ kind = "none" }'


def card_to_toml(card: ConventionCard) -> str:
    """The card as a TOML document that :func:`card_from_toml` reads back equal."""
    lines = [
        f"name = {_toml_string(card.name)}",
        f"description = {_toml_string(card.description)}",
        f"low_max = {card.low_max}",
        "plays = [",
        *(f"  {_toml_rule(rule)},  # play {i}" for i, rule in enumerate(card.plays, 1)),
        "]",
    ]
    if card.notes:
        lines.append(f"notes = {_toml_string(card.notes, multiline=True)}")
    tables = [(kind, allowed) for kind in ("promise", "answer")
              if (allowed := getattr(card.tolerance, kind)) != Tolerance()]
    if tables:
        lines.append("")
        lines.append("[tolerance]  # how often and when a false signal may be given on purpose")
        lines += [f"{kind} = {{ one_in = {allowed.one_in}, when = {_toml_string(allowed.when)} }}"
                  for kind, allowed in tables]
    return "\n".join(lines) + "\n"


def load_card_file(path: str | Path) -> ConventionCard:
    """Read a card from a ``.toml`` or ``.json`` file (other names: guessed from content).

    Raises :class:`CardError` for a bad card and ``OSError`` if the file cannot be read.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    suffix = path.suffix.lower()
    if suffix == ".json" or (suffix != ".toml" and text.lstrip().startswith("{")):
        return card_from_json(text)
    return card_from_toml(text)


# --------------------------------------------------------------------------- built-ins


def _load_builtins() -> dict[str, ConventionCard]:
    """Every ``card_<name>.toml`` shipped in this package, keyed by ``<name>``.

    A broken built-in is a packaging bug, so it fails loudly at import, naming the file.
    """
    cards: dict[str, ConventionCard] = {}
    entries = [entry for entry in resources.files(__package__).iterdir()
               if entry.name.startswith("card_") and entry.name.endswith(".toml")]
    for entry in sorted(entries, key=lambda e: e.name):
        key = entry.name[len("card_"):-len(".toml")]
        try:
            card = card_from_toml(entry.read_text(encoding="utf-8"))
        except CardError as exc:
            raise CardError(exc.field, f"{exc.problem} (in built-in {entry.name})") from exc
        if card.name != key:
            raise CardError("name", f"built-in {entry.name} must be named {key!r}, "
                                    f"not {card.name!r}")
        cards[key] = card
    return cards


#: The cards that ship with Jackal, by name (``beginner``, ``none``, and any other
#: ``card_<name>.toml`` placed in this package).
BUILTIN_CARDS: dict[str, ConventionCard] = _load_builtins()
#: The card both partnerships play under until they declare one: at a new table, and so
#: in a record's replay before its first ``conventions`` line.
DEFAULT_CARD = "beginner"


def builtin_card(name: str) -> ConventionCard:
    """The built-in card called ``name`` (case-insensitive); :class:`CardError` if none."""
    card = BUILTIN_CARDS.get(name.strip().lower())
    if card is None:
        known = ", ".join(sorted(BUILTIN_CARDS))
        raise CardError("", f"no built-in convention card named {name!r} (built-in: {known})")
    return card


def resolve_card(spec: str, *, allow_files: bool = True) -> ConventionCard:
    """A built-in card by name, else (if ``allow_files``) a card read from the file ``spec``.

    Servers must pass ``allow_files=False`` for names that come off the wire, so a client
    cannot make the server read its files. Raises :class:`CardError` (also when the file
    is missing or unreadable, with the OS's reason).
    """
    if spec.strip().lower() in BUILTIN_CARDS or not allow_files:
        return builtin_card(spec)
    path = Path(spec)
    if not path.is_file():
        if path.suffix.lower() in (".toml", ".json") or "/" in spec or "\\" in spec:
            raise CardError("", f"no such card file: {spec!r}")
        known = ", ".join(sorted(BUILTIN_CARDS))
        raise CardError("", f"{spec!r} is neither a built-in card ({known}) nor a card file")
    try:
        return load_card_file(path)
    except OSError as exc:
        raise CardError("", f"cannot read {spec!r}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise CardError("", f"cannot read {spec!r}: not UTF-8 text") from exc

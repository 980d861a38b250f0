"""Where Jackal keeps its files on this machine: saved seat tokens (``jackal play``) and match
records (``jackal serve``) are state, neither configuration nor cache, so they live in the
XDG state folder's ``jackal`` (``$XDG_STATE_HOME``, default ``~/.local/state``)."""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_state_path

__all__ = ["records_dir", "seats_dir", "state_dir"]


def state_dir() -> Path:
    """``$XDG_STATE_HOME/jackal``, or ``~/.local/state/jackal`` when it is unset or not an
    absolute path (the specification says to ignore a relative one); on macOS and
    Windows their own state folder (platformdirs)."""
    return user_state_path("jackal", appauthor=False)


def records_dir() -> Path:
    """Where ``jackal serve`` writes match records unless told otherwise."""
    return state_dir() / "records"


def seats_dir() -> Path:
    """Where ``jackal play`` saves the tokens of the seats it holds."""
    return state_dir()

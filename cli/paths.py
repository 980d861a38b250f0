"""Where Jackal keeps its files on this machine.

Saved seat tokens (``jackal play``) and match records (``jackal serve``) are state: not
configuration a person edits, not a cache one may throw away. The XDG base directory
specification puts such data in ``$XDG_STATE_HOME`` (default ``~/.local/state``); ours
lives in its ``jackal`` folder.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["records_dir", "seats_dir", "state_dir"]


def state_dir() -> Path:
    """``$XDG_STATE_HOME/jackal``, or ``~/.local/state/jackal`` when it is unset or not an
    absolute path (the specification says to ignore a relative one)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "jackal"


def records_dir() -> Path:
    """Where ``jackal serve`` writes match records unless told otherwise."""
    return state_dir() / "records"


def seats_dir() -> Path:
    """Where ``jackal play`` saves the tokens of the seats it holds."""
    return state_dir()

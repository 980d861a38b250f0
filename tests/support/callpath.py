"""Which of Jackal's source files a stretch of real work passes through, in order: the
check behind docs/ARCHITECTURE.md's drawn data paths, and the count of their hops."""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from support import ROOT

#: The package's folders (pyproject maps each to a subpackage of ``jackal``).
PACKAGES = ("arena", "bots", "cli", "client", "game", "protocol", "server")


class CallPath:
    """The project files entered by function calls, consecutive repeats folded, in the
    order they were entered (``files``). With ``outside``, a call made while a frame of
    those folders is on the stack is left out: the client's path without the embedded
    server's work that shares its thread. With ``carrying``, only calls handed an
    instance of that type count: the path of one kind of message, not of its neighbours."""

    def __init__(self, outside: Sequence[str] = (), carrying: type | None = None) -> None:
        self.files: list[str] = []
        self._outside = tuple(f"{name}/" for name in outside)
        self._carrying = carrying
        self._names: dict[str, str | None] = {}

    def _name(self, filename: str) -> str | None:
        name = self._names.get(filename, "")
        if name == "":
            try:
                relative = Path(filename).resolve().relative_to(ROOT).as_posix()
            except ValueError:
                relative = None
            name = relative if relative and relative.startswith(
                tuple(f"{p}/" for p in PACKAGES)) else None
            self._names[filename] = name
        return name

    def _profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        name = self._name(frame.f_code.co_filename)
        if name is None:
            return
        if self._carrying is not None and not any(
                isinstance(value, self._carrying) for value in frame.f_locals.values()):
            return
        if self._outside:
            outer: FrameType | None = frame
            while outer is not None:
                entered = self._name(outer.f_code.co_filename)
                if entered is not None and entered.startswith(self._outside):
                    return
                outer = outer.f_back
        if not self.files or self.files[-1] != name:
            self.files.append(name)

    @property
    def hops(self) -> int:
        """How many times the work moved from one file to another."""
        return max(len(self.files) - 1, 0)

    @contextmanager
    def tracing(self) -> Iterator[CallPath]:
        """Trace this thread, and threads started meanwhile, until the block ends."""
        sys.setprofile(self._profile)
        threading.setprofile(self._profile)
        try:
            yield self
        finally:
            sys.setprofile(None)
            threading.setprofile(None)


def drawn_path(doc: str, heading: str) -> list[list[str]]:
    """The files each numbered step of the section ``heading`` names, step by step (a
    step runs to the next step or to a blank line)."""
    section = doc.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    steps = re.split(r"\n(?=\d+\. )|\n\n", "\n" + section)
    return [re.findall(r"`([a-z_/]+\.py)`", step) for step in steps if re.match(r"\d+\. ", step)]


def missing_in_order(path: list[list[str]], files: Sequence[str]) -> list[str]:
    """The files of ``path`` (steps in order; within a step, in the order named) that
    ``files`` does not pass through in that order; empty when the drawn path holds."""
    at = 0
    missing: list[str] = []
    for step in path:
        for name in step:
            try:
                at = files.index(name, at)
            except ValueError:
                missing.append(name)
    return missing

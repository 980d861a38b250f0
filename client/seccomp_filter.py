"""The seccomp filter a hosted program runs under (:func:`filter_file`), built with
pyseccomp over the system's libseccomp: it refuses every call that reaches a kernel object
two copies of a program could share (file locks, inotify, keys, ptrace, namespaces,
mounts), so the copies cannot tell each other their hands (docs/BOTS.md, "The sandbox")."""

from __future__ import annotations

import errno
import functools
import os
import tempfile
from typing import IO, Any

__all__ = ["REFUSED_CALLS", "REFUSED_FCNTL", "filter_file", "seccomp_problem"]

#: Calls refused outright (EPERM): locks and watches on shared inodes, kernel keyrings,
#: other processes' memory, new namespaces and mounts, kernel modules, BPF, page-cache
#: probes (mincore, cachestat, RWF_NOWAIT reads) and io_uring (which would bypass the rest).
REFUSED_CALLS = (
    "flock", "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init",
    "fanotify_mark", "keyctl", "add_key", "request_key", "userfaultfd", "ptrace",
    "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp", "perf_event_open",
    "bpf", "mount", "umount2", "pivot_root", "chroot", "setns", "unshare", "move_mount",
    "open_tree", "fsopen", "fsmount", "fspick", "mount_setattr", "name_to_handle_at",
    "open_by_handle_at", "init_module", "finit_module", "delete_module", "kexec_load",
    "kexec_file_load", "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "mincore", "cachestat",
    "preadv2", "pwritev2", "lookup_dcookie", "mq_open", "msgget", "semget", "shmget",
    "clone3", "personality", "iopl", "ioperm", "vhangup", "sysfs", "uselib", "ustat",
    "landlock_create_ruleset", "futex_waitv",
)
#: fcntl commands refused: POSIX locks, open file description locks (F_OFD_*), leases
#: and directory notices, which all live on the inode where every copy sees them.
REFUSED_FCNTL = {
    "F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36, "F_OFD_SETLK": 37,
    "F_OFD_SETLKW": 38, "F_SETLEASE": 1024, "F_GETLEASE": 1025, "F_NOTIFY": 1026,
}
#: clone flags that make a new namespace: refused (EPERM) so a program cannot build one.
_CLONE_NEW = 0x7E020080  # NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWTIME


@functools.cache
def seccomp_problem() -> str | None:
    """Why no filter can be built here, or None when it can."""
    try:
        _build()
    except Exception as exc:  # no pyseccomp, no libseccomp, an unknown architecture
        return f"cannot build a seccomp filter ({type(exc).__name__}: {exc})"
    return None


def _build() -> Any:  # pyseccomp's SyscallFilter (it has no type hints)
    import pyseccomp as seccomp  # type: ignore[import-untyped,unused-ignore]

    refuse = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in REFUSED_CALLS:
        try:
            rules.add_rule(refuse, name)
        except (ValueError, RuntimeError, OSError):
            continue  # a call this libseccomp or architecture does not know
    for command in REFUSED_FCNTL.values():
        rules.add_rule(refuse, "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    # clone3 is refused above, so a C library falls back to clone, whose flags are seen.
    for bit in range(32):
        if _CLONE_NEW >> bit & 1:
            rules.add_rule(refuse, "clone",
                           seccomp.Arg(0, seccomp.MASKED_EQ, 1 << bit, 1 << bit))
    return rules


def filter_file() -> IO[bytes]:
    """A fresh file holding the filter as BPF, read from its start (bwrap --seccomp FD
    reads it); the caller passes its descriptor to bwrap and closes it after the start."""
    rules = _build()
    out = tempfile.TemporaryFile()  # noqa: SIM115  (the caller closes it)
    rules.export_bpf(out)
    out.seek(0)
    os.set_inheritable(out.fileno(), True)
    return out

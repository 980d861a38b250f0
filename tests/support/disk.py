"""A full disk for the record tests: a small tmpfs mounted for one test (skipped where
mounting is refused) and a filler that takes its last byte."""

from __future__ import annotations

import contextlib
import errno
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def tiny_tmpfs(folder: Path) -> Iterator[Path]:
    """``folder``, made and mounted as a 256 KiB tmpfs until the block ends."""
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to the last byte."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as out:
        for size in (65536, 4096, 1):
            while True:
                try:
                    out.write(b"\0" * size)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC
                    break
    return filler

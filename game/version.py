"""The installed ``jackal-game`` distribution's version: what ``jackal --version`` prints
and what the server's ``welcome`` says."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["package_version"]


def package_version() -> str:
    try:
        return version("jackal-game")
    except PackageNotFoundError:  # pragma: no cover  (running from an uninstalled tree)
        return "0+unknown"

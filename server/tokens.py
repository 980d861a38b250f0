"""Seat tokens: long random secrets, stored only as hashes.

A token is ``secrets.token_urlsafe(32)``: 256 random bits, so guessing is hopeless.
The server keeps (and records) only its SHA-256; a presented token is hashed and the
hash compared with ``hmac.compare_digest``, so neither a leaked record file nor the
time a comparison takes helps an attacker.

Invitation codes (private tables) are kept the same way, but are made to be read out and
typed: 16 characters from an alphabet without look-alikes (80 bits), in groups of four.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = ["TOKEN_BYTES", "hash_invite", "hash_token", "new_invite", "new_token",
           "token_matches"]

TOKEN_BYTES = 32
#: No 0/o, 1/l/i: a code passed on by voice or retyped from a screen stays right.
INVITE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
INVITE_GROUPS = 4


def new_token() -> tuple[str, str]:
    """A fresh token and its hash, as ``(token, token_hash)``."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, hash_token(token)


def hash_token(token: str) -> str:
    """The hex SHA-256 of ``token`` (what the server stores)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, token_hash: str) -> bool:
    """Whether ``token`` hashes to ``token_hash``, compared in constant time."""
    return hmac.compare_digest(hash_token(token), token_hash)


def new_invite() -> tuple[str, str]:
    """A fresh invitation code and its hash, as ``(code, code_hash)``."""
    groups = ("".join(secrets.choice(INVITE_ALPHABET) for _ in range(4))
              for _ in range(INVITE_GROUPS))
    code = "-".join(groups)
    return code, hash_invite(code)


def hash_invite(code: str) -> str:
    """The hash of an invitation code as typed: case and surrounding blanks do not count."""
    return hash_token(code.strip().lower())

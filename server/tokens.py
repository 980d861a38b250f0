"""Seat tokens (256 random bits) and invitation codes (80 bits in four groups of four, made
to be read out), both stored only as SHA-256 hashes and compared in constant time, so
neither a leaked record nor a comparison's time helps an attacker (docs/PROTOCOL.md,
"Reconnecting with a token", "Private tables and invitations")."""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = ["TOKEN_BYTES", "hash_invite", "hash_token", "new_invite", "new_token",
           "normalize_invite", "token_matches"]

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
    """The hash of an invitation code as typed: case, blanks and separators do not count,
    so ``ABCD EFGH jkmn.pqrs`` read out and typed back opens the seat of ``abcd-efgh-
    jkmn-pqrs``. Every client gets this, since the server's parser does it."""
    return hash_token(normalize_invite(code))


def normalize_invite(code: str) -> str:
    """``code`` in the form the server makes: the letters and digits, lower case, in groups
    of four joined by dashes (anything else between them is dropped)."""
    chars = "".join(ch for ch in code.lower() if ch.isascii() and ch.isalnum())
    return "-".join(chars[at:at + 4] for at in range(0, len(chars), 4))

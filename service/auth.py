"""Bearer-token checks shared by both ports; the health service stays open."""
from __future__ import annotations

import hmac
from collections.abc import Iterable

OPEN_PREFIXES = ("/grpc.health.v1.Health/",)
DUPLICATE = "duplicate authorization header"   # also written in _http2.pyx


def bearer(token: str) -> bytes:
    if not token:
        raise ValueError("empty token")
    return f"Bearer {token}".encode()


def authorization_values(metadata: Iterable[tuple[str, str | bytes]] | None) -> list[bytes]:
    return [value.encode() if isinstance(value, str) else value
            for key, value in metadata or () if key == "authorization"]


def denial(given: list[bytes], expected: bytes | None) -> str | None:
    """Why a call with these ``authorization`` values is refused, or None. Duplicates are
    refused even without a token configured: the ports would otherwise disagree on which
    one counts."""
    if len(given) > 1:
        return DUPLICATE
    if expected is None:
        return None
    if not given or not given[0]:
        return "missing bearer token"
    if not hmac.compare_digest(given[0], expected):
        return "invalid bearer token"
    return None

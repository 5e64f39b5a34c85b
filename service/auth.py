"""Bearer-token checks shared by both ports; health and reflection stay open."""
from __future__ import annotations

import hmac
from collections.abc import Iterable

# served without the token: health (load balancers) and reflection (the schema, public anyway)
OPEN_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.v1.ServerReflection/",
                 "/grpc.reflection.v1alpha.ServerReflection/")
DUPLICATE = "duplicate authorization header"   # also written in _http2.pyx


def bearer(token: str) -> bytes:
    if not token:
        raise ValueError("empty token")
    return f"Bearer {token}".encode()


def authorization_values(metadata: Iterable[tuple[str, str | bytes]] | None) -> list[bytes]:
    return [value.encode() if isinstance(value, str) else value
            for key, value in metadata or () if key == "authorization"]


def _canonical(value: bytes) -> bytes:
    """``value`` with its scheme written ``Bearer`` and one space after it: the scheme is
    case-insensitive and followed by one or more spaces (RFC 7235, section 2.1)."""
    scheme, _, credentials = value.partition(b" ")
    if scheme.lower() != b"bearer":
        return value
    return b"Bearer " + credentials.lstrip(b" ")


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
    if not hmac.compare_digest(_canonical(given[0]), expected):
        return "invalid bearer token"
    return None

"""Where game records come from: the record files under the paths a command is given (files,
folders searched recursively, tar archives read in place), with the suffixes and the size
limit both games' readers use."""
from __future__ import annotations

from collections.abc import Iterator

from ..errors import InvalidHandError, MjcoreError

RECORD_SUFFIXES = (".xml", ".mjlog", ".txt", ".jsonl", ".mjson", ".json")
MAX_RECORD_BYTES = 64 << 20  # one game's record is well under 1 MB


def iter_record_sources(paths: list[str]) -> Iterator[tuple[str, bytes | MjcoreError]]:
    """Yield (name, raw bytes) for every record under ``paths``: record files, directories
    (searched recursively) and tar archives (``.tar``, ``.tar.gz``, ``.tar.xz``, read in place;
    a member is named ``ARCHIVE:MEMBER``). A record that cannot be read (over
    MAX_RECORD_BYTES, not a regular file, a name that is not UTF-8, a broken archive) comes as
    an :class:`mjcore.files.InputSkipped` naming it in place of its bytes."""
    from ..files import walk_inputs

    for name, data, _done in walk_inputs(paths, lambda n: n.endswith(RECORD_SUFFIXES),
                                         max_bytes=MAX_RECORD_BYTES):
        yield name, data


def record_text(data: bytes, where: str, reason: str = "bad_record") -> str:
    """The text of one record's bytes (gzip-compressed or not, at most MAX_RECORD_BYTES once
    inflated, UTF-8); InvalidHandError with ``reason`` naming ``where`` otherwise."""
    if data[:2] == b"\x1f\x8b":
        import zlib

        inflate = zlib.decompressobj(wbits=31)
        try:
            data = inflate.decompress(data, MAX_RECORD_BYTES + 1)
        except zlib.error as exc:
            raise InvalidHandError(f"{where}: corrupt gzip data ({exc})", reason=reason) \
                from None
        if len(data) > MAX_RECORD_BYTES:
            raise InvalidHandError(f"{where}: decompresses to more than {MAX_RECORD_BYTES} bytes",
                                   reason=reason)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidHandError(f"{where}: not UTF-8 text", reason=reason) from None

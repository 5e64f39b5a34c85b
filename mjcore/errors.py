"""The mjcore exception hierarchy.

Every entry point (Python API, batch API, CLI, gRPC) raises or reports these; messages say
what was wrong and where (the hand, the character or tile, and why).
"""
from __future__ import annotations


class MjcoreError(Exception):
    """Base class of every error mjcore raises on purpose."""


class InvalidHandError(MjcoreError, ValueError):
    """A malformed or impossible hand, tile, meld or batch row.

    ``position`` is the character offset in the input text (or None); ``index`` is the row of
    a batch (or None); ``reason`` is a short machine-readable code such as ``unknown_character``.
    ``part``: for too_many_copies, the input whose copies passed the limit (``hand``,
    ``melds``, ``dora``, ``ura``, ``visible``, ``kita``), or None.
    """

    def __init__(self, message: str, *, reason: str = "invalid_hand",
                 position: int | None = None, index: int | None = None,
                 text: str | None = None, part: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.position = position
        self.index = index
        self.text = text
        self.part = part


class InvalidRuleError(MjcoreError, ValueError):
    """An unknown rule option or preset, or a value out of range."""


class BatchError(InvalidHandError):
    """One or more rows of a batch were invalid.

    ``errors`` maps row index -> InvalidHandError. The batch result holding the good rows is
    in ``partial`` so no good result is lost.
    """

    def __init__(self, errors: dict[int, InvalidHandError], partial: object = None) -> None:
        first = min(errors)
        super().__init__(
            f"{len(errors)} invalid row(s); first at index {first}: {errors[first]}",
            reason=errors[first].reason, index=first)
        self.errors = errors
        self.partial = partial


class OutputError(MjcoreError):
    """An output path mjcore will not write: it exists and was not to be replaced, or it is a
    link or not a folder where mjcore makes its own folder. ``path`` names it."""

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(message)
        self.path = path


# What a reader or replay may raise on a malformed record besides MjcoreError (a field that is
# not a number, a missing key, a cut list...): caught where one record is handled, so that it
# becomes that record's problem and the run goes on.
RECORD_SLIPS: tuple[type[Exception], ...] = (
    KeyError, ValueError, IndexError, TypeError, AttributeError, OverflowError, RecursionError,
    AssertionError, UnicodeError)


def slip_text(exc: BaseException) -> str:
    """A short message for a slip (or an MjcoreError) caught at a record's boundary."""
    text = str(exc) if isinstance(exc, MjcoreError) else f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 300 else text[:300] + "..."

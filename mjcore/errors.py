"""The mjcore exception hierarchy, every class declared here once.

Every entry point (Python API, batch API, CLI, gRPC, web) raises or reports these; messages say
what was wrong and where (the hand, the character or tile, and why). Each ``reason`` is one
of ``mjcore.status.REASONS``. The modules that first declared a class re-export it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import grpc

# The ErrorInfo domain of every error on the wire (gRPC and the JSON API).
DOMAIN = "mjcore.dev"


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


class KernelLevelError(ImportError):
    """The compiled kernels cannot load at the level asked for: ``MJCORE_SIMD`` names a level the
    build lacks or this CPU cannot run, or the build's only level is beyond this CPU."""


class OutputError(MjcoreError):
    """An output path mjcore will not write: it exists and was not to be replaced, or it is a
    link or not a folder where mjcore makes its own folder. ``path`` names it."""

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(message)
        self.path = path


class InputSkipped(InvalidHandError):
    """An input that was not read: ``reason`` is ``not_a_file`` (a FIFO, a device, ...),
    ``bad_name`` (a name that is not UTF-8), ``too_large``, ``unreadable`` or ``missing``."""

    def __init__(self, message: str, *, reason: str = "unreadable") -> None:
        super().__init__(message, reason=reason)


class HistoryError(MjcoreError, ValueError):
    """A malformed Bradfield hand history: ``source`` (file), ``line`` (1-based or None),
    ``detail`` (what is wrong there) and ``reason`` (``bad_history``, or ``unreadable``)."""

    def __init__(self, source: str, line: int | None, detail: str, *,
                 reason: str = "bad_history") -> None:
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {detail}")
        self.source = source
        self.line = line
        self.detail = detail
        self.reason = reason


class RecordMismatch(InvalidHandError):
    """A record the engine does not replay to itself (riichi or classical): the message names
    the hand and the event; ``index`` is the event's and ``expected``/``got`` the two events
    when known. ``ReplayMismatch`` is the same class."""

    def __init__(self, message: str, index: int | None = None, expected: Any = None,
                 got: Any = None, *, reason: str = "mismatch") -> None:
        super().__init__(message, reason=reason, index=index)
        self.expected = expected
        self.got = got


ReplayMismatch = RecordMismatch


class RecordError(MjcoreError):
    """A history that breaks the rules (a decision the referee does not offer)."""


class EngineError(MjcoreError):
    """A decider chose an action that was not offered, or the referee reached a bad state."""


class AgentError(MjcoreError):
    """An agent (a JSON-lines process, an mjai bot) answered with garbage or an illegal
    action, or its process died. ``MjaiError`` is the same class."""


MjaiError = AgentError


class InvariantError(MjcoreError):
    """An engine invariant failed (riichi or classical): names the game, the hand and the
    event where known."""


class ServiceError(MjcoreError):
    """A call failed for a reason other than a bad hand (auth, deadline, server, network)."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None,
                 reason: str = "", metadata: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.metadata = metadata or {}


class ReviewTimeout(MjcoreError):
    """The review did not finish within its time."""

    reason = "deadline_exceeded"


ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"

# gRPC status name -> HTTP status (google.rpc.Code's HTTP mapping)
HTTP_OF_STATUS = {
    "INVALID_ARGUMENT": 400, "FAILED_PRECONDITION": 400, "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403, "NOT_FOUND": 404,
    "RESOURCE_EXHAUSTED": 429, "CANCELLED": 499, "INTERNAL": 500, "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}


class ApiError(Exception):
    """An error answer of the JSON API: HTTP ``http`` (by default the status's), the gRPC
    status name, the ErrorInfo reason and metadata, and headers (Retry-After,
    WWW-Authenticate)."""

    def __init__(self, status: str, message: str, reason: str, *, http: int | None = None,
                 headers: dict[str, str] | None = None, **metadata: object) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.reason = reason
        self.http = http if http is not None else HTTP_OF_STATUS.get(status, 500)
        self.headers = headers or {}
        self.metadata = {k: str(v) for k, v in metadata.items() if v is not None}

    def body(self) -> dict[str, Any]:
        """The JSON of the answer."""
        return {"error": {"code": self.http, "status": self.status, "message": self.message,
                          "details": [{"@type": ERROR_INFO_TYPE, "reason": self.reason,
                                       "domain": DOMAIN, "metadata": self.metadata}]}}


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

"""The kernels' statuses, each declared once: its code, its reason and its message.

The compiled kernels return these codes (declared in ``mjcore/_core/types.pxd``, enum
``Status``; a test checks this table against the compiled values). Every layer reports a bad
hand or row with the reason from here: the Python API (``InvalidHandError.reason``), both
batch result types (``errors()``), the gRPC service and the client. Reasons are API.

On the wire (``google.rpc.ErrorInfo.reason`` and ``mjcore.v1.HandError.reason``) a reason is
written in UPPER_SNAKE_CASE as AIP-193 asks: :func:`wire_reason` and :func:`library_reason`
are the only two spellings, and they convert both ways without loss.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .errors import InvalidHandError


@dataclass(frozen=True, slots=True)
class Status:
    """One kernel status: ``code`` (0 ok, 1 no yaku, negative errors), ``name`` (the C enum
    name in types.pxd), ``reason`` (machine-readable, lower_snake) and ``message``."""

    code: int
    name: str
    reason: str
    message: str


STATUSES: Final[tuple[Status, ...]] = (
    Status(0, "ST_OK", "ok", "ok"),
    Status(1, "ST_NO_YAKU", "no_yaku", "the hand is complete but has no yaku"),
    Status(-1, "ST_BAD_COUNT", "too_many_copies",
           "more than 4 copies of a tile kind (closed tiles, melds and indicators together), "
           "more red fives than fives, or a bonus tile held twice"),
    Status(-2, "ST_BAD_TOTAL", "wrong_tile_count",
           "wrong number of tiles for the called melds (13 or 14, less 3 per meld)"),
    Status(-3, "ST_BAD_MELDS", "bad_melds",
           "a called meld is not a valid set, or the hand has more than 4 melds"),
    Status(-4, "ST_BAD_TILE", "bad_tile",
           "a tile, indicator or seat out of range (tile kinds 0..33), or a winning tile the "
           "hand does not hold"),
    Status(-5, "ST_NOT_AGARI", "not_complete", "the hand is not complete"),
    Status(-7, "ST_PARSE", "parse_error", "the text could not be parsed as a hand"),
    Status(-16, "ST_DISCARD_NOT_HELD", "discard_not_held",
           "the discard made is not in the hand"),
    Status(-20, "ST_BAD_SITUATION", "bad_situation",
           "contradictory situation: riichi/ippatsu/tenhou/chiihou need a closed hand, "
           "ippatsu needs riichi, rinshan/haitei/tenhou/chiihou need tsumo, "
           "chankan/houtei/renhou need ron, tenhou needs the dealer, chiihou/renhou a "
           "non-dealer; at most 10 indicators; at most 4 norths in the hand and set aside"),
    Status(-21, "ST_BAD_SEATS", "bad_seats",
           "a wind or seat is out of range (four players: winds E S W N, seats 0-3; three "
           "players: seat winds E, S, W, seats 0-2, relative 1 shimocha and 2 kamicha; the "
           "discarder and the liable player must not be the winner)"),
    Status(-22, "ST_NOT_IN_SANMA", "not_in_sanma",
           "three-player mahjong has no 2m-8m and no chi"),
    Status(-30, "ST_EV_SHANTEN", "ev_shanten_too_high",
           "the hand's shanten is above what the expected-value search evaluates "
           "(max_shanten)"),
    Status(-31, "ST_EV_NODES", "ev_node_budget",
           "the expected-value search passed its node budget (max_nodes)"),
    Status(-32, "ST_EV_DEADLINE", "ev_deadline",
           "the expected-value search passed its time budget (max_seconds)"),
    Status(-33, "ST_EV_MEMORY", "ev_out_of_memory", "the expected-value search ran out of memory"),
    Status(-34, "ST_EV_OPTION", "ev_bad_option",
           "an expected-value option or an unseen count is out of range"),
)

BY_CODE: Final[dict[int, Status]] = {s.code: s for s in STATUSES}
_CODE: Final[dict[str, int]] = {s.name: s.code for s in STATUSES}

OK: Final = _CODE["ST_OK"]
NO_YAKU: Final = _CODE["ST_NO_YAKU"]
BAD_COUNT: Final = _CODE["ST_BAD_COUNT"]
BAD_TOTAL: Final = _CODE["ST_BAD_TOTAL"]
BAD_MELDS: Final = _CODE["ST_BAD_MELDS"]
BAD_TILE: Final = _CODE["ST_BAD_TILE"]
NOT_AGARI: Final = _CODE["ST_NOT_AGARI"]
PARSE: Final = _CODE["ST_PARSE"]
DISCARD_NOT_HELD: Final = _CODE["ST_DISCARD_NOT_HELD"]
BAD_SITUATION: Final = _CODE["ST_BAD_SITUATION"]
BAD_SEATS: Final = _CODE["ST_BAD_SEATS"]
NOT_IN_SANMA: Final = _CODE["ST_NOT_IN_SANMA"]
EV_SHANTEN: Final = _CODE["ST_EV_SHANTEN"]
EV_NODES: Final = _CODE["ST_EV_NODES"]
EV_DEADLINE: Final = _CODE["ST_EV_DEADLINE"]

# The reason of an error that no status names (a code the table does not know).
UNKNOWN_REASON: Final = "invalid_hand"


def reason_of(code: int) -> str:
    """The reason of a status code (``UNKNOWN_REASON`` for a code not in the table)."""
    known = BY_CODE.get(code)
    return UNKNOWN_REASON if known is None else known.reason


_BY_REASON: Final[dict[str, int]] = {s.reason: s.code for s in STATUSES}
# the code of a bad row whose reason no status names
UNKNOWN_CODE: Final = -128


def code_of(reason: str) -> int:
    """The status code of a reason (``UNKNOWN_CODE`` for a reason not in the table)."""
    return _BY_REASON.get(reason, UNKNOWN_CODE)


def status_error(code: int, subject: str, *, index: int | None = None,
                 position: int | None = None, detail: str | None = None,
                 text: str | None = None) -> InvalidHandError:
    """The InvalidHandError of a negative status: ``"{subject}: {message} ({detail})"``.

    ``subject`` names the input ("hand '123m'", "row 5"); ``detail`` adds what only the
    caller knows; ``position`` (a character in the input text) is appended when known.
    """
    known = BY_CODE.get(code)
    if known is None:
        reason, message = UNKNOWN_REASON, f"invalid input (kernel status {code})"
    else:
        reason, message = known.reason, known.message
    if detail:
        message = f"{message} ({detail})"
    if position is not None:
        message = f"{message} (at character {position})"
    return InvalidHandError(f"{subject}: {message}", reason=reason, position=position,
                            index=index, text=text)


def wire_reason(reason: str) -> str:
    """A library reason as the wire writes it (UPPER_SNAKE_CASE, AIP-193)."""
    return (reason or UNKNOWN_REASON).upper()


def library_reason(wire: str) -> str:
    """A wire reason as the library spells it (lower_snake); the inverse of wire_reason."""
    return (wire or UNKNOWN_REASON).lower()


__all__ = ["BY_CODE", "STATUSES", "UNKNOWN_CODE", "Status", "code_of", "library_reason",
           "reason_of", "status_error", "wire_reason"]

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

# Every other reason an error or a skipped record gives (the library's, the records', the
# files', the service's and the JSON API's), each with what it means. On the wire each is
# written as wire_reason() spells it.
_OTHER_REASONS: Final[tuple[tuple[str, str], ...]] = (
    # no status, no reason of its own
    ("invalid_hand", "a bad hand or row the kernels' table does not name"),
    ("invalid", "an error with no reason of its own (the CLI's)"),
    # hand, tile and meld text and values
    ("unknown_character", "a character that is no part of the hand notation"),
    ("digit_without_suit", "digits not followed by a suit letter"),
    ("suit_without_digits", "a suit letter with no digits before it"),
    ("bad_honor", "an honour digit out of 1z-7z"),
    ("bad_red", "a red five that is not a five, or more red fives than the rules have"),
    ("too_many_red", "more red fives of a suit than the rules allow"),
    ("not_one_tile", "a text that should name one tile names none or several"),
    ("bad_bonus", "a bonus tile (flower or season) out of range or misplaced"),
    ("not_bonus", "a tile given as a bonus tile is not one"),
    ("bonus_not_allowed", "a bonus tile where only the 34 kinds may be"),
    ("bonus_not_in_play", "bonus tiles under rules that have none"),
    ("duplicate_bonus", "a bonus tile held twice (each exists once)"),
    ("red_five_not_in_set", "a red five in the classical set, which has none"),
    ("missing_tile", "no tile given (an empty hand, indicator or field)"),
    ("tile_not_held", "a tile to remove, discard or call the hand does not hold"),
    ("duplicate_tile", "the same physical tile (a 136-id) given twice"),
    ("bad_relative_seat", "a meld's called-from seat out of range (1 shimocha .. 3 kamicha)"),
    ("bad_type", "a value of the wrong Python type (a hand that is not a string, ...)"),
    ("bad_shape", "arrays or lists of the wrong shape or of lengths that differ"),
    ("bad_dtype", "an array of a dtype the batch call does not take"),
    ("bad_value", "batch values that do not fit the kernel's integer type"),
    ("not_an_integer", "a count or id that is not an integer"),
    ("bad_counts", "34 tile counts out of range (negative, or the wrong number of them)"),
    ("bad_row", "a batch row that cannot be read as a hand"),
    ("hidden_hand", "a hidden hand in a batch that scores only deals with every hand shown"),
    ("bad_indicators", "dora indicators that are not a list of tiles"),
    ("bad_counter", "honba or riichi sticks not ints 0..999"),
    ("bad_kita", "norths set aside out of 0..4, or under four-player rules"),
    ("bad_win", "a winner, winning tile or win condition the deal does not allow"),
    ("bad_deal", "a classical deal that is not four seats' hands"),
    ("bad_rules", "rules given in a form the call does not take"),
    ("invalid_rule", "an unknown rule option or preset, or a value out of range"),
    ("ev_not_evaluated", "a discard the expected-value search did not evaluate"),
    # records
    ("unknown_format", "a record in none of the formats read (mjlog, mjai, tenhou.net/6, "
                       "Bradfield)"),
    ("not_a_record", "a file beside the records that is not one (a Bradfield final.txt)"),
    ("bad_json", "text that is not JSON, or not the JSON values expected"),
    ("bad_event", "a record event malformed or out of place"),
    ("bad_call", "a recorded call that does not take the last discard"),
    ("unknown_draw", "a drawn hand of a kind the reader does not know"),
    ("bad_mjlog", "a malformed Tenhou mjlog"),
    ("bad_tenhou6", "a malformed tenhou.net/6 JSON record"),
    ("bad_history", "a malformed Bradfield hand history"),
    ("bad_wall", "a wall that is not the game's tiles, or an unknown wall profile"),
    ("bad_shuffle", "a Tenhou shuffle seed that cannot be read"),
    ("bad_record", "a record that cannot be replayed or reviewed as it is"),
    ("mismatch", "the engine does not replay the record to itself"),
    ("no_hands", "a record with no hands"),
    ("incomplete", "a record that ends before its game does"),
    ("bad_table", "a Parquet part that cannot be read"),
    # files
    ("unreadable", "an input that cannot be read"),
    ("missing", "an input that does not exist"),
    ("not_a_file", "an input that is not a regular file (a FIFO, a device)"),
    ("bad_name", "a file name that is not UTF-8"),
    ("too_large", "an input, archive, record or message over its size limit"),
    # the gRPC service and the JSON API (wire only)
    ("bad_hand", "a hand the classical parser refuses without a reason of its own"),
    ("bad_hand_count", "a classical deal without its 4 hands"),
    ("bad_enum_value", "a number that is not a value of the field's enum"),
    ("bad_json_field", "a JSON field of the wrong type or value"),
    ("bad_packing", "packed hands with bits set outside their 3-bit fields"),
    ("bad_batch_length", "a batch's bytes that are not a whole number of rows"),
    ("bad_field_length", "a batch field whose length does not match its rows"),
    ("bad_n_melds", "a batch's n_melds with a count other than its hands'"),
    ("bad_encoding", "a hands encoding the call does not accept"),
    ("field_too_long", "a text field over its length limit"),
    ("too_many_tiles", "a tile list over its limit"),
    ("too_many_values", "a list, or a JSON body, with more values than allowed"),
    ("empty_batch", "a batch with no rows"),
    ("batch_too_large", "a batch over its row limit (RESOURCE_EXHAUSTED)"),
    ("missing_win_method", "a score request without tsumo or ron"),
    ("missing_record", "a review request without a record's text"),
    ("no_request_message", "a call that carries no request message"),
    ("malformed_message", "a request message that is not a valid protobuf"),
    ("json_too_deep", "a JSON body nested deeper than allowed"),
    ("body_too_large", "a request body over its size limit (HTTP 413)"),
    ("body_timeout", "a request body not received in time (HTTP 408)"),
    ("not_found", "no such page or endpoint (HTTP 404)"),
    ("method_not_allowed", "an HTTP method the endpoint does not take"),
    ("unauthenticated", "a missing or wrong bearer token (UNAUTHENTICATED)"),
    ("deadline_exceeded", "the call did not finish within its deadline (DEADLINE_EXCEEDED)"),
    ("server_busy", "every worker busy: try again after the hint (RESOURCE_EXHAUSTED)"),
    ("overloaded", "too many calls or connections in flight: try again (UNAVAILABLE)"),
    ("too_many_calls", "a client host's calls in progress at its share of the server "
     "(HTTP 429, Retry-After)"),
    ("missing_field", "a server's answer without a field this client needs (a server older "
     "than the client)"),
    ("shutdown", "the server is shutting down (UNAVAILABLE)"),
    ("unreachable", "the client cannot reach the server (UNAVAILABLE)"),
    ("internal", "an error of the server's own (INTERNAL)"),
)


@dataclass(frozen=True, slots=True)
class Reason:
    """One error reason: ``reason`` (lower_snake), what it ``means``, and ``code``, the kernel
    status of that reason (None when no status has it)."""

    reason: str
    means: str
    code: int | None = None

    @property
    def wire(self) -> str:
        """The reason as the wire writes it (UPPER_SNAKE_CASE)."""
        return wire_reason(self.reason)


# Every reason any layer gives, declared once: the statuses' first, then the rest.
REASONS: Final[dict[str, Reason]] = {
    **{s.reason: Reason(s.reason, s.message, s.code) for s in STATUSES},
    **{r: Reason(r, means) for r, means in _OTHER_REASONS},
}

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


__all__ = ["BY_CODE", "REASONS", "STATUSES", "UNKNOWN_CODE", "Reason", "Status", "code_of",
           "library_reason", "reason_of", "status_error", "wire_reason"]

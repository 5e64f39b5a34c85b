"""The ``ev`` and ``review`` endpoints: JSON in, the library's answer out.

``ev`` takes the fields of ScoreRequest that apply (``hand``, ``dora_indicators``,
``visible``, ``round_wind``/``seat_wind`` as Wind names, ``rules`` a RuleSelection,
``kita_count``) and the options of ``mjcore.expected_values`` under their own names
(``model``, ``t_max``, ``extra``, ``red``, ``ura``, ``shanten_down``, ``tegawari``,
``max_shanten``, ``max_nodes``, ``max_seconds``, the last capped by the server); it answers
``ExpectedValues.to_dict()``. Text fields have the gRPC service's length limits, and a bad one
is the same error (FIELD_TOO_LONG; the library's reason, upper-cased, naming the field).
"""
from __future__ import annotations

import time
from typing import Any

from .errors import ApiError, bad_request

TEXT_FIELDS = {"hand": 100, "visible": 300, "dora_indicators": 40}
WINDS = {"WIND_UNSPECIFIED": "E", "WIND_EAST": "E", "WIND_SOUTH": "S", "WIND_WEST": "W",
         "WIND_NORTH": "N"}
INT_OPTIONS = {"t_max": (1, 24), "extra": (0, 4), "max_shanten": (-1, 6),
               "max_nodes": (1, 5_000_000), "kita_count": (0, 4)}
BOOL_OPTIONS = ("red", "ura", "shanten_down", "tegawari")
EV_FIELDS = {*TEXT_FIELDS, "round_wind", "seat_wind", "rules", "model", "max_seconds",
             *INT_OPTIONS, *BOOL_OPTIONS}


def _reason(err: Exception) -> str:
    from mjcore.status import wire_reason

    return str(wire_reason(getattr(err, "reason", "invalid")))


def _text(body: dict[str, Any], name: str) -> str:
    value = body.get(name, "")
    if not isinstance(value, str):
        raise bad_request(f"{name}: expected a string, got {type(value).__name__}",
                          "BAD_JSON_FIELD", field=name)
    limit = TEXT_FIELDS[name]
    if len(value) > limit:
        raise bad_request(f"{name}: {len(value)} characters, at most {limit} allowed",
                          "FIELD_TOO_LONG", field=name, index=0, limit=limit, size=len(value))
    return value


def _field_of(message: str) -> str:
    """The request field a library message is about (it names its input first)."""
    for prefix, name in (("seat_wind", "seat_wind"), ("round_wind", "round_wind"),
                         ("dora", "dora_indicators"), ("option ", "options"),
                         ("kita", "kita_count")):
        if message.startswith(prefix):
            return name
    if "visible" in message:
        return "visible"
    return "hand"


def expected_values(bridge: Any, body: dict[str, Any], cap_seconds: float) -> dict[str, Any]:
    """The ``ev`` endpoint's answer (see the module doc); raises ApiError."""
    import mjcore
    from mjcore.errors import InvalidHandError, InvalidRuleError
    from mjcore.hand import Hand
    from mjcore.service.errors import PART_FIELDS
    from mjcore.tiles import parse_tiles

    unknown = sorted(set(body) - EV_FIELDS)
    if unknown:
        raise bad_request(f"{unknown[0]}: no such field of an expected-value request",
                          "BAD_JSON_FIELD", field=unknown[0])
    texts = {name: _text(body, name) for name in TEXT_FIELDS}
    if not texts["hand"]:
        raise bad_request("hand: no tiles given", "MISSING_TILE", field="hand", index=0)
    try:
        hand = Hand.parse(texts["hand"])
    except InvalidHandError as err:
        raise bad_request(f"hand: {err}", _reason(err), field="hand", index=0,
                          position=err.position) from None
    for name in ("visible", "dora_indicators"):
        try:
            if texts[name]:
                parse_tiles(texts[name])
        except InvalidHandError as err:
            raise bad_request(f"{name}: {err}", _reason(err), field=name, index=0,
                              position=err.position) from None
    kwargs: dict[str, Any] = {}
    for name in ("round_wind", "seat_wind"):
        value = body.get(name, "WIND_UNSPECIFIED")
        if value not in WINDS:
            raise bad_request(f"{name}: {value!r} is not a Wind value (WIND_EAST .. "
                              "WIND_NORTH)", "BAD_ENUM_VALUE", field=name, index=0)
        kwargs[name] = WINDS[value]
    for name, (lo, hi) in INT_OPTIONS.items():
        if name in body:
            value = body[name]
            if type(value) is not int or not lo <= value <= hi:
                raise bad_request(f"{name}: {value!r}, expected an integer in {lo}..{hi}",
                                  "EV_BAD_OPTION", field=name, index=0)
            kwargs["kita" if name == "kita_count" else name] = value
    for name in BOOL_OPTIONS:
        if name in body:
            if not isinstance(body[name], bool):
                raise bad_request(f"{name}: {body[name]!r}, expected true or false",
                                  "EV_BAD_OPTION", field=name, index=0)
            kwargs[name] = body[name]
    model = body.get("model", "consistent")
    if model not in ("consistent", "compatible"):
        raise bad_request(f"model: {model!r}, expected consistent or compatible",
                          "EV_BAD_OPTION", field="model", index=0)
    seconds = body.get("max_seconds", cap_seconds)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
        raise bad_request(f"max_seconds: {seconds!r}, expected a number > 0",
                          "EV_BAD_OPTION", field="max_seconds", index=0)
    rules = bridge.rules(body.get("rules"))
    try:
        result = mjcore.expected_values(
            hand, dora=texts["dora_indicators"], visible=texts["visible"] or None,
            rules=rules, model=model, max_seconds=min(float(seconds), cap_seconds), **kwargs)
    except InvalidRuleError as err:
        raise bad_request(f"rules: {err}", "INVALID_RULE", field="rules", index=0) from None
    except InvalidHandError as err:
        field = _field_of(str(err))
        if err.reason == "too_many_copies" and err.part in PART_FIELDS:
            field = PART_FIELDS[err.part]
        raise bad_request(f"{field}: {err}", _reason(err), field=field, index=0) from None
    out = result.to_dict()
    out["status"] = _status_name(result.status)
    return out


def _status_name(status: str) -> str:
    return "OK" if status == "ok" else status.upper()


REVIEW_FIELDS = {"record", "seat", "ev", "max_shanten"}


def review_call(body: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The ``review`` endpoint: ``record`` (the text of one record), ``seat`` (0..3),
    ``ev`` (rate by expected value too, default true), ``max_shanten`` (0..3, default 2)."""
    from mjcore.errors import MjcoreError

    from .review import ReviewOptions, ReviewTimeout, review

    unknown = sorted(set(body) - REVIEW_FIELDS)
    if unknown:
        raise bad_request(f"{unknown[0]}: no such field of a review request",
                          "BAD_JSON_FIELD", field=unknown[0])
    record = body.get("record")
    if not isinstance(record, str) or not record.strip():
        raise bad_request("record: give the text of a game record (mjlog, mjai, tenhou.net/6 "
                          "or a Bradfield hand history)", "MISSING_RECORD", field="record")
    seat = body.get("seat", 0)
    if type(seat) is not int or not 0 <= seat <= 3:
        raise bad_request(f"seat: {seat!r}, expected 0..3", "BAD_SEAT", field="seat")
    ev = body.get("ev", True)
    if not isinstance(ev, bool):
        raise bad_request(f"ev: {ev!r}, expected true or false", "BAD_JSON_FIELD", field="ev")
    max_shanten = body.get("max_shanten", 2)
    if type(max_shanten) is not int or not 0 <= max_shanten <= 3:
        raise bad_request(f"max_shanten: {max_shanten!r}, expected 0..3", "EV_BAD_OPTION",
                          field="max_shanten")
    opts = ReviewOptions(seat=seat, ev=ev, max_shanten=max_shanten,
                         deadline=time.monotonic() + seconds)
    try:
        return review(record, opts)
    except ReviewTimeout as err:
        raise ApiError("DEADLINE_EXCEEDED", str(err), "DEADLINE_EXCEEDED") from None
    except MjcoreError as err:
        text = str(err)
        if getattr(err, "reason", "") == "bad_seats":      # a seat the record does not have
            raise bad_request(text, "BAD_SEATS", field="seat") from None
        raise bad_request(text if text.startswith("record") else f"record: {text}",
                          _reason(err), field="record") from None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
        # a record whose events are not what its format promises
        raise bad_request(f"record: cannot be read ({type(err).__name__}: {err})",
                          "BAD_RECORD", field="record") from None

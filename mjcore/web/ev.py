"""The ``review`` endpoint: JSON in, the library's answer out (``ev`` answers through the
servicer's ExpectedValues, ``mjcore/web/bridge.py``)."""
from __future__ import annotations

import time
from typing import Any

from .errors import ApiError, bad_request


def _reason(err: Exception) -> str:
    from mjcore.status import wire_reason

    return str(wire_reason(getattr(err, "reason", "bad_record")))


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
        raise bad_request(f"seat: {seat!r}, expected 0..3", "BAD_SEATS", field="seat")
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

"""Riichi records in the extract: an mjlog (four or three players) or mjai JSON lines read
into events with the rules they were played under (the game registry's ``read_record``)."""
from __future__ import annotations

import json
from typing import Any

from .extraction import ParsedRecord


def read_record(name: str, text: str) -> ParsedRecord | None:
    """The record ``text`` (file ``name``) when it is an mjlog or mjai JSON lines, else None;
    MjcoreError naming it when it is one but malformed."""
    from ..riichi.events import from_mjai_lines
    from ..riichi.mjlog import read_mjlog, rules_for_go_type, with_record_rounding
    from ..riichi.replay import _rules_from_events

    head = text.lstrip()[:1]
    if head == "<":
        game = read_mjlog(text, name)     # a sanma record: three seats, tenhou_sanma
        rules = with_record_rounding(rules_for_go_type(game.go_type), game.events)
        return ParsedRecord("mjlog", game.events, _rules_text(rules), extract_record)
    if head in ("{", "["):         # mjai JSON lines (a line that is no event object is named)
        events = from_mjai_lines(text.splitlines(), name)
        return ParsedRecord("mjai", events, _rules_text(_rules_from_events(events)),
                            extract_record)
    return None


def extract_record(rec: ParsedRecord, out: Any, *, source: str, game: int) -> bool:
    """Append the decision rows of a riichi record to ``out``; False when it stops before its
    game ends. A record without hands is an InvalidHandError (``no_hands``)."""
    from ..errors import InvalidHandError
    from .extraction import extract_events

    events = rec.events
    if not any(ev["type"] == "start_kyoku" for ev in events):
        raise InvalidHandError("the record has no hands", reason="no_hands")
    extract_events(events, out, source=source, fmt=rec.format, game=game, rules=rec.rules)
    return any(ev["type"] == "end_game" for ev in events)


def _rules_text(rules: Any) -> str:
    """The options of ``rules`` that differ from the default rules, as JSON."""
    from ..riichi.rules import DEFAULT_RULES

    base = DEFAULT_RULES.to_dict()
    diff = {k: v for k, v in rules.to_dict().items() if base.get(k) != v}
    return json.dumps(diff, sort_keys=True, default=list)

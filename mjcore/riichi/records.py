"""Which riichi record format a file holds, told by its first kilobytes: mjlog XML, mjai JSON
lines or tenhou.net/6 JSON (the game registry's ``record_kind`` for riichi)."""
from __future__ import annotations

import json

_RIICHI = ("riichi", "riichi records")


def record_kind(name: str, head: str) -> tuple[str, str] | None:
    """``("riichi", "riichi records")`` (the kind and its words) when ``head``, the first
    4 KiB of file ``name``, looks like a riichi record, else None. A JSON-lines record whose
    first event names another game's preset (``"preset"``) is that game's."""
    text = head.lstrip()
    if text.startswith("<"):
        return _RIICHI
    first = text.split("\n", 1)[0]
    if not (text.startswith("{") and ('"type"' in first or '"log"' in text)):
        return None
    try:
        event = json.loads(first)
    except (ValueError, RecursionError):
        return _RIICHI                 # a riichi record cut short, or broken: its replay says
    preset = event.get("preset") if isinstance(event, dict) else None
    if isinstance(preset, str):
        from ..games import is_game

        if not is_game(preset, "riichi"):
            return None
    return _RIICHI

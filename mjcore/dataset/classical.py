"""Bradfield hand histories (``.mjs``, Chinese classical) -> extract rows.

One ``.mjs`` file is one hand. It is replayed through the classical referee with the
recorded decisions (``mjcore.classical.engine.bradfield``), and every decision the referee
asks for that is not a pass becomes a row, with the deciding seat's hand as the referee holds
it at that moment. Claims are decisions too: a claim that loses to a higher one (a pung over
a chow) is still a row, its action the claim made.

Rows use the extract schema (``mjcore.dataset.extraction.schema``) with ``format`` ``mjs``:
tiles as 136-ids ``kind * 4 + 3 - copy`` (Bradfield names no copies; the red-five ids of
riichi mean nothing here and are used only for a fourth five), bonus tiles left out of the
hand, no dora, ``rules`` ``{"game": "classical", ...}`` (the options that differ from the
``bradfield`` preset), ``game`` the record number (one hand per record) and ``hand`` the hand
number of the file name. For wins, ``win_points`` is the winner's final hand score,
``win_fu`` its points before doubling and ``win_han`` its doubles.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import chain
from operator import getitem
from typing import Any

from ..errors import InvalidHandError, MjcoreError

_ACTION_NAMES = {"DISCARD": "discard", "ORIGINAL_CALL": "original_call", "MAHJONG": "tsumo",
                 "CONCEALED_KONG": "ankan", "ADD_KONG": "kakan", "CHOW": "chi", "PUNG": "pon",
                 "KONG": "daiminkan", "MAHJONG_CLAIM": "ron"}


# the 136-ids of kind k held n times (n <= 4): k * 4 + 3 - copy, as one tuple
_IDS_HELD = [[tuple(k * 4 + 3 - c for c in range(n)) for n in range(5)] for k in range(34)]


def _closed_ids(counts: bytearray) -> Iterable[int]:
    """The 136-ids of a hand's closed counts, in kind order."""
    if max(counts) <= 4:
        return chain.from_iterable(map(getitem, _IDS_HELD, counts))
    return (k * 4 + 3 - c for k in range(34) for c in range(counts[k]))


def _visible_bytes(public: list[int]) -> bytes:
    """The copies of each kind on the table, each clamped to 0..4, as 34 bytes."""
    if min(public) >= 0 and max(public) <= 4:
        return bytes(public)
    return bytes(min(4, max(0, x)) for x in public)


def read_record(name: str, text: str) -> Any:
    """The extract's record of ``text`` (file ``name``) when it is a Bradfield hand history,
    else None (the game registry's ``read_record``); a Bradfield game's final scores are named
    as no record."""
    from ..errors import InvalidHandError
    from .extraction import ParsedRecord

    if is_history(text):
        return ParsedRecord("mjs", [], "", _extract_record,
                            history=parse_history_bytes(name, text))
    if text.startswith("Game over.") and name.endswith("final.txt"):
        raise InvalidHandError(f"{name}: the final scores of a Bradfield game, not a record",
                               reason="not_a_record")
    return None


def _extract_record(rec: Any, out: Any, *, source: str, game: int) -> bool:
    """Append the decision rows of a Bradfield hand history (``rec.history``) to ``out``."""
    extract_history(rec.history, out, source=source, game=game)
    return True


def is_history(text: str) -> bool:
    """True when ``text`` looks like a Bradfield hand history (``.mjs``), by its content."""
    from ..classical.engine.bradfield import is_bradfield_text

    return is_bradfield_text(text)


def meld_token(meld: Any, seat: int) -> str:
    """A classical set of ``seat`` (a referee's CalledSet) in the notation of
    :class:`mjcore.Meld`."""
    return str(meld.meld(seat))


# a classical row's rules text: JSON of the options that differ from this preset
_ROW_BASE = "bradfield"


def _rules_text(rules: Any) -> str:
    from ..classical.rules import ClassicalRules

    base = ClassicalRules.preset(_ROW_BASE)
    diff = {k: v for k, v in vars(rules).items() if getattr(base, k, None) != v and k != "name"}
    return json.dumps({"game": "classical", **diff}, sort_keys=True, default=str)


def row_rules(options: dict[str, Any]) -> Any:
    """A classical row's rules as far as its winning forms go (the game registry's
    ``row_rules``; ``options``: its rules text read): the base preset with the row's
    ``seven_pairs`` option."""
    from ..classical.rules import ClassicalRules

    base = ClassicalRules.preset(_ROW_BASE)
    value = options.get("seven_pairs", base.seven_pairs)
    return base.replace(seven_pairs=value is True or value == "True")


def parse_history_bytes(name: str, text: str) -> Any:
    """Parse one Bradfield hand history (``text``; ``name`` names it in messages) into a
    HandHistory.
    """
    from ..classical.history import parse_history

    return parse_history(text, name)


def extract_history(h: Any, out: Any, *, source: str, game: int) -> int:
    """Append one row per decision of the hand history ``h`` to the column buffers ``out``
    (an ``extract._Columns``); returns the rows added. Raises MjcoreError when the record
    does not replay."""
    from ..classical.engine.bradfield import RecordedDecider, RecordError
    from ..classical.engine.referee import ActionType, ClassicalHand
    from ..classical.engine.wall import ClassicalWall

    cols = out.cols
    start = len(out)
    script = RecordedDecider(h)
    wall = ClassicalWall.from_sequence(h.wall, h.rules.dead_wall, where=h.source)
    state: dict[str, Any] = {"hand": None, "last": -1, "draws": [0, 0, 0, 0], "winner": -1,
                             "events": 0}
    names = [str(name) or f"seat {s}" for s, (_pid, name) in enumerate(h.players)]
    while len(names) < 4:
        names.append(f"seat {len(names)}")
    decision = 0

    def on_event(ev: dict[str, Any]) -> None:
        script.observe(ev)
        state["events"] += 1
        t = ev["type"]
        if t in ("draw", "loose"):
            state["draws"][ev["seat"]] += 1
        elif t in ("discard", "add_kong"):
            state["last"] = ev["tile"]
        elif t == "mahjong":
            state["winner"] = ev["seat"]

    def decide(seat: int, actions: list[Any]) -> Any:
        nonlocal decision
        a = script(seat, actions)
        if a.type == ActionType.PASS:
            return a
        hand = state["hand"]
        counts = hand.counts[seat]
        kind = a.tile if a.tile >= 0 else state["last"]
        if a.type in (ActionType.CHOW, ActionType.PUNG, ActionType.KONG,
                      ActionType.MAHJONG_CLAIM):
            kind = state["last"]
        cols["decision"].append(decision)
        cols["event"].append(state["events"])
        cols["seat"].append(seat)
        cols["player"].append(names[seat])
        cols["turn"].append(state["draws"][seat])
        cols["tiles_left"].append(int(hand.wall.live_remaining))
        out.closed.add(_closed_ids(counts))
        out.pools["melds"].rows.append(
            out.pools["melds"].intern(meld_token(m, seat) for m in hand.melds[seat]))
        cols["n_melds"].append(len(hand.melds[seat]))
        cols["kita"].append(0)
        out.visible += _visible_bytes(hand.public)
        out.pools["dora_markers"].rows.append(0)
        out.pools["consumed"].rows.append(0)
        out.pools["ura_markers"].rows.append(0)
        cols["riichi"].append(bool(hand.called[seat]))
        cols["riichi_seats"].append(sum(1 << s for s in range(4) if hand.called[s]))
        cols["action"].append(_ACTION_NAMES[a.type.name])
        cols["tile"].append(kind * 4 + 3 if kind is not None and 0 <= kind < 34 else -1)
        cols["tsumogiri"].append(False)
        cols["from_seat"].append(seat if a.type == ActionType.MAHJONG else -1)
        cols["win_flags"].append(1 if a.type == ActionType.MAHJONG else 0)
        decision += 1
        return a

    hand = ClassicalHand(h.rules, wall, decide, prevailing=h.game.prevailing_wind,
                         emit=on_event)
    state["hand"] = hand
    try:
        result = hand.play()
        left = script.leftovers()
    except (RecordError, MjcoreError) as exc:
        raise InvalidHandError(f"{source}: {exc}", reason="bad_history") from None
    if left is not None:
        raise InvalidHandError(f"{source}: {left}", reason="bad_history")
    winner = state["winner"] if result.wins else -1
    net = list(h.settlement.net) if h.settlement is not None else [0, 0, 0, 0]
    ids = [pid for pid, _name in h.players]
    scores = [int(h.game.scores.get(pid, 0)) for pid in ids] + [0] * (4 - len(ids))
    seats = cols["seat"][start:]
    out.fill_hand(start, {
        "source": source, "format": "mjs", "game": game, "rules": _rules_text(h.rules),
        "players": len(ids), "hand": (h.hand_number or 1) - 1, "round_wind": h.game.prevailing_wind,
        "kyoku": 1, "honba": 0, "riichi_sticks": 0, "dealer": 0,
        "hand_result": "win" if winner >= 0 else "draw:washout",
        "hand_delta": [net[s] for s in seats], "hand_won": [s == winner for s in seats]},
        scores[:4])
    if winner >= 0 and winner in h.scores:
        hs = h.scores[winner]
        for r in range(start, len(out)):
            if cols["seat"][r] == winner and cols["action"][r] in ("tsumo", "ron"):
                out.set_win(r, (-1, hs.total_doubles, hs.total_points, hs.score))
    return len(out) - start

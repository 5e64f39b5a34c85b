"""The review of a real game: read a record, replay it step by step with the four hands, and
rate a seat's discard decisions by tile efficiency (``mjcore.ukeire``) and, where the game has
a model, by expected score.

Records are read by the first game whose review knows them (the registry's ``review``,
``mjcore.games``): riichi's (Tenhou mjlog XML, mjai JSON lines, tenhou.net/6 JSON) in
``review_riichi``, Chinese classical's (Bradfield hand histories, ``.mjs``) in
``review_classical``. A record that cannot be read raises ``InvalidHandError`` naming the
problem. Here: the options, the efficiency rating and the answer both games give.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InvalidHandError, ReviewTimeout
from ..tiles import tile_name

WINDS = ("E", "S", "W", "N")


@dataclass(frozen=True)
class ReviewOptions:
    """``seat``: the seat whose decisions are rated; ``ev``: also expected values (riichi);
    ``max_shanten``: decisions farther from tenpai get efficiency only; ``row_seconds``: the
    EV search bound per decision; ``deadline``: ``time.monotonic()`` by which to be done."""

    seat: int = 0
    ev: bool = True
    max_shanten: int = 2
    row_seconds: float = 0.25
    t_max: int = 18
    deadline: float = float("inf")



def review(text: str, opts: ReviewOptions) -> dict[str, Any]:
    """The review of one record (see the module doc)."""
    from ..games import games_offering

    for game in games_offering("review"):
        found: dict[str, Any] | None = game.entry("review")(text, opts)
        if found is not None:
            return found
    raise InvalidHandError("record: unknown format (expected Tenhou mjlog XML, mjai JSON "
                           "lines, tenhou.net/6 JSON or a Bradfield hand history)",
                           reason="unknown_format")


def efficiency_of(hand: str, visible: str, discard: str, rules: object) -> dict[str, Any]:
    """The made discard against the efficiency-best: shanten and tiles that advance."""
    import mjcore

    uk = mjcore.ukeire(hand, visible, rules=rules)
    made_kind = tile_name(_kind_of(discard))
    made = next((o for o in uk.options if o.discard is not None
                 and tile_name(int(o.discard)) == made_kind), None)
    best = uk.options[0]
    ties = [tile_name(int(o.discard)) for o in uk.options
            if o.shanten == best.shanten and o.remaining == best.remaining
            and o.discard is not None]
    out = {"shanten": uk.shanten, "best": ties, "best_shanten": best.shanten,
           "best_ukeire": best.remaining}
    if made is not None:
        out.update(made_shanten=made.shanten, made_ukeire=made.remaining,
                   ukeire_loss=(best.remaining - made.remaining)
                   if made.shanten == best.shanten else None,
                   shanten_loss=made.shanten - best.shanten)
    return out


def _kind_of(tile: str) -> int:
    from ..tiles import parse_tile

    return parse_tile(tile)



def review_answer(kind: str, rules: str, players: int, names: list[str],
                  hands: list[dict[str, Any]], decisions: list[dict[str, Any]],
                  opts: ReviewOptions, *, ev: bool) -> dict[str, Any]:
    """The review's JSON: the hands with their steps, the decisions and the totals."""
    def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
        eff = [r["efficiency"] for r in rows]
        evs = [r["ev"] for r in rows if r.get("ev", {}).get("status") == "OK"]
        return {"decisions": len(rows),
                "efficiency_matches": sum(1 for r in rows
                                          if r["efficiency"].get("ukeire_loss") == 0),
                "ukeire_loss": sum(e.get("ukeire_loss") or 0 for e in eff),
                "shanten_losses": sum(1 for e in eff if (e.get("shanten_loss") or 0) > 0),
                "ev_rated": len(evs),
                "ev_matches": sum(1 for e in evs if e["ev_loss"] is not None
                                  and e["ev_loss"] < 1e-6),
                "ev_loss": sum(e["ev_loss"] or 0.0 for e in evs)}

    for i, h in enumerate(hands):
        h["totals"] = totals([r for r in decisions if r["hand_index"] == i])
    return {"format": kind, "rules": rules, "players": players, "names": names,
            "seat": opts.seat, "ev": ev, "hands": hands,
            "decisions": decisions, "totals": totals(decisions)}




__all__ = ["ReviewOptions", "ReviewTimeout", "efficiency_of", "review", "review_answer"]

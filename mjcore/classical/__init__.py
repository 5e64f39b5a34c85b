"""Chinese classical mahjong (144 tiles): rules, Bradfield hand histories, scoring.

- ``ClassicalRules`` (``rules``): every option of chinese-classical.md §13, presets
  ``classical`` and ``bradfield``.
- ``history``: reads J. Bradfield's ``.mjs`` hand histories into typed records.
- ``scoring``: ``score_deal(Deal, rules)`` scores all four hands of a finished deal, item by
  item, and settles; ``batch.score_deals`` does the same over arrays.
- ``bradfield``: rebuilds a history's deal from its events and compares with its records.
"""
from __future__ import annotations

from .rules import ClassicalRules
from .scoring import Deal, DealScore, PlayerHand, PlayerScore, score_deal

__all__ = ["ClassicalRules", "Deal", "DealScore", "PlayerHand", "PlayerScore", "score_deal"]

"""Chinese classical mahjong (144 tiles): rules, Bradfield hand histories, scoring.

``ClassicalRules`` holds every option of chinese-classical.md §13 (presets ``classical`` and
``bradfield``); ``history`` reads Bradfield's ``.mjs`` hand histories.
"""
from __future__ import annotations

from .rules import ClassicalRules

__all__ = ["ClassicalRules"]

"""mjcore: fast mahjong hand analysis.

Single hands: ``Hand.parse``, ``shanten``, ``is_agari``, ``decompose``, ``waits``, ``ukeire``,
``count_dora``, ``score``. Many hands at once: ``mjcore.batch``.
"""
from __future__ import annotations

from .analysis import is_agari, shanten, ukeire, waits
from .riichi.dora import count_dora, dora_from_indicator
from .errors import BatchError, InvalidHandError, InvalidRuleError, MjcoreError
from .hand import Hand, Meld, MeldKind
from .results import Shanten, Ukeire, UkeireOption, Wait, Waits
from .tiles import parse_tile, tile_name

__version__ = "0.1.0"

__all__ = [
    "BatchError", "Hand", "InvalidHandError", "InvalidRuleError", "Meld", "MeldKind",
    "MjcoreError", "Shanten", "Ukeire", "UkeireOption", "Wait", "Waits", "count_dora",
    "dora_from_indicator", "is_agari", "parse_tile", "shanten", "tile_name", "ukeire", "waits",
]


def __getattr__(name: str):
    # Scoring and decomposition load on first use so `import mjcore` stays light.
    if name == "score":
        from .riichi.scoring import score
        return score
    if name == "decompose":
        from .decomposition import decompose
        return decompose
    if name == "RuleSet":
        from .riichi.rules import RuleSet
        return RuleSet
    if name == "batch":
        import importlib
        return importlib.import_module(".batch", __name__)
    raise AttributeError(f"module 'mjcore' has no attribute {name!r}")

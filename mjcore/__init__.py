"""mjcore: fast mahjong hand analysis.

Single hands: ``Hand.parse``, ``shanten``, ``is_agari``, ``decompose``, ``waits``, ``ukeire``,
``count_dora``, ``score``,
``expected_values`` (what to discard). Many hands at once: ``mjcore.batch``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import BatchError, InvalidHandError, InvalidRuleError, KernelLevelError, MjcoreError

try:
    from .analysis import is_agari, shanten, ukeire, waits
    from .hand import Hand
    from .melds import Meld, MeldKind
    from .results import Shanten, Ukeire, UkeireOption, Wait, Waits
    from .riichi.dora import count_dora, dora_from_indicator
    from .tiles import parse_tile, tile_name
    KERNELS_UNAVAILABLE: KernelLevelError | None = None
except KernelLevelError as _unavailable:
    # MJCORE_SIMD (or the build) names a level this CPU cannot run: every kernel name raises
    # this error when used, and the command line prints it as one line
    KERNELS_UNAVAILABLE = _unavailable

if TYPE_CHECKING:      # loaded on first use (see __getattr__); named here for editors
    from . import batch
    from .decomposition import decompose
    from .riichi.expected import expected_values
    from .riichi.rules import RuleSet
    from .riichi.scoring import score

__version__ = "0.1.0"

__all__ = [
    "BatchError", "Hand", "InvalidHandError", "InvalidRuleError", "KernelLevelError", "Meld",
    "MeldKind",
    "MjcoreError", "RuleSet", "Shanten", "Ukeire", "UkeireOption", "Wait", "Waits", "batch",
    "count_dora", "decompose", "dora_from_indicator", "expected_values", "is_agari",
    "parse_tile", "score",
    "shanten", "tile_name", "ukeire", "waits",
]


def __dir__() -> list[str]:
    return sorted(set(__all__) | {n for n in globals() if n.startswith("__")})


def __getattr__(name: str) -> Any:
    """Scoring, decomposition and the batch API load on first use, so `import mjcore` stays
    light."""
    if KERNELS_UNAVAILABLE is not None and name in __all__:
        raise KERNELS_UNAVAILABLE
    if name == "score":
        from .riichi.scoring import score
        return score
    if name == "expected_values":
        from .riichi.expected import expected_values
        return expected_values
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

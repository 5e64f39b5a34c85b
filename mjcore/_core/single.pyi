# Typed surface of the compiled per-call module (mjcore.shanten, is_agari and waits are these
# functions; mjcore.analysis binds them and hands them its general functions).
from collections.abc import Callable, Iterable

from mjcore.hand import Hand
from mjcore.results import Shanten, Wait, Waits

SHANTEN_RESULTS: tuple[Shanten, ...]
WAIT_TABLE: tuple[tuple[Wait, ...], ...]
BUILT_FOR: str

def use_general(shanten: Callable[[Hand | str, object], Shanten],
                is_agari: Callable[[Hand | str, object], bool],
                waits: Callable[[Hand | str, str | Iterable[int | str], object], Waits]
                ) -> None: ...
def shanten(hand: Hand | str, rules: object = None) -> Shanten: ...
def is_agari(hand: Hand | str, rules: object = None) -> bool: ...
def waits(hand: Hand | str, visible: str | Iterable[int | str] = (),
          rules: object = None) -> Waits: ...
def make_waits(shanten: int, tiles: tuple[Wait, ...]) -> Waits: ...

"""The games mjcore plays, found by name: each game's rules type, its presets and its winning
forms, in one place. Every face (the CLI, the service, the web API, the analysis) asks here
which game a preset name belongs to; a third game is its folder and one entry below.

The presets themselves are the rules types' own (``RuleSet.presets()``,
``ClassicalRules.presets()``); the rules modules are imported on first use.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from .errors import InvalidRuleError


@dataclass(frozen=True)
class Game:
    """A game: ``name``, where its rules type lives (``module:Class``), the name that means
    the game with its default preset (``alias``, or None), its seats, the functions of its
    rules module that give a rules value's winning forms and tile kinds for the kernels
    (``module:function``) and whether its tile set has red fives."""

    name: str
    rules_path: str
    alias: str | None
    seats: tuple[int, ...]
    forms_path: str
    kinds_path: str
    red_fives: bool

    @property
    def rules_type(self) -> Any:
        """The game's rules class (imported on first use)."""
        return _load(self.rules_path)

    def winning_forms(self, rules: Any) -> int:
        """The kernels' winning-form set of ``rules`` (a value of this game's rules type)."""
        forms: int = _load(self.forms_path)(rules)
        return forms

    def kinds_in_play(self, rules: Any) -> int:
        """The tile kinds of ``rules``'s set as 34 bits (bit k = kind k)."""
        kinds: int = _load(self.kinds_path)(rules)
        return kinds

    @property
    def presets(self) -> tuple[str, ...]:
        """The preset names of the game's rules type."""
        return tuple(self.rules_type.presets())

    def preset(self, name: str) -> Any:
        """The rules value of preset ``name`` (the alias names the default preset)."""
        rules = self.rules_type
        return rules.preset(rules._DEFAULT_PRESET if name == self.alias else name)


GAMES: dict[str, Game] = {
    "riichi": Game("riichi", "mjcore.riichi.rules:RuleSet", "riichi", (4, 3),
                   "mjcore.riichi.rules:winning_forms", "mjcore.riichi.rules:kinds_in_play",
                   red_fives=True),
    "classical": Game("classical", "mjcore.classical.rules:ClassicalRules", None, (4,),
                      "mjcore.classical.rules:winning_forms",
                      "mjcore.classical.rules:kinds_in_play", red_fives=False),
}


def _load(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def game_of_rules(rules: object) -> Game | None:
    """The game whose rules type ``rules`` is a value of, or None."""
    for game in GAMES.values():
        if isinstance(rules, game.rules_type):
            return game
    return None


@cache
def _by_preset() -> dict[str, Game]:
    out: dict[str, Game] = {}
    for game in GAMES.values():
        for name in (*game.presets, *([game.alias] if game.alias else [])):
            out[name] = game
    return out


def find_game(name: str) -> Game:
    """The game ``name`` (a game's name) is."""
    try:
        return GAMES[name]
    except KeyError:
        raise InvalidRuleError(f"unknown game {name!r}; expected one of "
                               f"{', '.join(GAMES)}") from None


def game_of(preset: str) -> Game:
    """The game whose preset (or alias) ``preset`` is; InvalidRuleError naming every preset
    otherwise."""
    found = _by_preset().get(preset)
    if found is None:
        raise InvalidRuleError(f"unknown rules {preset!r}; expected one of "
                               f"{', '.join(all_presets())}")
    return found


def is_game(preset: str, name: str) -> bool:
    """True when ``preset`` is a preset (or the alias) of the game ``name``."""
    found = _by_preset().get(preset)
    return found is not None and found.name == name


def all_presets() -> tuple[str, ...]:
    """Every preset name of every game, in the registry's order."""
    return tuple(p for g in GAMES.values() for p in g.presets)


__all__ = ["GAMES", "Game", "all_presets", "find_game", "game_of", "game_of_rules", "is_game"]

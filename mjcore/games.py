"""The games mjcore plays, found by name: each game's rules type, its presets, its winning
forms, its tile set, its seats and its entry points, in one place. Every face (the CLI, the
service, the web API, the analysis, the bulk extraction) asks here which game a preset name,
a rules value or a record belongs to, and calls that game's entry point; a third game is its
folder, its face modules and one entry below.

The presets themselves are the rules types' own (``RuleSet.presets()``,
``ClassicalRules.presets()``); every module named here is imported on first use.

Entry points (``Game.entry(name)``), by the face that calls them:

- ``play``: ``mjcore play`` of the game (the command's options as keywords);
- ``score``: ``mjcore score`` of the game (the command's options as keywords);
- ``score_history``: ``mjcore score --history`` (hand histories scored against their records);
- ``record_kind``: ``(name, head) -> (kind, words) or None``, what kind of the game's records
  the first 4 KiB ``head`` of file ``name`` is, and its words for a message (None: not one);
- ``replay``: ``mjcore replay`` of the game's records (the kind, then the command's options);
- ``service``: the service's module of the game (``analyze_hand(request, rules)``);
- ``expected_value``: the expected-value engine (``mjcore analyze --ev``);
- ``read_record``: the bulk extraction's reader, ``(name, text) -> ParsedRecord or None``;
- ``row_rules``: ``(rules options) -> rules value``, the rules of an extract row whose rules
  text (read as a JSON object) names the game (``"game"``), as far as its winning forms go;
- ``review``: ``(text, options) -> review or None``, the web review of one of the game's
  records (None: not one);
- ``batch_score``, ``batch_expected_value``: ``mjcore.batch.score`` and
  ``mjcore.batch.expected_values`` under the game's rules.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .errors import InvalidRuleError


@dataclass(frozen=True)
class Game:
    """A game: ``name``, where its rules type lives (``module:Class``), the name that means
    the game with its default preset (``alias``, or None), its seats, the functions of its
    rules module that give a rules value's winning forms and tile kinds for the kernels
    (``module:function``), whether its tile set has red fives, its entry points (face
    -> ``module:function`` or ``module``; the faces are listed in the module text) and the
    suffixes of its record files beyond ``mjcore.engine.sources.RECORD_SUFFIXES``."""

    name: str
    rules_path: str
    alias: str | None
    seats: tuple[int, ...]
    forms_path: str
    kinds_path: str
    red_fives: bool
    entry_points: Mapping[str, str] = field(default_factory=dict)
    record_suffixes: tuple[str, ...] = ()     # its record files beyond the shared suffixes

    def offers(self, face: str) -> bool:
        """True when the game has an entry point for ``face``."""
        return face in self.entry_points

    def entry(self, face: str) -> Any:
        """The game's entry point for ``face`` (imported on first use); InvalidRuleError when
        the game has none."""
        path = self.entry_points.get(face)
        if path is None:
            raise InvalidRuleError(f"the {self.name} game has no {face.replace('_', ' ')}")
        return _load(path)

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
                   red_fives=True, entry_points={
                       "play": "mjcore.cli.play_riichi:play_riichi",
                       "score": "mjcore.cli.score_riichi:score_riichi",
                       "record_kind": "mjcore.riichi.records:record_kind",
                       "replay": "mjcore.cli.replay_riichi:replay_riichi",
                       "service": "mjcore.service.riichi",
                       "expected_value": "mjcore.riichi.expected:expected_values",
                       "read_record": "mjcore.dataset.riichi:read_record",
                       "review": "mjcore.web.review_riichi:review_riichi",
                       "batch_score": "mjcore.riichi.batch_scoring:score",
                       "batch_expected_value": "mjcore.riichi.batch_expected:expected_values"}),
    "classical": Game("classical", "mjcore.classical.rules:ClassicalRules", None, (4,),
                      "mjcore.classical.rules:winning_forms",
                      "mjcore.classical.rules:kinds_in_play", red_fives=False,
                      entry_points={
                          "play": "mjcore.cli.play_classical:play_classical",
                          "score": "mjcore.cli.score_classical:score_classical",
                          "score_history": "mjcore.cli.score_classical:score_histories",
                          "record_kind": "mjcore.classical.engine.records:record_kind",
                          "replay": "mjcore.cli.replay_classical:replay_classical",
                          "service": "mjcore.service.classical",
                          "read_record": "mjcore.dataset.classical:read_record",
                          "row_rules": "mjcore.dataset.classical:row_rules",
                          "review": "mjcore.web.review_classical:review_classical"},
                      record_suffixes=(".mjs",)),
}


@cache
def _load(path: str) -> Any:
    """The object ``module:name`` names, or the module ``module`` (once: the registry's paths
    are few and fixed, and faces look them up per record)."""
    module, _, name = path.partition(":")
    found = importlib.import_module(module)
    return getattr(found, name) if name else found


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


def default_game() -> Game:
    """The game a face plays when it is given no rules: the registry's first (riichi, whose
    four-player rules are every call's default)."""
    return next(iter(GAMES.values()))


def record_suffixes() -> tuple[str, ...]:
    """The suffixes of every game's record files (the shared ones first)."""
    from .engine.sources import RECORD_SUFFIXES

    return (*RECORD_SUFFIXES, *(x for g in GAMES.values() for x in g.record_suffixes))


def games_offering(face: str) -> tuple[Game, ...]:
    """The games with an entry point for ``face``, in the registry's order."""
    return tuple(g for g in GAMES.values() if g.offers(face))


def presets_offering(face: str) -> tuple[str, ...]:
    """The preset names of the games with an entry point for ``face``."""
    return tuple(p for g in games_offering(face) for p in g.presets)


def or_list(names: tuple[str, ...] | list[str]) -> str:
    """``"a, b or c"``: names for a message or a help text."""
    *rest, last = names
    return f"{', '.join(rest)} or {last}" if rest else last


__all__ = ["GAMES", "Game", "all_presets", "default_game", "find_game", "game_of", "game_of_rules",
           "games_offering", "is_game", "or_list", "presets_offering", "record_suffixes"]

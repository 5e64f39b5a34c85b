"""mjcore.games: one registry finds each game and preset; the faces ask it."""
from __future__ import annotations

import pytest

from mjcore import InvalidRuleError, RuleSet
from mjcore.classical.rules import ClassicalRules
from mjcore.games import GAMES, all_presets, find_game, game_of, is_game


def test_every_preset_of_every_rules_type_belongs_to_its_game():
    assert GAMES["riichi"].presets == RuleSet.presets()
    assert GAMES["classical"].presets == ClassicalRules.presets()
    for name in RuleSet.presets():
        assert game_of(name).name == "riichi" and game_of(name).preset(name) == \
            RuleSet.preset(name)
    for name in ClassicalRules.presets():
        assert is_game(name, "classical") and not is_game(name, "riichi")
    assert game_of("riichi").preset("riichi") == RuleSet.preset("tenhou")
    assert set(all_presets()) == set(RuleSet.presets()) | set(ClassicalRules.presets())


def test_an_unknown_name_names_every_preset():
    with pytest.raises(InvalidRuleError, match="tenhou_sanma, classical, bradfield"):
        game_of("mahjong")
    with pytest.raises(InvalidRuleError, match="riichi, classical"):
        find_game("go")
    assert not is_game("mahjong", "riichi")


def test_the_service_and_the_analysis_read_the_registry():
    from mjcore.analysis import winning_forms
    from mjcore.service import requests

    assert GAMES["classical"].presets == requests.CLASSICAL_PRESETS
    assert GAMES["riichi"].presets == requests.RIICHI_PRESETS
    assert winning_forms("tenhou_sanma") == winning_forms("riichi") != winning_forms("bradfield")
    with pytest.raises(InvalidRuleError, match="expected one of"):
        winning_forms("nonsense")


def test_a_rules_value_finds_its_game_and_winning_forms_in_the_registry():
    from mjcore._core import shanten as kernels
    from mjcore.classical.rules import ClassicalRules
    from mjcore.games import game_of_rules
    from mjcore.riichi.rules import RuleSet

    sanma, classical = RuleSet.preset("tenhou_sanma"), ClassicalRules.preset("classical")
    pairs = classical.replace(seven_pairs=True)
    games = [game_of_rules(r) for r in (sanma, classical, pairs)]
    assert [g.name if g else None for g in games] == ["riichi", "classical", "classical"]
    assert game_of_rules(object()) is None
    assert [g.winning_forms(r) for g, r in zip(games, (sanma, classical, pairs), strict=True)
            if g] == [kernels.RIICHI, kernels.CLASSICAL, kernels.CLASSICAL_SEVEN_PAIRS]


def test_a_value_that_only_looks_like_classical_rules_is_refused():
    """The analysis no longer takes any value with a seven_pairs attribute for classical
    rules: the game of a rules value is the registry's."""
    from dataclasses import dataclass

    import mjcore
    from mjcore.errors import InvalidRuleError

    @dataclass(frozen=True)
    class LooksClassical:
        seven_pairs: bool = False

    with pytest.raises(InvalidRuleError, match=r"expected a preset name or the rules of a "
                                               r"game \(RuleSet, ClassicalRules\)"):
        mjcore.shanten("123m456p789s1122z", rules=LooksClassical())

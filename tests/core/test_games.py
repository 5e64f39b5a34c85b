"""mjcore.games: one registry finds each game and preset; the faces ask it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from mjcore import InvalidRuleError, RuleSet
from mjcore.classical.rules import ClassicalRules
from mjcore.games import GAMES, all_presets, find_game, game_of, is_game
from mjcore.options import RuleOptions


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


def test_every_entry_point_of_every_game_loads():
    import types

    for game in GAMES.values():
        assert game.entry_points, game.name
        for face in game.entry_points:
            found = game.entry(face)
            assert callable(found) or isinstance(found, types.ModuleType), (game.name, face)
    assert GAMES["riichi"].offers("expected_value")
    assert not GAMES["classical"].offers("expected_value")
    with pytest.raises(InvalidRuleError, match="the classical game has no expected value"):
        GAMES["classical"].entry("expected_value")


def test_the_batch_calls_find_the_game_of_their_rules():
    import numpy as np

    from mjcore import batch

    hands = np.zeros((1, 34), np.uint8)
    with pytest.raises(InvalidRuleError, match="the classical game has no batch score"):
        batch.score(hands, rules=ClassicalRules.preset("bradfield"))
    with pytest.raises(InvalidRuleError, match="has no batch expected value"):
        batch.expected_values(hands, rules="classical")
    with pytest.raises(InvalidRuleError, match="unknown rule preset 'nope'"):
        batch.expected_values(hands, rules="nope")      # riichi's call names its presets


# -- a third game is its folder and a registration: the faces find it in the registry ------------

_CALLS: list[tuple[str, dict[str, Any]]] = []


@dataclass(frozen=True, repr=False)
class _GoRules(RuleOptions):
    _LABEL: ClassVar[str] = "go rule"
    _DEFAULT_PRESET: ClassVar[str] = "go_default"
    komi: int = 6
    name: str = "go_default"


_GoRules._PRESETS = {"go_default": _GoRules(), "go_small": _GoRules(komi=0, name="go_small")}


def _play(**options: Any) -> None:
    _CALLS.append(("play", options))


def _score(**options: Any) -> None:
    _CALLS.append(("score", options))


def _record_kind(name: str, head: str) -> tuple[str, str] | None:
    return ("go", "go records") if head.startswith("(;GM[1]") else None


def _replay(**options: Any) -> None:
    _CALLS.append(("replay", options))


@pytest.fixture
def third_game(monkeypatch):
    from mjcore import games

    here = __name__
    go = games.Game("go", f"{here}:_GoRules", None, (2,), "mjcore.riichi.rules:winning_forms",
                    "mjcore.riichi.rules:kinds_in_play", red_fives=False, entry_points={
                        "play": f"{here}:_play", "score": f"{here}:_score",
                        "record_kind": f"{here}:_record_kind", "replay": f"{here}:_replay"})
    monkeypatch.setitem(games.GAMES, "go", go)
    games._by_preset.cache_clear()
    _CALLS.clear()
    yield go
    monkeypatch.delitem(games.GAMES, "go")
    games._by_preset.cache_clear()


def test_a_third_game_is_found_by_every_face(third_game, tmp_path):
    from click.testing import CliRunner

    from mjcore.cli import main

    assert game_of("go_small") is third_game and "go_small" in all_presets()
    run = CliRunner().invoke
    r = run(main, ["play", "--rules", "go_small", "--set", "komi=7", "--no-progress"])
    assert r.exit_code == 0, r.output
    face, options = _CALLS.pop()
    assert face == "play" and options["rules"].komi == 7 and options["preset"] == "go_small"
    r = run(main, ["play", "--rules", "go_small", "--set", "kiriage=true"])
    assert r.exit_code == 2 and "kiriage is an option of the riichi rules" in r.output
    assert run(main, ["score", "--rules", "go_default", "1m"]).exit_code == 0
    assert _CALLS.pop()[0] == "score"
    (tmp_path / "a.txt").write_text("(;GM[1]SZ[19])")
    r = run(main, ["replay", str(tmp_path), "--no-progress"])
    assert r.exit_code == 0, r.output
    face, options = _CALLS.pop()
    assert face == "replay" and options["kind"] == "go"
    (tmp_path / "b.mjson").write_text('{"type":"start_game","names":["a","b","c","d"]}\n')
    r = run(main, ["replay", str(tmp_path), "--no-progress"])
    assert r.exit_code == 1 and "go records" in r.output and "riichi records" in r.output
    help_text = run(main, ["play", "--help"]).output
    assert "go_default" in help_text and "go_small" in help_text
    r = run(main, ["analyze", "--ev", "--rules", "go_small", "123m"])
    assert r.exit_code == 2 and "no expected-value model" in r.output

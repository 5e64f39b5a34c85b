"""ClassicalRules: presets, validation, Bradfield option mapping."""
from __future__ import annotations

import pytest

from mjcore.classical.rules import ClassicalRules
from mjcore.errors import InvalidRuleError


def test_presets_differ_only_where_documented():
    c, b = ClassicalRules.preset("classical"), ClassicalRules.preset("bradfield")
    diff = {n for n in c.option_names() if getattr(c, n) != getattr(b, n)}
    assert diff == {"seating", "dead_wall", "bonus_replacement", "add_to_claimed_pung",
                    "start_points", "cannon_liability", "last_discard_claims",
                    "loose_tile_wall_points", "scholars_need_no_chows",
                    "buried_treasure_discard_pair", "rob_concealed_kong",
                    "thirteenth_win_passes_deal", "moon_on_last_discard"}
    assert c.seven_pairs is False and c.limit == 1000 and c.mahjong_points == 20


def test_immutable_and_replace() -> None:
    r = ClassicalRules.preset("classical")
    with pytest.raises(AttributeError):
        r.limit = 500  # type: ignore[misc]
    r2 = r.replace(limit=500, seven_pairs=True)
    assert (r2.limit, r2.seven_pairs, r.limit) == (500, True, 1000)
    assert ClassicalRules.from_dict(r2.to_dict()) == r2


@pytest.mark.parametrize("opts, needle", [
    ({"colour": 1}, "colour"),
    ({"dead_wall": "15"}, "dead_wall"),
    ({"seven_pairs": 1}, "seven_pairs"),
    ({"limit": 0}, "limit"),
    ({"rounds": 3}, "rounds"),
    ({"tile_specific_limits": ("moon", "sun")}, "tile_specific_limits"),
    ({"tile_specific_limits": 0}, "tile_specific_limits=0"),
    ({"tile_specific_limits": True}, "tile_specific_limits=True"),
    ({"tile_specific_limits": "moon"}, "tile_specific_limits='moon'"),
    ({"tile_specific_limits": [["moon"]]}, "tile_specific_limits"),
    ({"multiple_mahjong": "middle"}, "multiple_mahjong"),
    ({"losers_purity": True}, "losers_purity"),
])
def test_bad_options_are_named(opts, needle):
    with pytest.raises(InvalidRuleError, match=needle):
        ClassicalRules.preset("classical").replace(**opts)


def test_unknown_preset():
    with pytest.raises(InvalidRuleError, match="hongkong"):
        ClassicalRules.preset("hongkong")


def test_bradfield_option_mapping():
    base = {"ScoreLimit": 1000, "FlowersLoose": 0, "DeadWall16": 0, "DeadWall": 1,
            "FlowersOwnBoth": 10000, "FlowersOwnEach": 0, "ConcealedFully": 10000,
            "ConcealedAlmost": 0, "DiscDoubles": 0, "End": 1, "Timeout": 15}
    assert ClassicalRules.from_bradfield_options(base) is ClassicalRules.preset("bradfield")
    r = ClassicalRules.from_bradfield_options({**base, "DeadWall16": 1, "FlowersLoose": 1,
                                               "ConcealedFully": 30000, "ConcealedAlmost": 10000,
                                               "FlowersOwnEach": 10000, "FlowersOwnBoth": 0,
                                               "NoLimit": 1, "MahJongScore": 10})
    assert (r.dead_wall, r.bonus_replacement, r.concealed_hand, r.own_bonus_double,
            r.no_limit, r.mahjong_points) == ("16_unreplenished", "loose", "fully_3_semi_1",
                                              "each", True, 10)
    assert ClassicalRules.from_bradfield_options({"DeadWall": 0}).dead_wall == "none"
    with pytest.raises(InvalidRuleError, match="Frobnicate"):
        ClassicalRules.from_bradfield_options({"Frobnicate": 1})
    with pytest.raises(InvalidRuleError, match="MahJongScore"):
        ClassicalRules.from_bradfield_options({"MahJongScore": 10020})


def test_scoring_params_pack_every_option_the_kernel_reads():
    from mjcore.classical.rules import SCORING_PARAM_NAMES
    r = ClassicalRules.preset("bradfield")
    assert len(r.scoring_params) == len(SCORING_PARAM_NAMES)
    assert r.scoring_params[SCORING_PARAM_NAMES.index("cannon_liability")] == 1

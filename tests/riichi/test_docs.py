import doctest

import mjcore.riichi.game


def test_game_docstring_example():
    assert doctest.testmod(mjcore.riichi.game).failed == 0

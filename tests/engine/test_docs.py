import doctest

import mjcore.engine


def test_engine_docstring_example():
    assert doctest.testmod(mjcore.engine).failed == 0

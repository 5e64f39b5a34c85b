"""The service's cache of rules derived from serialized selections stays bounded."""
from __future__ import annotations

import pytest

from mjcore.service.requests import SelectionCache


def test_endless_distinct_selections_never_grow_it_past_its_size():
    cache = SelectionCache(size=3)
    made: list[int] = []

    def make(i: int) -> int:
        made.append(i)
        return i

    for i in range(1000):
        assert cache.get(f"sel{i}".encode(), lambda i=i: make(i)) == i
        assert len(cache._values) <= 3
    assert len(made) == 1000
    assert cache.get(b"sel999", lambda: pytest.fail("a hit makes nothing")) == 999


def test_a_failed_selection_is_not_kept():
    cache = SelectionCache(size=3)

    def bad():
        raise ValueError("bad selection")

    for _ in range(2):
        with pytest.raises(ValueError, match="bad selection"):
            cache.get(b"bad", bad)
    assert cache._values == {}

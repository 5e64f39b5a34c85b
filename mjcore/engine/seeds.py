"""The seed of one hand's shuffle, from (game seed, round index, honba), so a hand replays alone;
both games' walls derive from it."""
from __future__ import annotations

import hashlib


def hand_digest(seed: int, round_index: int, honba: int) -> bytes:
    """16 bytes of a hash of (game seed, round index, honba)."""
    return hashlib.blake2b(f"mjcore-wall:{seed}:{round_index}:{honba}".encode(),
                           digest_size=16).digest()


def hand_seed(seed: int, round_index: int, honba: int) -> int:
    """The seed of one hand's shuffle: :func:`hand_digest` as an integer."""
    return int.from_bytes(hand_digest(seed, round_index, honba), "little")

"""The per-row arrays of the bulk RPCs, as the proto documents them: for each bytes field of a
batch message its numpy dtype (little-endian on the wire) and its shape per row. The client
packs and unpacks by these tables and the service checks and fills by them.

The per-hand arrays of StreamScore carry the names of ``mjcore.riichi.batch_scoring.score``'s
arguments and results, so one vocabulary runs from the wire to the library.
"""
from __future__ import annotations

import numpy as np

from mjcore._core.scoring import MAX_FU_ITEM_COUNT, MAX_INDICATOR_COUNT, N_YAKU_IDS

ArraySpec = tuple[str, tuple[int, ...]]

N_KINDS = 34
YAKU_IDS = N_YAKU_IDS                   # tenhou.net yaku ids (52 dora, 53 ura, 54 red fives)
FU_ITEM_SLOTS = MAX_FU_ITEM_COUNT       # fu items per hand in StreamScoreResponse.fu_items
MAX_INDICATORS = MAX_INDICATOR_COUNT    # dora or ura indicator slots per hand

# StreamScoreRequest: every array but win_tile may be empty (its default for every hand)
SCORE_REQUEST_ARRAYS: dict[str, ArraySpec] = {
    "win_tile": ("u1", ()), "melds": ("<u2", (4,)), "red": ("u1", ()), "flags": ("<u2", ()),
    "seat_wind": ("u1", ()), "round_wind": ("u1", ()), "from_rel": ("u1", ()),
    "pao_rel": ("i1", ()), "honba": ("<u2", ()), "riichi_sticks": ("<u2", ()),
    "kita": ("u1", ()),
}
# the indicator arrays, (N, K) uint8, and the request field that carries their K
INDICATOR_ARRAYS: dict[str, str] = {"dora": "dora_slot_count", "ura": "ura_slot_count"}

SCORE_RESPONSE_ARRAYS: dict[str, ArraySpec] = {
    "status": ("i1", ()), "han": ("u1", ()), "fu": ("u1", ()), "limit": ("u1", ()),
    "yakuman": ("u1", ()), "basic": ("<i4", ()), "points": ("<i4", ()),
    "yaku_mask": ("<u8", ()), "dora_ura_aka": ("u1", (3,)), "deltas": ("<i4", (4,)),
    "payments": ("<i4", (4,)), "decomposition_index": ("<i4", ()),
}
# with StreamScoreRequest.details
SCORE_DETAIL_ARRAYS: dict[str, ArraySpec] = {
    "yaku_han": ("u1", (YAKU_IDS,)), "fu_items": ("u1", (FU_ITEM_SLOTS, 3)),
    "n_fu_items": ("u1", ()),
}

SHANTEN_RESPONSE_ARRAYS: dict[str, ArraySpec] = {"shanten": ("i1", ())}
# with StreamShantenRequest.per_form, in the column order of mjcore.batch.shanten(forms=True)
SHANTEN_FORM_ARRAYS: dict[str, ArraySpec] = {
    "standard": ("i1", ()), "chiitoitsu": ("i1", ()), "kokushi": ("i1", ())}
WAITS_RESPONSE_ARRAYS: dict[str, ArraySpec] = {"masks": ("<u8", ()), "shanten": ("i1", ()),
                                               "advance_masks": ("<u8", ())}
AGARI_RESPONSE_ARRAYS: dict[str, ArraySpec] = {"agari": ("u1", ())}

# StreamScoreClassicalRequest (the arguments of mjcore.classical.batch.score_deals, in order);
# every array but dead_kinds is required
DEAL_REQUEST_ARRAYS: dict[str, ArraySpec] = {
    "counts": ("u1", (4, N_KINDS)), "melds": ("u1", (4, 4, 2)), "n_melds": ("u1", (4,)),
    "bonus": ("u1", (4,)), "info": ("<i2", (8,)), "dead_kinds": ("<u8", ()),
}
DEAL_RESPONSE_ARRAYS: dict[str, ArraySpec] = {
    "status": ("i1", ()), "score": ("<i4", (4,)), "points": ("<i4", (4,)),
    "doubles": ("<i4", (4,)), "limit_hand": ("u1", (4,)), "net": ("<i4", (4,)),
}

# StreamExpectedValuesRequest (the arrays of mjcore.batch.expected_values; `dora` is
# (dora_slot_count,) per row); every array may be empty (its default for every hand)
EV_REQUEST_ARRAYS: dict[str, ArraySpec] = {
    "red": ("u1", (3,)), "melds": ("<u2", (4,)), "visible": ("u1", (N_KINDS,)),
    "visible_red": ("u1", (3,)), "seat_wind": ("u1", ()), "round_wind": ("u1", ()),
    "kita": ("u1", ()), "discard": ("u1", ()),
}
EV_RESPONSE_ARRAYS: dict[str, ArraySpec] = {
    "status": ("i1", ()), "shanten": ("i1", ()), "nodes": ("<u4", ()), "best_tile": ("u1", ()),
    "best_tenpai": ("<f8", ()), "best_win": ("<f8", ()), "best_ev": ("<f8", ()),
    "discard_shanten": ("i1", ()), "discard_tenpai": ("<f8", ()), "discard_win": ("<f8", ()),
    "discard_ev": ("<f8", ()),
}

BAD_SHANTEN = -128      # the int8 shanten of a bad hand


def row_bytes(*specs: dict[str, ArraySpec]) -> int:
    """Bytes one row takes in the arrays of ``specs``."""
    return sum(np.dtype(dtype).itemsize * int(np.prod(shape, dtype=np.int64))
               for spec in specs for dtype, shape in spec.values())


def empty(spec: dict[str, ArraySpec], n: int) -> dict[str, np.ndarray]:
    """Zeroed arrays of ``n`` rows for every array of ``spec``."""
    return {name: np.zeros((n, *shape), dtype=dtype) for name, (dtype, shape) in spec.items()}


def read_rows(data: bytes, spec: ArraySpec, n: int) -> np.ndarray:
    """The (n, *shape) array of one bytes field (a ValueError when its length is wrong)."""
    dtype, shape = spec
    return np.frombuffer(data, dtype=dtype).reshape(n, *shape)


__all__ = ["AGARI_RESPONSE_ARRAYS", "BAD_SHANTEN", "DEAL_REQUEST_ARRAYS",
           "DEAL_RESPONSE_ARRAYS", "EV_REQUEST_ARRAYS", "EV_RESPONSE_ARRAYS",
           "FU_ITEM_SLOTS", "INDICATOR_ARRAYS", "MAX_INDICATORS",
           "N_KINDS", "SCORE_DETAIL_ARRAYS", "SCORE_REQUEST_ARRAYS", "SCORE_RESPONSE_ARRAYS",
           "SHANTEN_FORM_ARRAYS", "SHANTEN_RESPONSE_ARRAYS", "WAITS_RESPONSE_ARRAYS",
           "YAKU_IDS", "ArraySpec", "empty", "read_rows", "row_bytes"]

"""A table of hands -> the same table with the analysis columns added (see SCHEMA.md).

The hands come from an extract (``counts`` and ``visible``, 34 bytes per row, ``n_melds``,
``action``, ``tile`` and the win columns) or from a user's table with a ``hand`` column (mpsz
text, called melds written as tokens), a ``counts`` column (34 counts) or a ``closed`` column
(136-ids), optionally ``n_melds``, ``visible`` and ``discard`` (the tile discarded, mpsz).
Every row gets a result: a row that cannot be analysed keeps its place, with
``analysis_error`` saying why.

Remaining counts (waits, ukeire) count the tiles the player cannot see: 4 minus the copies in
the hand and in ``visible`` (discards, melds and dora indicators), never below 0. On a 14-3k
tile hand the discards are ranked by the shanten after the discard, then by ukeire; the
efficiency-best discards are those ranked first. Three-player rows (``players`` 3, or
``"players": 3`` in ``rules``) have no 2m-8m: those kinds count as all seen, a hand holding
one is the row error ``not_in_sanma``, and their wins are scored under their own rules.

The counting is one GIL-free compiled pass (:func:`mjcore.dataset.hands.analyze_hands`) and the
batch scoring kernel; a folder of Parquet parts is analysed part by part, on every core (one
part per core) or on a Dask cluster.
"""
from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import batch
from .._core import discard_analysis as _k
from .._core.shanten import RIICHI
from ..analysis import winning_forms
from ..errors import MjcoreError
from ..files import real_folder
from .common import (
    WINS_TABLE,
    PartitionPlan,
    Problem,
    atomic_write_json,
    cores,
    drop_old_side_file,
    part_files,
    progress,
    read_problems,
    side_file,
    write_table_atomic,
)
from .expected import EV_COLUMNS, EV_SIDE
from .hands import NOT_HELD, analyze_hands

if TYPE_CHECKING:
    from distributed import Client

# the input columns the analysis reads (the others it never looks at); `closed` only when the
# input has no `counts` (or no `red` for the wins)
INPUT_COLUMNS = ("format", "players", "counts", "red", "hand", "n_melds", "visible", "action",
                 "tile", "discard", "melds", "kita", "seat", "dealer", "round_wind",
                 "dora_markers", "ura_markers", "win_flags", "from_seat", "rules", "pao_seat")
# the input columns only the win rows need: read from an extract's side table of its wins
WIN_ONLY_COLUMNS = ("red", "melds", "kita", "seat", "dealer", "round_wind", "dora_markers",
                    "ura_markers", "win_flags", "from_seat", "rules", "pao_seat")
# string columns read as dictionaries (a few distinct values, many rows)
DICTIONARY_COLUMNS = ("format", "action", "rules")
# an analysed part of a Parquet input stores what the analysis adds and names its input part
INPUT_KEY = "mjcore.input"
ROW_GROUPS_KEY = "mjcore.input_row_groups"     # "first,end" when the input is a slice of a file
RELATIVE_KEY = "mjcore.input_relative"  # the input part from the analysed part's folder
DASK_CONNECT_TIMEOUT = 30      # seconds to reach a scheduler given by address
MAX_HAND_CHARS = 256           # a hand cell's longest text (a hand with four kans is ~60)
MAX_LINE_BYTES = 1 << 16       # a text file's line is read up to this length
HAND_BYTES = 34                # a binary(34) hand column: one byte per kind
NO_FORM = 99
WIN_ACTIONS = ("tsumo", "ron")
DISCARD_ACTIONS = ("discard", "riichi", "original_call")
SANMA_ABSENT = slice(1, 8)     # kinds 2m-8m: not in a three-player (sanma) wall
def analysis_fields() -> list[Any]:
    """The columns :func:`analyze` adds (appended after the input's columns)."""
    import pyarrow as pa

    per_kind = pa.binary(HAND_BYTES)
    return [
        pa.field("tiles", pa.int8(), nullable=False), pa.field("analysis_error", pa.string()),
        pa.field("shanten", pa.int8()), pa.field("shanten_standard", pa.int8()),
        pa.field("shanten_chiitoitsu", pa.int8()), pa.field("shanten_kokushi", pa.int8()),
        pa.field("ukeire", pa.int16()),
        pa.field("waits", pa.list_(pa.int8())), pa.field("waits_remaining", pa.list_(pa.int8())),
        pa.field("discard_shanten", per_kind), pa.field("discard_ukeire", per_kind),
        pa.field("best_discards", pa.int64()), pa.field("best_shanten", pa.int8()),
        pa.field("best_ukeire", pa.int16()),
        pa.field("made_discard", pa.int8()), pa.field("made_shanten", pa.int8()),
        pa.field("made_ukeire", pa.int16()), pa.field("made_best", pa.bool_()),
        pa.field("acceptance_lost", pa.int16()),
        pa.field("score_status", pa.string()), pa.field("score_han", pa.int16()),
        pa.field("score_fu", pa.int16()), pa.field("score_points", pa.int32()),
        pa.field("score_yakuman", pa.int8()),
    ]


ANALYSIS_COLUMNS = (
    "tiles", "analysis_error", "shanten", "shanten_standard", "shanten_chiitoitsu",
    "shanten_kokushi", "ukeire", "waits", "waits_remaining", "discard_shanten",
    "discard_ukeire", "best_discards", "best_shanten", "best_ukeire", "made_discard",
    "made_shanten", "made_ukeire", "made_best", "acceptance_lost", "score_status", "score_han",
    "score_fu", "score_points", "score_yakuman")


def write_options(schema: Any) -> dict[str, Any]:
    """pyarrow.parquet.write_table's options for an analysed part of ``schema``: no
    dictionary pages and no statistics; numbers and 34-byte columns uncompressed, text and
    lists lz4 (chosen by measurement, benchmarks/HISTORY.md "analyse step": compressing the numbers
    costs more CPU than the rest of the write)."""
    import pyarrow as pa

    def packed(t: Any) -> bool:
        return bool(pa.types.is_integer(t) or pa.types.is_boolean(t) or
                    pa.types.is_fixed_size_binary(t) or pa.types.is_floating(t))

    return {"use_dictionary": False, "write_statistics": False,
            "compression": {f.name: "none" if packed(f.type) else "lz4" for f in schema}}


def per_kind(column: Any) -> np.ndarray:
    """An (N, 34) numpy view of a ``binary(34)`` column (``counts``, ``visible``,
    ``discard_shanten``, ``discard_ukeire``); null rows read as zeros (``discard_shanten``:
    int8, 127 for a kind not held; the others uint8)."""
    return per_kind_bytes(column, HAND_BYTES)


def per_kind_bytes(column: Any, width: int) -> np.ndarray:
    """An (N, width) uint8 numpy view of a ``binary(width)`` column (null rows: zeros)."""
    import pyarrow as pa

    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if col.type != pa.binary(width):
        raise MjcoreError(f"per_kind takes a column of {width} bytes per row, not {col.type}")
    if col.null_count:
        col = col.fill_null(b"\0" * width)
    return _fixed_bytes(col, width)


def _fixed_bytes(col: Any, width: int) -> np.ndarray:
    """An (N, width) uint8 view of a ``binary(width)`` array's values (null rows: whatever
    the buffer holds there)."""
    data = col.buffers()[1]
    if data is None or len(col) == 0:
        return np.zeros((len(col), width), np.uint8)
    return np.frombuffer(data, np.uint8, len(col) * width, col.offset * width).reshape(-1, width)


# ---- input -> arrays ---------------------------------------------------------------------------

@dataclass
class _Hands:
    counts: np.ndarray           # (N, 34) uint8 closed counts
    n_melds: np.ndarray          # (N,) uint8
    visible: np.ndarray          # (N, 34) uint8
    made: np.ndarray             # (N,) int16 discarded kind or -1
    error: dict[int, str]        # row -> why it cannot be analysed
    forms: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))   # per row


def _column(table: Any, name: str) -> Any:
    """A column as one array (no copy when it has one chunk), or None when missing."""
    index = table.schema.get_field_index(name)
    if index < 0:
        return None
    col = table.column(index)
    return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()


def _list_values(col: Any) -> tuple[np.ndarray, np.ndarray]:
    """(flat values, offsets) of a list column; null lists count as empty."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if col.null_count:
        col = pc.fill_null(col, pa.scalar([], col.type))
    offsets = col.offsets.to_numpy()
    values = col.values.to_numpy(zero_copy_only=False)[offsets[0]:offsets[-1]]
    return values, offsets - offsets[0]


def _is_in(col: Any, values: tuple[str, ...]) -> np.ndarray:
    """A bool array: the string column's value is one of ``values`` (null: False)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(col.type):          # decided once per distinct value
        hit = np.fromiter((v in values for v in col.dictionary.to_pylist()), bool,
                          len(col.dictionary)) if len(col.dictionary) <= 64 else \
            _is_in(col.dictionary, values)
        if not hit.any():
            return np.zeros(len(col), bool)
        if not col.null_count:
            picked: np.ndarray = hit[col.indices.to_numpy(zero_copy_only=False)]
            return picked
        index = pc.fill_null(col.indices, -1).to_numpy(zero_copy_only=False)
        return np.where(index >= 0, hit[np.maximum(index, 0)], False)
    if not pa.types.is_string(col.type):
        col = pc.cast(col, pa.string())
    hit = pc.is_in(col, value_set=pa.array(values, pa.string()))
    out: np.ndarray = pc.fill_null(hit, False).to_numpy(zero_copy_only=False)
    return out


def _texts(col: Any) -> list[Any]:
    """A string column (plain or dictionary) as Python values."""
    import pyarrow as pa

    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    return list(col.to_pylist())


def _small_ints(col: Any, n: int, default: int) -> np.ndarray:
    if col is None:
        return np.full(n, default, np.int64)
    import pyarrow.compute as pc

    if col.null_count:
        col = pc.fill_null(col, default)
    out: np.ndarray = col.to_numpy(zero_copy_only=False).astype(np.int64)
    return out


def _narrow_ints(col: Any, n: int, default: int) -> np.ndarray:
    """An integer column as numpy without a copy when it is signed and at most 16 bits
    wide with no nulls (else as :func:`_small_ints`, int64)."""
    import pyarrow as pa

    if col is not None and not col.null_count and pa.types.is_signed_integer(col.type) and \
            col.type.bit_width <= 16:
        out: np.ndarray = col.to_numpy(zero_copy_only=False)
        return out
    return _small_ints(col, n, default)


_INT_LIST_COLUMNS = ("closed", "counts", "visible")
_INT_COLUMNS = ("n_melds", "tile")


def _check_column_types(table: Any) -> None:
    """A clear error for an input column of the wrong type (the readers below assume them)."""
    import pyarrow as pa

    for name in _INT_LIST_COLUMNS + _INT_COLUMNS:
        if name not in table.column_names:
            continue
        t = table.schema.field(name).type
        if name in _INT_LIST_COLUMNS:
            ok = pa.types.is_list(t) or pa.types.is_large_list(t) or \
                pa.types.is_fixed_size_list(t)
            ok = ok and (pa.types.is_integer(t.value_type) or pa.types.is_null(t.value_type))
            ok = ok or (name != "closed" and (pa.types.is_binary(t) or pa.types.is_large_binary(t)
                                              or t == pa.binary(HAND_BYTES)))
            want = "a list of integers" + ("" if name == "closed" else " or 34 bytes")
        else:
            ok = pa.types.is_integer(t) or pa.types.is_null(t)
            want = "integers"
        if not ok:
            raise MjcoreError(f"the {name} column must hold {want} (has {t})")


def _counts_column(col: Any, n: int, what: str) -> np.ndarray:
    """(n, 34) int64 counts of a ``counts``/``visible`` column: 34 bytes or 34 integers."""
    import pyarrow as pa

    if pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type):
        try:                                # a pandas round trip: bytes of any length
            col = col.cast(pa.binary(HAND_BYTES))
        except pa.ArrowInvalid:
            raise MjcoreError(f"the {what} column must hold 34 bytes per row") from None
    if col.type == pa.binary(HAND_BYTES):
        if col.null_count:
            raise MjcoreError(f"the {what} column must hold 34 counts per row (has nulls)")
        return per_kind(col)
    flat = np.asarray(col.flatten().to_numpy(zero_copy_only=False), np.int64)
    if flat.size != n * 34 or col.null_count:
        raise MjcoreError(f"the {what} column must hold 34 counts per row")
    return flat.reshape(n, 34)


def _hands(table: Any) -> _Hands:
    n = table.num_rows
    _check_column_types(table)
    error: dict[int, str] = {}
    melds = _narrow_ints(_column(table, "n_melds"), n, 0)
    if "counts" in table.column_names:
        counts = _counts_column(_column(table, "counts"), n, "counts")
        if counts.dtype != np.uint8:       # 34 integers; 34 bytes go to the kernel as they are
            for r in np.flatnonzero((counts < 0).any(axis=1) | (counts > 4).any(axis=1)):
                error[int(r)] = "too_many_copies: counts must be 0..4"
            counts = np.clip(counts, 0, 4).astype(np.uint8)
    elif "closed" in table.column_names:
        values, offsets = _list_values(_column(table, "closed"))
        values = values.astype(np.int64)
        lengths = np.diff(offsets)
        rows = np.repeat(np.arange(n), lengths)
        bad_tile = (values < 0) | (values > 135)
        for r in np.unique(rows[bad_tile]):
            error[int(r)] = "bad_tile: a tile id outside 0..135"
        if bad_tile.any():
            rows, values = rows[~bad_tile], values[~bad_tile]
        counts = _counts_of(rows * 34 + (values >> 2), n)
    elif "hand" in table.column_names:
        counts, parsed_melds = _parse_hands(_texts(_column(table, "hand")), error)
        melds = np.where(parsed_melds >= 0, parsed_melds, melds)
    else:
        raise no_hand_column(table.column_names)
    bad_melds = (melds < 0) | (melds > 4)
    if bad_melds.any():
        for r in np.flatnonzero(bad_melds):
            error.setdefault(int(r), "bad_meld_count: n_melds must be 0..4")
        melds = np.where(bad_melds, 0, melds)
    visible = np.zeros((n, 34), np.uint8)
    if "visible" in table.column_names:
        seen = _counts_column(_column(table, "visible"), n, "visible")
        visible = seen if seen.dtype == np.uint8 else np.clip(seen, 0, 4).astype(np.uint8)
    sanma = np.flatnonzero(three_player_rows(table))
    if sanma.size:          # 2m-8m are absent: never advancing tiles, never held
        visible = visible.copy()
        visible[sanma, SANMA_ABSENT] = 4
        for r in sanma[counts[sanma, SANMA_ABSENT].any(axis=1)].tolist():
            kinds = np.flatnonzero(counts[r, SANMA_ABSENT]) + SANMA_ABSENT.start
            error.setdefault(r, f"not_in_sanma: a three-player hand holds {kinds[0] + 1}m, "
                                "which sanma has no copies of (2m-8m)")
    made = np.full(n, -1, np.int16)
    if "action" in table.column_names and "tile" in table.column_names:
        tile = _narrow_ints(_column(table, "tile"), n, -1)
        is_discard = _is_in(_column(table, "action"), DISCARD_ACTIONS) & (tile >= 0) & \
            (tile < 136)
        made = np.where(is_discard, tile >> 2, np.int16(-1)).astype(np.int16, copy=False)
    elif "discard" in table.column_names:
        made = _parse_discards(_texts(_column(table, "discard")), error)
    forms = np.full(n, RIICHI, np.uint8)
    if "format" in table.column_names:
        classical = np.flatnonzero(_is_in(_column(table, "format"), ("mjs",)))
        if classical.size:
            texts = _column(table, "rules")
            texts = _texts(texts) if texts is not None else None
            forms_of: dict[Any, int] = {}
            for row in classical.tolist():
                text = texts[row] if texts is not None else None
                code = forms_of.get(text)
                if code is None:
                    code = forms_of[text] = winning_forms(_classical_rules(text))
                forms[row] = code
    return _Hands(np.ascontiguousarray(counts), melds.astype(np.uint8),
                  np.ascontiguousarray(visible), made, error, forms)




def three_player_rows(table: Any) -> np.ndarray:
    """(N,) bool: the rows of a three-player game, by the ``players`` column, else by the
    ``players`` option of ``rules`` (JSON of the differences from the ``tenhou`` preset)."""
    n = table.num_rows
    col = _column(table, "players")
    if col is not None:
        three: np.ndarray = _small_ints(col, n, 4) == 3
        return three
    out = np.zeros(n, bool)
    rules = _column(table, "rules")
    if rules is not None:
        for text, rows in _groups(rules):
            out[rows] = _players_of(text) == 3
    return out


def _players_of(rules_text: str | None) -> int:
    """The ``players`` option of a row's rules text (4 when absent or unreadable)."""
    try:
        value = json.loads(rules_text).get("players", 4) if rules_text else 4
    except (ValueError, AttributeError):
        return 4
    return value if value in (3, 4) else 4


def _classical_rules(rules_text: str | None) -> Any:
    """A classical row's rules as far as its winning forms go: the ``bradfield`` preset with
    the row's seven_pairs option."""
    from ..classical.rules import ClassicalRules

    return ClassicalRules.preset("bradfield").replace(
        seven_pairs=_classical_seven_pairs(rules_text))


def _classical_seven_pairs(rules_text: str | None) -> bool:
    """The seven_pairs option of a classical row's rules (JSON of the differences from the
    ``bradfield`` preset)."""
    from ..classical.rules import ClassicalRules

    default = bool(ClassicalRules.preset("bradfield").seven_pairs)
    try:
        value = json.loads(rules_text).get("seven_pairs", default) if rules_text else default
    except (ValueError, AttributeError):
        return default
    return value is True or value == "True"


def _counts_of(cells: np.ndarray, n: int) -> np.ndarray:
    """(n, 34) uint8 counts from the flat cell (row * 34 + kind) of every tile."""
    if cells.size and np.all(cells[1:] >= cells[:-1]):      # sorted hands: run lengths
        starts = np.flatnonzero(np.r_[True, cells[1:] != cells[:-1]])
        runs = np.diff(np.r_[starts, cells.size])
        flat = np.zeros(n * 34, np.uint8)
        flat[cells[starts]] = np.minimum(runs, 255)
        return flat.reshape(n, 34)
    return np.minimum(np.bincount(cells, minlength=n * 34), 255).astype(np.uint8).reshape(n, 34)


def _parse_hands(texts: list[Any], error: dict[int, str]) -> tuple[np.ndarray, np.ndarray]:
    """Counts and meld numbers of mpsz hands: meld-free rows through the compiled line parser,
    rows with meld tokens through :class:`mjcore.Hand`."""
    from ..errors import InvalidHandError
    from ..hand import Hand

    n = len(texts)
    counts = np.zeros((n, 34), np.uint8)
    melds = np.full(n, -1, np.int64)
    for i, t in enumerate(texts):
        if isinstance(t, str) and len(t) > MAX_HAND_CHARS:
            error[i] = f"bad_hand: {len(t)} characters, more than {MAX_HAND_CHARS}"
            texts[i] = None
    plain = [i for i, t in enumerate(texts) if isinstance(t, str) and ":" not in t
             and "\n" not in t and "\r" not in t]
    if plain:
        data = "\n".join(texts[i] for i in plain).encode("utf-8", "replace") + b"\n"
        res = batch.shanten_text(data, keep_counts=True)
        if len(res) != len(plain):
            raise MjcoreError("hand column: the text parser saw a different number of lines")
        idx = np.asarray(plain)
        counts[idx] = res.counts
        for e in res.errors():
            assert e.index is not None
            row = plain[e.index]
            if e.reason in ("wrong_tile_count", "too_many_copies"):
                continue         # left to the kernels, which say the same per row
            error[row] = f"{e.reason}: {texts[row]!r}: {str(e).partition(': ')[2]}"
            counts[row] = 0
    plain_set = set(plain)
    for i, t in enumerate(texts):
        if i in plain_set:
            continue
        if not isinstance(t, str):
            error.setdefault(i, "bad_hand: no hand text")
            continue
        try:
            hand = Hand.parse(t)
        except InvalidHandError as exc:
            error[i] = f"{exc.reason}: {exc}"
            continue
        counts[i] = np.asarray(hand.counts, np.uint8)
        melds[i] = len(hand.melds)
    return counts, melds


def _parse_discards(values: list[Any], error: dict[int, str]) -> np.ndarray:
    from ..errors import InvalidHandError
    from ..tiles import parse_tile

    out = np.full(len(values), -1, np.int16)
    for i, v in enumerate(values):
        if v is None or v == "":
            continue
        if isinstance(v, str) and len(v) > MAX_HAND_CHARS:
            error.setdefault(i, f"bad_discard: {len(v)} characters, not a tile")
            continue
        try:
            out[i] = parse_tile(v)
        except InvalidHandError as exc:
            error.setdefault(i, f"bad_discard: {exc}")
    return out



# ---- arrays -> Arrow columns ---------------------------------------------------------------------

def _offsets(rows: np.ndarray, n: int) -> Any:
    """Arrow list offsets for sorted row numbers (one list entry per occurrence)."""
    import pyarrow as pa

    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(np.bincount(rows, minlength=n), out=offsets[1:])
    return pa.array(offsets)


def _list_array(offsets: Any, values: np.ndarray, value_type: Any, valid: np.ndarray) -> Any:
    """A list column from offsets and values (rows not in ``valid``: null)."""
    import pyarrow as pa

    mask = None if valid.all() else pa.array(~valid)
    return pa.ListArray.from_arrays(offsets, pa.array(values, type=value_type), mask=mask)


def _sparse_strings(values: dict[int, str], n: int) -> Any:
    """A string column of n rows, null except the rows in ``values``."""
    import pyarrow as pa

    if not values:
        return pa.nulls(n, pa.string())
    rows = np.fromiter(values, np.int64, len(values))
    data = [values[r].encode() for r in rows.tolist()]
    lengths = np.zeros(n, np.int64)
    lengths[rows] = [len(d) for d in data]
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    valid = np.zeros(n, bool)
    valid[rows] = True
    order = np.argsort(rows)
    body = b"".join(data[i] for i in order.tolist())
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(body),
                                       pa.py_buffer(np.packbits(valid, bitorder="little")))


def _masked(values: np.ndarray, valid: np.ndarray, arrow_type: Any) -> Any:
    import pyarrow as pa

    return pa.array(values, type=arrow_type, mask=~valid)




def _kinds_of(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row index, kind) of every bit set in (N,) uint64 masks, row-major."""
    bits = np.unpackbits(masks.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    rows, kinds = np.nonzero(bits[:, :34])
    return rows, kinds


class _Validity:
    """The validity bitmap of a set of rows, shared by the columns that are null elsewhere."""

    def __init__(self, valid: np.ndarray) -> None:
        import pyarrow as pa

        self.n = valid.size
        self.nulls = self.n - int(np.count_nonzero(valid))
        self.bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if self.nulls \
            else None

    def array(self, values: np.ndarray, arrow_type: Any) -> Any:
        """An Arrow array of ``values`` (one row each, or bits for bool) null outside the
        rows."""
        import pyarrow as pa

        return pa.Array.from_buffers(arrow_type, self.n,
                                     [self.bitmap, pa.py_buffer(np.ascontiguousarray(values))],
                                     null_count=self.nulls)


@dataclass
class _Analysed:
    """The analysis of a table as arrays: what the in-memory table is built from, and what
    an analysed part's files store and give back."""

    error: dict[int, str]       # row -> why it was not analysed
    made: np.ndarray            # (N,) the kind discarded or -1
    res: batch.BatchResult
    ok: np.ndarray              # rows analysed
    is13: np.ndarray            # ... with 13-3k tiles
    is14: np.ndarray            # ... with 14-3k tiles
    has_made: np.ndarray        # ... with 14-3k tiles and a discard made
    w_rows: np.ndarray          # every wait of a tenpai 13-3k row: its row, kind, copies left
    w_kinds: np.ndarray
    w_left: np.ndarray
    score_rows: np.ndarray      # the win rows scored, their status and (han, fu, points,
    score_status: list[str]     # yakuman), -1 where not won
    score_values: np.ndarray

    @property
    def n(self) -> int:
        return int(self.ok.size)


def _tile_rows(tiles: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The analysed rows with 13-3k and with 14-3k closed tiles (melds are 3 tiles each)."""
    rest = tiles.astype(np.int16) % 3
    return ok & (rest == 1), ok & (rest == 2)


def _analyse(table: Any, n_threads: int | None, problems: list[Problem] | None,
             where: str, wins: Any = None, games: Any = None) -> _Analysed:
    """The analysis of ``table``; ``wins``: its win rows with the columns scoring reads and
    ``row`` (an extract's side table), else the win rows are taken from ``table``;
    ``games``: a function giving the ``game`` column when ``table`` lacks it (for problems)."""
    h = _hands(table)
    res = analyze_hands(h.counts, h.n_melds, h.visible, h.made, forms=h.forms,
                        n_threads=n_threads)
    status = res.status
    ok = status == 0
    for r in np.flatnonzero(~ok):          # the kernel's reason unless the input had one
        if int(r) not in h.error:
            reason, text = batch.STATUS_REASONS.get(int(status[r]), ("invalid_hand", "invalid"))
            h.error[int(r)] = f"{reason}: {text}"
    if h.error:
        ok[np.fromiter(h.error, np.int64)] = False
    is13, is14 = _tile_rows(res.tiles, ok)
    if problems is not None and h.error:
        game = _column(table, "game")
        if game is None and games is not None:
            game = games()
        game = game.to_numpy(zero_copy_only=False) if game is not None else None
        for bad_row in sorted(h.error):
            reason, _, detail = h.error[bad_row].partition(": ")
            problems.append(Problem(where, int(game[bad_row]) if game is not None else -1,
                                    bad_row, reason, detail))
    # waits of the tenpai 13-3k tile rows (few): kinds and copies left
    rows13 = np.flatnonzero(is13)
    waits = res.waits[rows13]
    tenpai = np.flatnonzero(waits)
    sub, w_kinds = _kinds_of(np.ascontiguousarray(waits[tenpai]))
    w_rows = rows13[tenpai[sub]]
    w_left = 4 - np.minimum(h.counts[w_rows, w_kinds].astype(np.int16) +
                            h.visible[w_rows, w_kinds], 4)
    score_rows, score_status, score_values = _score_wins(table, h, ok, n_threads, wins)
    return _Analysed(h.error, h.made, res, ok, is13, is14, is14 & (res.made_best >= 0),
                     w_rows, w_kinds.astype(np.int8), w_left.astype(np.int8), score_rows,
                     score_status, score_values)


def _form_column(a: _Analysed, name: str) -> Any:
    """A shanten-by-form column: null on bad rows and where melds rule the form out."""
    import pyarrow as pa

    values = getattr(a.res, name)
    return _Validity(a.ok & (values != NO_FORM)).array(values, pa.int8())


def analyze_table(table: Any, *, n_threads: int | None = 1,
                  problems: list[Problem] | None = None, where: str = "table") -> Any:
    """The Arrow ``table`` with the analysis columns appended (see the module doc).

    Bad rows get ``analysis_error`` and are listed in ``problems`` (when given) with their
    row number in ``table``."""
    cols = _columns(_analyse(table, n_threads, problems, where))
    out = table
    for f in analysis_fields():
        if f.name in out.column_names:
            out = out.drop_columns([f.name])
        out = out.append_column(f, cols[f.name])
    return out


def _columns(a: _Analysed) -> dict[str, Any]:
    """The analysis columns (Arrow arrays by name) of an analysis."""
    return {**_scalar_columns(a),
            **_kind_columns(a.n, a.is13, a.is14, a.w_rows, a.w_kinds, a.w_left,
                            a.res.discard_shanten, a.res.discard_ukeire),
            **_score_columns(a.n, a.score_rows, a.score_status, a.score_values)}


def _scalar_columns(a: _Analysed) -> dict[str, Any]:
    """The analysis columns of one value per row (SCALAR_COLUMNS), on the kernel's arrays
    without copies where their layout allows, nulls from the rows' validity."""
    import pyarrow as pa

    res, made_best = a.res, a.res.made_best
    valid_ok, valid13, valid14, valid_made = (_Validity(v) for v in
                                              (a.ok, a.is13, a.is14, a.has_made))
    return {
        "tiles": _dense(res.tiles, pa.int8()),
        "analysis_error": _sparse_strings(a.error, a.n),
        "shanten": valid_ok.array(res.shanten, pa.int8()),
        **{name: _form_column(a, name) for name in FORM_COLUMNS},
        "ukeire": valid13.array(res.ukeire, pa.int16()),
        "best_discards": valid14.array(res.best_discards, pa.int64()),
        "best_shanten": valid14.array(res.best_shanten, pa.int8()),
        "best_ukeire": valid14.array(res.best_ukeire, pa.int16()),
        "made_discard": valid_made.array(a.made.astype(np.int8), pa.int8()),
        "made_shanten": valid_made.array(res.made_shanten, pa.int8()),
        "made_ukeire": valid_made.array(res.made_ukeire, pa.int16()),
        "made_best": valid_made.array(np.packbits(made_best == 1, bitorder="little"),
                                      pa.bool_()),
        "acceptance_lost": valid_made.array(res.acceptance_lost, pa.int16()),
    }


def _kind_columns(n: int, is13: np.ndarray, is14: np.ndarray, w_rows: np.ndarray,
                  w_kinds: np.ndarray, w_left: np.ndarray, d_shanten: np.ndarray,
                  d_ukeire: np.ndarray) -> dict[str, Any]:
    """The per-kind analysis columns: the waits of the 13-3k tile rows (every wait's row,
    kind and copies left) and the discards of the 14-3k tile rows ((n, 34) arrays)."""
    import pyarrow as pa

    valid14 = _Validity(is14)
    w_off = _offsets(w_rows, n)
    return {
        "waits": _list_array(w_off, w_kinds, pa.int8(), is13),
        "waits_remaining": _list_array(w_off, w_left, pa.int8(), is13),
        "discard_shanten": valid14.array(d_shanten, pa.binary(HAND_BYTES)),
        "discard_ukeire": valid14.array(d_ukeire, pa.binary(HAND_BYTES)),
    }


def _score_columns(n: int, score_rows: np.ndarray, score_status: list[str],
                   score_values: np.ndarray) -> dict[str, Any]:
    """The score columns of n rows from the scored win rows (values -1 where not won)."""
    scored = np.zeros(n, bool)
    scores = np.zeros((n, 4), np.int64)
    won = score_values[:, 0] >= 0
    scored[score_rows[won]] = True
    scores[score_rows[won]] = score_values[won]
    return {
        "score_status": _sparse_strings(dict(zip(score_rows.tolist(), score_status,
                                                 strict=True)), n),
        **{name: _masked(scores[:, j].astype(t.to_pandas_dtype()), scored, t)
           for j, (name, t) in enumerate(_score_types())},
    }


def _score_types() -> list[tuple[str, Any]]:
    import pyarrow as pa

    return [("score_han", pa.int16()), ("score_fu", pa.int16()), ("score_points", pa.int32()),
            ("score_yakuman", pa.int8())]


def _score_wins(table: Any, h: _Hands, ok: np.ndarray, n_threads: int | None,
                wins: Any = None) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The win rows of an extract scored by the batch scoring kernel: (rows, status of each,
    (M, 4) han, fu, points, yakuman, -1 where not won)."""
    found = win_inputs(table, h, ok, wins)
    if found is None:
        return np.zeros(0, np.int64), [], np.zeros((0, 4), np.int64)
    rows, inputs = found
    status, values = inputs.score(n_threads)
    return rows, status, values


def win_inputs(table: Any, h: _Hands, ok: np.ndarray, wins: Any = None
               ) -> tuple[np.ndarray, WinInputs] | None:
    """The analysed win rows of an extract and their scoring inputs (None when the table is
    not an extract); ``wins`` as for :func:`_analyse`."""
    import pyarrow as pa

    need = ("action", "melds", "tile", "seat", "dealer", "round_wind", "dora_markers",
            "ura_markers", "win_flags", "from_seat", "rules")
    if wins is not None:
        rows = wins.column("row").to_numpy()
        good = ok[rows]
        source = wins if good.all() else wins.filter(pa.array(good))
        rows = rows[good]
    else:
        if not all(c in table.column_names for c in need) or \
                ("red" not in table.column_names and "closed" not in table.column_names):
            return None
        rows = np.flatnonzero(_is_in(_column(table, "action"), WIN_ACTIONS) & ok)
        source = table.take(pa.array(rows))
    if not rows.size:
        return None
    have = set(source.column_names)
    names = [c for c in WinInputs.COLUMNS if c in have]
    return rows, WinInputs.of(source.select(names), h.counts[rows])


# ---- the files of an analysed Parquet part ------------------------------------------------------
# An analysed part of a Parquet input stores only what the analysis adds, in its input part's
# row order and without keys (SCHEMA.md): a base file of the analysis columns of one value per
# row, typed and null as documented (any Parquet reader queries them), and `kind_detail`, the
# discards of a 14-3k tile row or the waits of a 13-3k tile row packed in 26 bytes; and a side
# table of the scored win rows (`wins`, with their `row`). read_part builds the per-kind and
# score columns back from them and joins the input part's columns by position.

FORM_COLUMNS = ("shanten_standard", "shanten_chiitoitsu", "shanten_kokushi")
SCALAR_COLUMNS = ("tiles", "analysis_error", "shanten", *FORM_COLUMNS, "ukeire",
                  "best_discards", "best_shanten", "best_ukeire", "made_discard",
                  "made_shanten", "made_ukeire", "made_best", "acceptance_lost")
KIND_COLUMNS = ("waits", "waits_remaining", "discard_shanten", "discard_ukeire")
DETAIL_COLUMN = "kind_detail"          # what KIND_COLUMNS are built from
DETAIL_BYTES = _k.PACKED_BYTES         # a 14-3k tile row: pack_discards; a 13-3k tile row:
WAITS_LEFT_AT = 5                      # the waits (34-bit set), then the copies left of each
# the analysis columns each side table gives; its folder starts with `_`, so that readers of
# the folder as one dataset (pyarrow.dataset, Spark) skip it as they skip `_problems-*.json`
WINS_SIDE = "_wins"
SIDE_TABLES = {WINS_SIDE: ("score_status", "score_han", "score_fu", "score_points",
                        "score_yakuman")}
OLD_SIDE_TABLES = ("discards", "waits", "wins")   # of the layouts before .../5
SIDE_KEY = "mjcore.side_tables"      # metadata of a base file: its side tables
STAMP_KEY = "mjcore.input_stamp"     # ... and its input part when analysed: rows, bytes, mtime


def side_path(base: str, side: str, *, reading: bool = True) -> str:
    """The file of side table ``side`` that belongs to the base file ``base`` (see
    :func:`mjcore.dataset.common.side_file`; ``reading``: also the name of earlier layouts)."""
    return side_file(base, side, reading=reading)


def input_stamp(source: str | ParquetSlice, rows: int) -> str:
    """What identifies an input part's version: its rows, and its file's size and mtime
    (a redone extract writes new files)."""
    st = os.stat(source if isinstance(source, str) else source.path)
    return f"{rows},{st.st_size},{st.st_mtime_ns}"


def same_content(stamp: str, now: str) -> bool:
    """Whether an input part stamped ``stamp`` when analysed may be joined as it is ``now``:
    the same rows and bytes (a copy has a new mtime; resuming compares whole stamps)."""
    return stamp.split(",")[:2] == now.split(",")[:2]


def input_of(part: str, meta: dict[bytes, bytes]) -> str | None:
    """The input part of an analysed part, None for a part that holds its input's columns:
    found from the part's folder when both folders were moved or copied together, else where
    it was when analysed."""
    source = meta.get(INPUT_KEY.encode())
    if source is None:
        return None
    relative = meta.get(RELATIVE_KEY.encode())
    if relative is not None:
        beside = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(part)),
                                               relative.decode()))
        if os.path.exists(beside):
            return beside
    return source.decode()


def open_input(part: str, source: str) -> Any:
    """The ``pyarrow.parquet.ParquetFile`` of an analysed part's input part; an input that
    cannot be read as Parquet is an error naming both."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(source)
    except (OSError, pa.ArrowInvalid) as err:
        raise MjcoreError(f"{part}: its input part {source} cannot be read: {err}") from None


def _dense(values: np.ndarray, arrow_type: Any) -> Any:
    """An Arrow array without nulls on a numpy array's buffer (no copy when contiguous)."""
    import pyarrow as pa

    return pa.Array.from_buffers(arrow_type, len(values),
                                 [None, pa.py_buffer(np.ascontiguousarray(values))])


def base_schema() -> Any:
    """The Arrow schema of an analysed part's base file (before its metadata)."""
    import pyarrow as pa

    fields = {f.name: f for f in analysis_fields()}
    return pa.schema([fields[c] for c in SCALAR_COLUMNS] +
                     [pa.field(DETAIL_COLUMN, pa.binary(DETAIL_BYTES))])


def _split_tables(a: _Analysed) -> dict[str, Any]:
    """The base table (key "") and the side tables of an analysed part."""
    import pyarrow as pa

    res = a.res
    detail = np.zeros((a.n, DETAIL_BYTES), np.uint8)
    bad = _k.pack_discards(res.discard_shanten, res.discard_ukeire, res.best_shanten,
                           np.ascontiguousarray(a.made, np.int16), a.is14.view(np.uint8),
                           detail)
    if bad >= 0:
        raise MjcoreError(f"row {bad}: its discards do not fit the packed layout")
    rows = np.flatnonzero(a.is13)
    detail[rows, :WAITS_LEFT_AT] = res.waits[rows].astype("<u8").view(np.uint8).reshape(
        -1, 8)[:, :WAITS_LEFT_AT]
    at = np.arange(a.w_rows.size) - np.searchsorted(a.w_rows, a.w_rows)  # wait's place in row
    if at.size and at.max() >= DETAIL_BYTES - WAITS_LEFT_AT:
        raise MjcoreError("a hand with more waits than the packed layout holds")
    detail[a.w_rows, WAITS_LEFT_AT + at] = a.w_left.view(np.uint8)
    cols = _scalar_columns(a)
    cols[DETAIL_COLUMN] = _Validity(a.is13 | a.is14).array(detail, pa.binary(DETAIL_BYTES))
    won = a.score_values[:, 0] >= 0
    wins = {"row": pa.array(a.score_rows.astype(np.int32)),
            "score_status": pa.array(a.score_status, pa.string()),
            **{name: _masked(a.score_values[:, j].astype(t.to_pandas_dtype()), won, t)
               for j, (name, t) in enumerate(_score_types())}}
    return {"": pa.Table.from_arrays(list(cols.values()), schema=base_schema()),
            WINS_SIDE: pa.Table.from_arrays(list(wins.values()), schema=pa.schema(
                [pa.field(k, v.type, nullable=k not in ("row", "score_status"))
                 for k, v in wins.items()]))}


def _unpack_kinds(where: str, tiles: Any, col: Any) -> dict[str, Any]:
    """The per-kind columns of an analysed part from its ``tiles`` and ``kind_detail``."""
    n = len(col)
    detail = _fixed_bytes(col, DETAIL_BYTES)
    valid = col.is_valid().to_numpy(zero_copy_only=False)
    is13, is14 = _tile_rows(tiles.to_numpy(zero_copy_only=False), valid)
    small = np.zeros((len(_k.SMALL_ROWS), n), np.int8)     # the ranking, not used here
    wide = np.zeros((len(_k.WIDE_ROWS), n), np.int16)
    masks = np.zeros((len(_k.MASK_ROWS), n), np.uint64)
    d_shanten = np.full((n, HAND_BYTES), NOT_HELD, np.int8)
    d_ukeire = np.zeros((n, HAND_BYTES), np.uint8)
    made = np.full(n, -1, np.int16)
    bad = _k.unpack_discards(detail, 0, np.flatnonzero(is14), made, d_shanten, d_ukeire,
                             small, wide, masks)
    if bad >= 0:
        raise MjcoreError(f"{where}: row {bad}: its {DETAIL_COLUMN} does not hold packed "
                          "discards")
    rows = np.flatnonzero(is13)
    kinds = np.zeros((rows.size, 8), np.uint8)
    kinds[:, :WAITS_LEFT_AT] = detail[rows, :WAITS_LEFT_AT]
    sub, w_kinds = _kinds_of(kinds.view("<u8")[:, 0].astype(np.uint64))
    at = np.arange(sub.size) - np.searchsorted(sub, sub)
    if at.size and at.max() >= DETAIL_BYTES - WAITS_LEFT_AT:
        raise MjcoreError(f"{where}: a {DETAIL_COLUMN} with more waits than it holds")
    w_left = detail[rows[sub], WAITS_LEFT_AT + at].view(np.int8)
    return _kind_columns(n, is13, is14, rows[sub], w_kinds.astype(np.int8), w_left,
                         d_shanten, d_ukeire)


def _read_ev(where: str, path: str, n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``ev_*`` columns of an analysed part of n rows from its ``_ev`` side table (null
    on the rows that are not discard decisions), and their fields."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not os.path.exists(path):
        raise MjcoreError(f"{where}: its side table {path} is gone")
    ev = pq.read_table(path)
    rows = _small_ints(_column(ev, "row"), ev.num_rows, 0)
    if rows.size and (rows.min() < 0 or rows.max() >= n):
        raise MjcoreError(f"{where}: a row of its expected-value table outside its {n} rows")
    index = np.full(n, -1, np.int64)
    index[rows] = np.arange(rows.size)
    take = pa.array(index, mask=index < 0)
    cols = {name: ev.column(name).take(take) for name in EV_COLUMNS}
    fields = {name: pa.field(name, ev.schema.field(name).type) for name in EV_COLUMNS}
    return cols, fields


def _read_scores(where: str, path: str, n: int) -> dict[str, Any]:
    """The score columns of an analysed part of n rows from its wins table ``path``."""
    import pyarrow.parquet as pq

    if not os.path.exists(path):
        raise MjcoreError(f"{where}: its side table {path} is gone")
    wins = pq.read_table(path)
    rows = _small_ints(_column(wins, "row"), wins.num_rows, 0)
    if rows.size and (rows.min() < 0 or rows.max() >= n):
        raise MjcoreError(f"{where}: a row of its wins table outside its {n} rows")
    values = np.stack([_small_ints(_column(wins, name), wins.num_rows, -1)
                       for name, _t in _score_types()], 1).reshape(-1, 4)
    return _score_columns(n, rows, _texts(_column(wins, "score_status")), values)


_MELD_KINDS = {"chi": 0, "pon": 1, "kan": 2, "ankan": 3, "kakan": 4}
_MELD_CACHE: dict[str, int] = {}


def _encode_token(token: str) -> int:
    """A meld token of an extract (``pon:505m<2``) as the batch scoring kernel's uint16."""
    code = _MELD_CACHE.get(token)
    if code is None:
        from ..riichi.batch_scoring import encode_meld

        name, _, body = token.partition(":")
        body, _, rel = body.partition("<")
        suit = "mpsz".index(body[-1])
        digits = body[:-1]
        low = min(int(d) if d != "0" else 5 for d in digits)
        code = encode_meld(_MELD_KINDS[name], suit * 9 + low - 1, digits.count("0"),
                           int(rel) if rel else 0)
        if len(_MELD_CACHE) < 65536:
            _MELD_CACHE[token] = code
    return code


def _meld_codes(col: Any, bad: np.ndarray, none: int) -> np.ndarray:
    """(M, 4) uint16 scoring-kernel codes of a list<string> column of meld tokens, each
    distinct token encoded once; a row with an unknown token is marked in ``bad``."""
    import pyarrow as pa

    m = bad.size
    out = np.full((m, 4), none, np.uint16)
    if not pa.types.is_list(col.type) and not pa.types.is_large_list(col.type):
        bad[:] = True
        return out
    offsets = col.offsets.to_numpy()
    lengths = np.where(col.is_valid().to_numpy(zero_copy_only=False), np.diff(offsets), 0)
    if not lengths.any():
        return out
    tokens = col.values.slice(offsets[0], offsets[-1] - offsets[0]).dictionary_encode()
    codes = np.full(len(tokens.dictionary) + 1, -1, np.int64)     # -1: not a meld
    for i, token in enumerate(tokens.dictionary.to_pylist()):
        with contextlib.suppress(KeyError, ValueError, IndexError, AttributeError, TypeError):
            codes[i] = _encode_token(token)
    index = tokens.indices.fill_null(len(tokens.dictionary)).to_numpy(zero_copy_only=False)
    owner = np.repeat(np.arange(m), np.diff(offsets))
    position = np.arange(owner.size) - np.repeat(offsets[:-1] - offsets[0], np.diff(offsets))
    value = codes[index]
    live = np.repeat(lengths > 0, np.diff(offsets))
    bad[owner[live & (value < 0)]] = True
    keep = live & (position < 4) & (value >= 0)
    out[owner[keep], position[keep]] = value[keep]
    return out


def _indicator_kinds(col: Any, n: int) -> np.ndarray:
    values, offsets = _list_values(col.combine_chunks() if hasattr(col, "combine_chunks")
                                   else col)
    lengths = np.diff(offsets)
    width = int(min(max(lengths.max(initial=0), 0), 10))
    out = np.full((n, width), 255, np.uint8)
    if width:
        rows = np.repeat(np.arange(n), lengths)
        pos = np.arange(values.size) - np.repeat(offsets[:-1], lengths)
        keep = pos < width
        out[rows[keep], pos[keep]] = (values[keep].astype(np.int64) >> 2).astype(np.uint8)
    return out


def _groups(col: Any) -> list[tuple[str | None, np.ndarray]]:
    """The rows of each distinct value of a string column (plain or dictionary), in order
    of first appearance."""
    import pyarrow as pa

    if not pa.types.is_dictionary(col.type):
        col = col.dictionary_encode()
    index = col.indices.to_numpy(zero_copy_only=False) if not col.null_count else \
        col.indices.fill_null(len(col.dictionary)).to_numpy(zero_copy_only=False)
    texts = [*col.dictionary.to_pylist(), None]
    values, first = np.unique(index, return_index=True)
    merged: dict[str | None, list[np.ndarray]] = {}
    for v in values[np.argsort(first)].tolist():
        merged.setdefault(texts[v], []).append(np.flatnonzero(index == v))
    return [(text, np.sort(np.concatenate(parts)) if len(parts) > 1 else parts[0])
            for text, parts in merged.items()]


@dataclass
class WinInputs:
    """The win rows of an extract as the batch scoring kernel takes them (numpy arrays), and
    the rules of each group of rows."""

    arrays: dict[str, np.ndarray]
    groups: list[tuple[str | None, np.ndarray]]     # (rules text, row indices)
    bad: np.ndarray                                  # rows the kernel cannot take
    seats: dict[str, np.ndarray] = field(default_factory=dict)  # seat, dealer, from, pao
    # the extract's columns it reads (`closed` only without `red`)
    COLUMNS = ("tile", "seat", "win_flags", "red", "closed", "melds", "kita", "pao_seat",
               "dealer", "round_wind", "from_seat", "dora_markers", "ura_markers", "rules")

    @classmethod
    def of(cls, wins: Any, counts: np.ndarray) -> WinInputs:
        """From the win rows of an extract and their closed counts (before the ron tile)."""
        from ..riichi.batch_scoring import MELD_NONE
        from .extraction import RED_IDS, WIN_FLAG_BITS

        m = wins.num_rows

        def col(name: str, default: int = 0) -> np.ndarray:
            return _small_ints(_column(wins, name), m, default)

        tile = col("tile", -1)
        seat = col("seat")
        flags = col("win_flags")
        tsumo = (flags & WIN_FLAG_BITS["tsumo"]) != 0
        counts = counts.copy()
        bad = (tile < 0) | (tile > 135)
        ron_rows = np.flatnonzero(~tsumo & ~bad)
        counts[ron_rows, tile[ron_rows] >> 2] += 1
        if "red" in wins.column_names:
            red = col("red")
        else:
            closed, offsets = _list_values(wins.column("closed").combine_chunks())
            owner = np.repeat(np.arange(m), np.diff(offsets))
            red = np.bincount(owner[np.isin(closed, RED_IDS)], minlength=m)
        red = red + (~tsumo & np.isin(tile, RED_IDS))
        melds = _meld_codes(_column(wins, "melds"), bad, MELD_NONE)
        pao = col("pao_seat", -1) if "pao_seat" in wins.column_names else np.full(m, -1)
        seats = {"seat": seat, "dealer": col("dealer"),
                 "from": np.where(tsumo, seat, col("from_seat")), "pao": pao}
        arrays = {
            "counts": counts, "win_tile": np.where(bad, 0, tile >> 2).astype(np.uint8),
            "melds": melds, "red": np.clip(red, 0, 3).astype(np.uint8),
            "flags": flags.astype(np.uint16),
            **seat_arrays(seats, 4),
            "round_wind": (col("round_wind") % 4).astype(np.uint8),
            "dora": _indicator_kinds(wins.column("dora_markers"), m),
            "ura": _indicator_kinds(wins.column("ura_markers"), m),
        }
        if "kita" in wins.column_names:
            arrays["kita"] = np.clip(col("kita"), 0, 255).astype(np.uint8)
        return cls(arrays, _groups(_column(wins, "rules")), bad, seats)

    def score(self, n_threads: int | None) -> tuple[list[str], np.ndarray]:
        """Each row's score status (``win``, ``no_yaku``, ``invalid`` or ``bad_rules: ...``)
        and (M, 4) han, fu, points, yakuman (-1 where not won)."""
        from ..riichi.batch_scoring import score
        from ..riichi.rules import RuleSet

        m = self.bad.size
        status = np.full(m, "invalid", object)
        out = np.full((m, 4), -1, np.int64)
        for rules_text, sel in self.groups:
            try:
                rules = RuleSet.from_dict(json.loads(rules_text)) if rules_text else None
            except (MjcoreError, ValueError, TypeError) as exc:
                status[sel] = f"bad_rules: {exc}"
                continue
            arrays = {k: v[sel] for k, v in self.arrays.items()}
            players = 4 if rules is None else rules.players
            if players != 4 and self.seats:     # seats relative mod 3 (sanma.md)
                arrays.update(seat_arrays({k: v[sel] for k, v in self.seats.items()},
                                          players))
            res = score(rules=rules, n_threads=n_threads or cores(), **arrays)
            st = np.asarray(res.status)
            bad = self.bad[sel]
            status[sel] = np.where(bad | (st < 0), "invalid",
                                   np.where(st == 0, "win", "no_yaku"))
            won = (st == 0) & ~bad
            out[sel[won]] = np.stack([res.han, res.fu, res.points, res.yakuman], 1)[won]
        return status.tolist(), out


def seat_arrays(seats: dict[str, np.ndarray], players: int) -> dict[str, np.ndarray]:
    """The scoring kernel's seat wind, discarder and liable seat, relative to the winner at a
    table of ``players`` (``seats``: absolute seat, dealer, from seat and pao seat, -1 none)."""
    seat, pao = seats["seat"], seats["pao"]
    return {"seat_wind": ((seat - seats["dealer"]) % players).astype(np.uint8),
            "from_rel": ((seats["from"] - seat) % players).astype(np.uint8),
            "pao_rel": np.where(pao < 0, -1, (pao - seat) % players).astype(np.int8)}


# ---- the API on tables, DataFrames and folders --------------------------------------------------

def analyze(data: Any, *, n_threads: int | None = None) -> Any:
    """Analyse a table of hands: an Arrow table, a pandas DataFrame or a Dask DataFrame;
    returns the same kind with the analysis columns added. ``n_threads``: kernel threads
    (default: every core; on Dask, 1 per task)."""
    import pyarrow as pa

    if isinstance(data, pa.Table):
        return analyze_table(data, n_threads=n_threads)
    module = type(data).__module__
    if module.startswith("dask"):
        return _analyze_dask_frame(data)
    if module.startswith("pandas"):
        table = pa.Table.from_pandas(data, preserve_index=False)
        return analyze_table(table, n_threads=n_threads).to_pandas()
    raise MjcoreError(f"analyze takes an Arrow table or a pandas or Dask DataFrame, not "
                      f"{type(data).__name__}")


def _pandas_part(frame: Any) -> Any:
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    return analyze_table(table, n_threads=1).to_pandas()


def _analyze_dask_frame(ddf: Any) -> Any:
    import pyarrow as pa

    sample = pa.Table.from_pandas(ddf._meta, preserve_index=False)
    meta = pa.schema(list(sample.schema) + [f for f in analysis_fields()
                                             if f.name not in sample.column_names])
    return ddf.map_partitions(_pandas_part, meta=meta.empty_table().to_pandas())


@dataclass
class AnalyzeSummary:
    """What an analyze run did: parts analysed, rows, parts already done (``resumed``) and
    the problems.
    """
    parts: int = 0
    rows: int = 0
    resumed: int = 0
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True)
class ParquetSlice:
    """Row groups ``first`` to ``end`` (exclusive) of a Parquet file: a part of a large file,
    read on its own so memory is bounded by a part."""

    path: str
    first: int
    end: int
    rows: int


MAX_ROWS_PER_BYTE = 10_000
"""The most rows a Parquet footer may claim per byte of its file (a run of one repeated value
packs a few thousand rows a byte; more is a footer that lies)."""


def check_footer(path: str, meta: Any) -> None:
    """MjcoreError naming ``path`` when its footer claims more rows, or column chunks larger
    or further, than a file of its size can hold: checked before anything is allocated."""
    size = os.path.getsize(path)
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        if rg.num_rows < 0 or rg.num_rows > max(size, 1) * MAX_ROWS_PER_BYTE:
            raise MjcoreError(f"{path}: its footer claims {rg.num_rows:,} rows in row group {g} "
                              f"of a {size:,}-byte file; not read")
        for c in range(rg.num_columns):
            col = rg.column(c)
            end = (col.dictionary_page_offset or col.data_page_offset) + \
                col.total_compressed_size
            if col.total_compressed_size < 0 or end > size:
                raise MjcoreError(f"{path}: its footer puts column {col.path_in_schema!r} of "
                                  f"row group {g} past the end of the {size:,}-byte file; "
                                  "not read")
    if meta.num_rows != sum(meta.row_group(g).num_rows for g in range(meta.num_row_groups)):
        raise MjcoreError(f"{path}: its footer's {meta.num_rows:,} rows are not the sum of its "
                          "row groups'; not read")


def _slices(path: str, rows_per_part: int) -> list[tuple[str, Any]]:
    """A Parquet file as parts of whole row groups, about ``rows_per_part`` rows each (the
    file itself when it is one part)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = os.path.basename(path)
    try:
        meta = pq.read_metadata(path)
    except (OSError, pa.ArrowInvalid):
        return [(name, path)]                 # analyze_part reports it unreadable
    if meta.num_rows <= rows_per_part or meta.num_row_groups <= 1:
        return [(name, path)]
    parts: list[tuple[str, Any]] = []
    first = rows = 0
    for g in range(meta.num_row_groups):
        rows += meta.row_group(g).num_rows
        if rows >= rows_per_part or g == meta.num_row_groups - 1:
            parts.append((f"{name.rsplit('.parquet', 1)[0]}#{len(parts):05d}.parquet",
                          ParquetSlice(os.path.abspath(path), first, g + 1, rows)))
            first, rows = g + 1, 0
    return parts


def input_parts(source: str, rows_per_part: int = 1_000_000
                ) -> list[tuple[str, Any]] | Iterator[tuple[str, Any]]:
    """(name, path, slice or table) of every input part: the Parquet files of a folder or one
    Parquet file (a file of more rows in parts of whole row groups of about ``rows_per_part``
    rows, so memory is bounded by a part or by the file's largest row group), or a CSV or
    text file (one hand per line) cut into parts of ``rows_per_part`` rows, read as they are
    needed (an iterator: memory is bounded by the parts in flight)."""
    source = os.fspath(source)
    if os.path.isdir(source):
        files = part_files(source)
        if not files:
            raise MjcoreError(f"{source}: no Parquet files in the folder")
        return [part for f in files for part in _slices(f, rows_per_part)]
    if not os.path.exists(source):
        raise MjcoreError(f"{source}: no such file or folder")
    if source.endswith(".parquet"):
        return _slices(source, rows_per_part)
    tables = _csv_tables(source) if source.endswith((".csv", ".csv.gz")) else \
        _text_tables(source, rows_per_part)
    return _cut(os.path.basename(source), tables, rows_per_part)


def _cut(name: str, tables: Iterator[Any], rows_per_part: int) -> Iterator[tuple[str, Any]]:
    """Parts of exactly ``rows_per_part`` rows (the last one shorter, at least one part) from
    a stream of tables."""
    import pyarrow as pa

    held: list[Any] = []
    rows = index = 0
    for table in tables:
        held.append(table)
        rows += table.num_rows
        while rows >= rows_per_part:
            whole = pa.concat_tables(held)
            yield f"{name}#{index:05d}", whole.slice(0, rows_per_part)
            index += 1
            rest = whole.slice(rows_per_part)
            held, rows = [rest], rest.num_rows
    if rows or index == 0:
        yield f"{name}#{index:05d}", (pa.concat_tables(held) if held else
                                      pa.table({"hand": pa.array([], pa.string())}))


def _csv_tables(path: str) -> Iterator[Any]:
    """A CSV file as a stream of tables (pyarrow.csv.open_csv: one block at a time)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    try:
        reader = pcsv.open_csv(path)
        for batch in reader:
            yield pa.Table.from_batches([batch])
    except (pa.ArrowInvalid, OSError) as exc:
        raise MjcoreError(f"{path}: not a readable CSV file ({exc})") from None


def _text_tables(path: str, rows: int) -> Iterator[Any]:
    """A text file of one hand per line as a stream of ``hand`` tables of ``rows`` lines
    (a line longer than MAX_LINE_BYTES is cut there: the hand is then a bad row)."""
    import pyarrow as pa

    with open(path, "rb") as f:
        while True:
            lines = []
            for _ in range(rows):
                line = f.readline(MAX_LINE_BYTES)
                if not line:
                    break
                if len(line) == MAX_LINE_BYTES and not line.endswith(b"\n"):
                    while (more := f.readline(MAX_LINE_BYTES)) and not more.endswith(b"\n"):
                        pass                  # the rest of an over-long line is skipped
                lines.append(line.decode("utf-8", "replace").strip())
            if not lines:
                return
            yield pa.table({"hand": pa.array(lines, pa.string())})


def _out_name(name: str) -> str:
    base = name.rsplit(".parquet", 1)[0].replace("#", "-")
    return base + ".parquet"


def analyze_part(name: str, source: Any, out_dir: str, n_threads: int = 1,
                 ev: dict[str, Any] | None = None) -> dict[str, Any]:
    """Analyse one input part and write it to ``out_dir``; returns its row and problem counts.
    The unit of work of every runner (in-process and Dask). ``ev``: the options of
    ``mjcore.dataset.expected.EvOptions`` to add the ``_ev`` side table (an extract's parts
    only)."""
    import pyarrow as pa

    problems: list[Problem] = []
    on_disk = isinstance(source, (str, ParquetSlice))
    if on_disk:
        try:
            table, wins = read_input_part(source)
        except (OSError, pa.ArrowInvalid, MemoryError) as exc:    # ArrowMemoryError too
            problems.append(Problem(name, -1, -1, "unreadable",
                                    str(exc) or type(exc).__name__))
            table = None
        except MjcoreError as exc:
            problems.append(Problem(name, -1, -1, "bad_table", str(exc)))
            table = None
    else:
        table, wins = source, None
    out_name = _out_name(name)
    out_path = os.path.join(out_dir, out_name)
    if table is not None:
        try:
            if on_disk:
                # the input's columns stay in the input part (read_part joins them back)
                analysed = _analyse(table, n_threads, problems, name, wins,
                                    lambda: _read_column(source, "game"))
                tables = _split_tables(analysed)
                if ev is not None:
                    tables[EV_SIDE] = _ev_side(source, ev, n_threads)
                write_split_tables(tables, source, table.num_rows, out_path)
            elif ev is not None:
                raise MjcoreError("--ev needs an extract (a folder of Parquet parts of "
                                  "`mjcore extract`)")
            else:
                result = analyze_table(table, n_threads=n_threads, problems=problems,
                                       where=name)
                write_table_atomic(result, out_path, **write_options(result.schema))
        except MjcoreError as exc:
            problems.append(Problem(name, -1, -1, "bad_table", str(exc)))
    atomic_write_json(os.path.join(out_dir, _problems_file(out_name)),
                      [p.as_dict() for p in problems])
    return {"name": name, "rows": 0 if table is None else table.num_rows,
            "problems": [p.as_dict() for p in problems]}


def _ev_side(source: str | ParquetSlice, ev: dict[str, Any], n_threads: int) -> Any:
    """The ``_ev`` side table of an extract part (``mjcore.dataset.expected``)."""
    import pyarrow.parquet as pq

    from .expected import INPUT_COLUMNS as EV_INPUT
    from .expected import EvOptions, ev_table

    path = source if isinstance(source, str) else source.path
    with pq.ParquetFile(path, memory_map=True) as f:
        names = f.schema_arrow.names
        columns = [c for c in EV_INPUT if c in names]
        if isinstance(source, ParquetSlice):
            table = f.read_row_groups(range(source.first, source.end), columns=columns,
                                      use_threads=False)
        else:
            table = f.read(columns=columns, use_threads=False)
    return ev_table(table, n_threads, EvOptions(**ev))


def write_split_tables(tables: dict[str, Any], source: str | ParquetSlice, rows: int,
                       path: str) -> None:
    """Write an analysed part's tables (``_split_tables``) to ``path`` and its side folders;
    the base file last, under a temporary name: when it exists the part is complete."""
    source_path = os.path.abspath(source if isinstance(source, str) else source.path)
    sides = [side for side in (*SIDE_TABLES, EV_SIDE) if side in tables]
    meta = {INPUT_KEY: source_path,
            RELATIVE_KEY: os.path.relpath(source_path, os.path.dirname(os.path.abspath(path))),
            SIDE_KEY: ",".join(sides), STAMP_KEY: input_stamp(source, rows)}
    if isinstance(source, ParquetSlice):
        meta[ROW_GROUPS_KEY] = f"{source.first},{source.end}"
    for side in sides:                 # rewritten whole when the part is redone
        real_folder(os.path.join(os.path.dirname(path), side))
        write_table_atomic(tables[side], side_path(path, side, reading=False),
                           **write_options(tables[side].schema))
        drop_old_side_file(path, side)
    base = tables[""].replace_schema_metadata(meta)
    write_table_atomic(base, path, **write_options(base.schema))


def _read_column(source: Any, column: str) -> Any:
    """One column of an input part (a Parquet file or a slice of one), None when missing."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = source if isinstance(source, str) else source.path
    try:
        with pq.ParquetFile(path, memory_map=True) as f:
            if column not in f.schema_arrow.names:
                return None
            if isinstance(source, ParquetSlice):
                return f.read_row_groups(range(source.first, source.end), columns=[column],
                                         use_threads=False).column(0)
            return f.read(columns=[column], use_threads=False).column(0)
    except (OSError, pa.ArrowInvalid):
        return None


def no_hand_column(names: list[str]) -> MjcoreError:
    """The error for a table without a column of hands; names at most 20 of its columns."""
    shown = ", ".join(names[:20]) + (f", ... ({len(names)} columns)" if len(names) > 20 else "")
    return MjcoreError(f"a table of hands needs a 'closed', 'counts' or 'hand' column "
                       f"(has: {shown or 'none'})")


def read_input_part(source: str | ParquetSlice) -> tuple[Any, Any]:
    """The columns of a Parquet part (a file or a slice of one) that the analysis reads
    (``closed`` only when ``counts`` or ``red`` is missing), strings of a few distinct values
    as dictionaries; and the part's win rows from the extract's side table (None when it has
    none, or when they do not match the part: the part then has the win columns too)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = source if isinstance(source, str) else source.path
    meta = pq.read_metadata(path, memory_map=True)
    check_footer(path, meta)
    arrow_schema = meta.schema.to_arrow_schema()
    names = arrow_schema.names
    wanted = [c for c in INPUT_COLUMNS if c in names]
    if "closed" in names and ("counts" not in names or "red" not in names):
        wanted.append("closed")
    if not {"closed", "counts", "hand"} & set(names):
        raise no_hand_column(names)
    if "counts" in wanted or "closed" in wanted:       # an extract's `hand` is a number
        wanted = [c for c in wanted if c != "hand"]
    if "action" in wanted and "tile" in wanted:
        wanted = [c for c in wanted if c != "discard"]
    side = side_file(path, WINS_TABLE, reading=True)
    wins = None
    with pq.ParquetFile(path, memory_map=True, metadata=meta,
                        read_dictionary=[c for c in DICTIONARY_COLUMNS if c in names]) as f:
        def read(columns: list[str]) -> Any:
            if isinstance(source, ParquetSlice):
                return f.read_row_groups(range(source.first, source.end), columns=columns,
                                         use_threads=False)
            return f.read(columns=columns, use_threads=False)

        later = [c for c in WIN_ONLY_COLUMNS if c in wanted]
        if not isinstance(source, str) or "action" not in wanted or not os.path.exists(side):
            return read(wanted), None
        table = read([c for c in wanted if c not in later])
        try:
            with pq.ParquetFile(side, memory_map=True, read_dictionary=["rules"]) as w:
                wins = w.read(columns=["row", *later, "tile"], use_threads=False)
        except (OSError, pa.ArrowInvalid, KeyError):
            wins = None
        if wins is not None and not _wins_of(wins, table, arrow_schema):
            wins = None                       # not this part's: read the columns here
        # classical rows take their winning forms from `rules`: read for every row then
        classical = "format" in table.column_names and \
            bool(_is_in(_column(table, "format"), ("mjs",)).any())
        if wins is None or (classical and "rules" in later):
            more = read(later if wins is None else ["rules"])
            for c in more.column_names:
                table = table.append_column(more.schema.field(c), more.column(c))
    return table, wins


def _wins_of(wins: Any, table: Any, schema: Any) -> bool:
    """Whether ``wins`` (a side table read) holds the win rows of the part ``table`` was
    read from (of ``schema``), with the part's column types."""
    import pyarrow as pa

    names = wins.column_names
    have = set(names)
    needed = {"row", "tile", *(c for c in WIN_ONLY_COLUMNS if schema.get_field_index(c) >= 0)}
    if len(have) != len(names) or not needed <= have or \
            not pa.types.is_integer(wins.schema.field("row").type):
        return False
    for c in needed - {"row", "rules"}:
        if wins.schema.field(c).type != schema.field(c).type:
            return False
    rows = np.flatnonzero(_is_in(_column(table, "action"), WIN_ACTIONS))
    if not np.array_equal(wins.column("row").to_numpy(), rows):
        return False
    tile, win_tile = _column(table, "tile"), _column(wins, "tile")
    if tile.null_count or win_tile.null_count:
        return bool(win_tile.equals(tile.take(pa.array(rows))))
    return bool(np.array_equal(win_tile.to_numpy(), tile.to_numpy()[rows]))


def _part_rows(source: Any) -> int:
    """Rows of an input part (a Parquet path: from its footer), for the progress bar."""
    if isinstance(source, ParquetSlice):
        return source.rows
    if not isinstance(source, str):
        return int(source.num_rows)
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return int(pq.read_metadata(source).num_rows)
    except (OSError, pa.ArrowInvalid):
        return 0


def _analysed_from(path: str, source: Any) -> bool:
    """Whether the analysed part ``path`` exists and was analysed from ``source`` as it is
    now (a Parquet part: its stamp; a part of a CSV or text file: the manifest's stamp)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not os.path.exists(path):
        return False
    if not isinstance(source, (str, ParquetSlice)):
        return True
    try:
        stamp = (pq.read_schema(path).metadata or {}).get(STAMP_KEY.encode())
        return stamp is not None and stamp.decode() == input_stamp(source, _part_rows(source))
    except (OSError, pa.ArrowInvalid):
        return False


def _problems_file(out_name: str) -> str:
    return "_problems-" + out_name.rsplit(".parquet", 1)[0] + ".json"


def analyze_dir(source: str, out: str, *, workers: int | None = None,
                dask: str | Client | None = None,
                show_progress: bool = False, resume: bool = True,
                rows_per_part: int = 1_000_000, ev: Any = None) -> AnalyzeSummary:
    """Analyse a folder of Parquet parts (or a Parquet, CSV or text file) into ``out``, one
    output part per input part. In-process: ``workers`` parts at a time (default one per
    core), each on one kernel thread (more when there are fewer parts than workers).
    ``dask``: a scheduler address, a ``Client``, or ``"local"`` for a local cluster of one
    single-threaded worker process per core. ``ev``: True or an ``EvOptions`` to add the
    expected values of every discard decision (``mjcore.dataset.expected``)."""
    from .expected import EvOptions

    ev_options = None if not ev else (ev if isinstance(ev, EvOptions) else EvOptions())
    ev_dict = None if ev_options is None else ev_options.as_dict()
    parts = input_parts(source, rows_per_part)
    plan = PartitionPlan(out, (*SIDE_TABLES, EV_SIDE, *OLD_SIDE_TABLES))
    manifest = {"input": os.path.abspath(source), "rows_per_part": rows_per_part,
                "schema": "mjcore.dataset.analyze/5"}
    if ev_dict is not None:
        manifest["ev"] = ev_dict
    if not os.path.isdir(source):            # a file's parts are redone when it changes
        manifest["input_stamp"] = input_stamp(source, 0)
    plan.start("_analyze.json", manifest, resume, what="an analysis",
               other="the analysis of another input", redo_on=("schema", "input_stamp", "ev"))
    if isinstance(parts, list):              # parts of an input part no longer there
        out_names: dict[str, str] = {}
        for name, _src in parts:
            other = out_names.setdefault(_out_name(name), name)
            if other != name:
                raise MjcoreError(f"{source}: the input parts {other!r} and {name!r} would both "
                                  f"be written as {_out_name(name)!r}; rename one of them")
        plan.remove_other_parts(set(out_names))
    summary = AnalyzeSummary()

    def not_done() -> Iterator[tuple[str, Any]]:
        for name, src in parts:
            out_name = _out_name(name)
            if resume and os.path.exists(os.path.join(out, _problems_file(out_name))) and \
                    _analysed_from(os.path.join(out, out_name), src):
                summary.resumed += 1
                continue
            yield name, src

    streamed = not isinstance(parts, list)     # CSV or text: parts read as they are needed
    todo: Any = not_done() if streamed else list(not_done())
    total = None if streamed or not show_progress else \
        sum(_part_rows(src) for _name, src in todo)
    count = "" if streamed else f"/{len(todo)}"
    bar = progress(show_progress, desc="analyze", unit="row", unit_scale=True, total=total)
    rows = 0

    def done(res: dict[str, Any]) -> None:
        nonlocal rows
        rows += res["rows"]
        summary.parts += 1
        plan.wrote(_out_name(res["name"]))
        bar.update(res["rows"])
        bar.set_postfix(parts=f"{summary.parts}{count}", refresh=False)

    if dask:
        _run_dask(dask, todo, out, done, ev_dict)
    else:
        import concurrent.futures as cf

        n = cores() if workers is None or workers <= 0 else workers
        # fewer parts than workers: the kernels of each part get the spare threads
        threads = 1 if streamed else max(1, n // max(1, min(n, len(todo))))
        with cf.ThreadPoolExecutor(n) as pool:
            pending: set[Any] = set()
            for name, src in todo:            # at most two parts per worker in flight
                pending.add(pool.submit(analyze_part, name, src, out, threads, ev_dict))
                if len(pending) >= 2 * n:
                    finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                    for future in finished:
                        done(future.result())
            for future in cf.as_completed(pending):
                done(future.result())
    bar.close()
    summary.rows = rows
    summary.problems = read_problems(out)
    return summary


def dask_client(address: str) -> Any:
    """A Dask client: ``"local"`` starts a local cluster of one single-threaded worker
    process per core; anything else is a scheduler address."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise MjcoreError("Dask is not installed: pip install 'mjcore[dask]'") from None
    if address == "local":
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=cores(), threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster)  # type: ignore[no-untyped-call]
    try:
        return Client(address, timeout=DASK_CONNECT_TIMEOUT)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as exc:
        raise MjcoreError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def _run_dask(address: Any, todo: Iterable[tuple[str, Any]], out: str, done: Any,
              ev: dict[str, Any] | None = None) -> None:
    from dask.distributed import as_completed

    client = address if not isinstance(address, str) else dask_client(address)
    try:
        # at most two parts per worker thread in flight (a streamed input stays bounded)
        limit = 2 * max(1, sum(client.nthreads().values()))
        running = as_completed()  # type: ignore[no-untyped-call]
        in_flight = 0
        for name, src in todo:
            running.add(client.submit(  # type: ignore[no-untyped-call]
                analyze_part, name, src, os.path.abspath(out), 1, ev, pure=False))
            in_flight += 1
            if in_flight >= limit:
                done(next(running).result())
                in_flight -= 1
        for f in running:
            done(f.result())
    finally:
        if isinstance(address, str):
            cluster = client.cluster
            client.close()
            if cluster is not None:
                cluster.close()


def table_columns(directory: str) -> list[str]:
    """The columns ``read_table(directory)`` returns (those of its first part and input)."""
    import pyarrow.parquet as pq

    files = part_files(directory)
    if not files:
        raise MjcoreError(f"{directory}: no Parquet parts")
    schema = pq.read_schema(files[0])
    source = input_of(files[0], schema.metadata or {})
    names = _part_columns(schema)
    if source is None or not os.path.exists(source):
        return names
    with open_input(files[0], source) as in_file:
        in_names = list(in_file.schema_arrow.names)
    return in_names + [n for n in names if n not in in_names]


def _part_columns(schema: Any) -> list[str]:
    """The columns of an analysed part: its base file's, or the analysis columns its files
    store."""
    sides = (schema.metadata or {}).get(SIDE_KEY.encode())
    if sides is None:
        return list(schema.names)
    return list(ANALYSIS_COLUMNS) + (list(EV_COLUMNS) if EV_SIDE in sides.decode().split(",")
                                     else [])


def read_table(directory: str, columns: list[str] | None = None, *,
               with_input: bool = True) -> Any:
    """A folder of Parquet parts as one Arrow table, parts in name order. For an analysed
    folder, the columns its parts leave in their input parts (the hand-state lists of an
    extract) are read from there, row by row, unless ``with_input`` is False."""
    import pyarrow as pa

    return pa.concat_tables(list(iter_parts(directory, columns, with_input=with_input)))


def read_dask(directory: str, columns: list[str] | None = None, *,
               with_input: bool = True) -> Any:
    """A folder of Parquet parts as a Dask DataFrame, one partition per part, joined with
    the input parts as :func:`read_table` does."""
    import dask.dataframe as dd
    from dask.delayed import delayed

    files = part_files(directory)
    if not files:
        raise MjcoreError(f"{directory}: no Parquet parts")
    meta = read_part(files[0], columns, with_input=with_input).slice(0, 0).to_pandas()
    parts = [delayed(_part_frame)(f, columns, with_input) for f in files]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def _part_frame(path: str, columns: list[str] | None, with_input: bool) -> Any:
    return read_part(path, columns, with_input=with_input).to_pandas()


def iter_parts(directory: str, columns: list[str] | None = None, *,
               with_input: bool = True) -> Any:
    """The parts of a folder one by one, as :func:`read_table` joins them."""
    files = part_files(directory)
    if not files:
        raise MjcoreError(f"{directory}: no Parquet parts")
    for f in files:
        yield read_part(f, columns, with_input=with_input)


def read_part(f: str, columns: list[str] | None = None, *, with_input: bool = True) -> Any:
    """One part of a folder; an analysed part's columns built back from its files and joined
    with its input part (see read_table)."""
    import pyarrow.parquet as pq

    schema = pq.read_schema(f)
    meta = schema.metadata or {}
    source_path = input_of(f, meta)
    names = _part_columns(schema)
    if not with_input or source_path is None:
        return _read_analysed(f, schema, columns if columns is not None else names)
    if not os.path.exists(source_path):
        raise MjcoreError(f"{f}: its input part {source_path} is gone")
    groups = meta.get(ROW_GROUPS_KEY.encode())
    with open_input(f, source_path) as in_file:
        in_names = list(in_file.schema_arrow.names)
        wanted = columns if columns is not None else in_names + [
            n for n in names if n not in in_names]
        mine = [c for c in wanted if c in names]
        theirs = [c for c in wanted if c not in names and c in in_names]
        if groups is None:
            first, end = 0, in_file.metadata.num_row_groups
        else:                                 # a slice of a large input file
            first, end = (int(x) for x in groups.decode().split(","))
        rows = sum(in_file.metadata.row_group(g).num_rows for g in range(first, end))
        stamp = meta.get(STAMP_KEY.encode())
        if stamp is not None and not same_content(stamp.decode(), input_stamp(source_path, rows)):
            raise MjcoreError(f"{f}: its input part {source_path} changed since it was "
                              "analysed; analyse the folder again")
        extra = in_file.read_row_groups(range(first, end), columns=theirs) if theirs else None
    part = _read_analysed(f, schema, mine)
    if part.num_rows != rows:
        raise MjcoreError(f"{f}: {part.num_rows} rows, its input part {source_path} has {rows}")
    if extra is not None:
        for c in theirs:
            part = part.append_column(extra.schema.field(c), extra.column(c))
    order = [c for c in wanted if c in part.column_names]
    return part.select(order).replace_schema_metadata(None)


def _read_analysed(f: str, schema: Any, columns: list[str]) -> Any:
    """The ``columns`` of an analysed part's own files (base file and side tables), in the
    base file's rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if (schema.metadata or {}).get(SIDE_KEY.encode()) is None:
        return pq.read_table(f, columns=[c for c in columns if c in schema.names])
    want = base_schema()
    for name in want.names:
        index = schema.get_field_index(name)
        if index < 0 or schema.field(index).type != want.field(name).type:
            raise MjcoreError(f"{f}: not an analysed part (no {name} column of "
                              f"{want.field(name).type})")
    kinds = [c for c in columns if c in KIND_COLUMNS]
    read = [c for c in SCALAR_COLUMNS if c in columns or c == "tiles"] + \
        ([DETAIL_COLUMN] if kinds else [])
    base = pq.read_table(f, columns=read)
    cols = {c: base.column(c) for c in read}
    if kinds:
        cols.update(_unpack_kinds(f, _column(base, "tiles"), _column(base, DETAIL_COLUMN)))
    if set(SIDE_TABLES[WINS_SIDE]) & set(columns):
        cols.update(_read_scores(f, side_path(f, WINS_SIDE), base.num_rows))
    fields = {fl.name: fl for fl in analysis_fields()}
    if set(EV_COLUMNS) & set(columns):
        ev_cols, ev_fields = _read_ev(f, side_path(f, EV_SIDE), base.num_rows)
        cols.update(ev_cols)
        fields.update(ev_fields)
    wanted = [c for c in columns if c in fields]
    return pa.Table.from_arrays([cols[c] for c in wanted],
                                schema=pa.schema([fields[c] for c in wanted]))


__all__ = ["ANALYSIS_COLUMNS", "DETAIL_COLUMN", "KIND_COLUMNS", "SCALAR_COLUMNS", "SIDE_TABLES",
           "WINS_SIDE", "AnalyzeSummary", "ParquetSlice", "WinInputs", "analysis_fields",
           "analyze", "analyze_dir", "analyze_part", "analyze_table", "base_schema",
           "dask_client", "input_stamp", "iter_parts", "per_kind", "per_kind_bytes",
           "read_dask", "read_input_part", "read_part", "read_table", "side_path",
           "table_columns", "win_inputs", "write_options", "write_split_tables"]

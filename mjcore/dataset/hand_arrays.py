"""An input table's hands as the kernels' arrays: closed counts, melds, visible tiles and the
discard made per row, from an extract's columns (``counts``, ``visible``: 34 bytes per row) or a
user's (``hand`` text, ``counts``, ``closed`` 136-ids, ``discard``); the rows that cannot be
analysed and why; three-player and classical rows. And the column readers the other steps share
(a ``binary(34)`` column as numpy, string and integer columns, rows by value)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import batch
from .._core.shanten import RIICHI
from ..analysis import winning_forms
from ..errors import MjcoreError

MAX_HAND_CHARS = 256           # a hand cell's longest text (a hand with four kans is ~60)

HAND_BYTES = 34                # a binary(34) hand column: one byte per kind

WIN_ACTIONS = ("tsumo", "ron")
DISCARD_ACTIONS = ("discard", "riichi", "original_call")
SANMA_ABSENT = slice(1, 8)     # kinds 2m-8m: not in a three-player (sanma) wall


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
    return fixed_bytes(col, width)


def fixed_bytes(col: Any, width: int) -> np.ndarray:
    """An (N, width) uint8 view of a ``binary(width)`` array's values (null rows: whatever
    the buffer holds there)."""
    data = col.buffers()[1]
    if data is None or len(col) == 0:
        return np.zeros((len(col), width), np.uint8)
    return np.frombuffer(data, np.uint8, len(col) * width, col.offset * width).reshape(-1, width)


@dataclass
class HandArrays:
    counts: np.ndarray           # (N, 34) uint8 closed counts
    n_melds: np.ndarray          # (N,) uint8
    visible: np.ndarray          # (N, 34) uint8
    made: np.ndarray             # (N,) int16 discarded kind or -1
    error: dict[int, str]        # row -> why it cannot be analysed
    forms: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))   # per row


def table_column(table: Any, name: str) -> Any:
    """A column as one array (no copy when it has one chunk), or None when missing."""
    index = table.schema.get_field_index(name)
    if index < 0:
        return None
    col = table.column(index)
    return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()


def list_values(col: Any) -> tuple[np.ndarray, np.ndarray]:
    """(flat values, offsets) of a list column; null lists count as empty."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if col.null_count:
        col = pc.fill_null(col, pa.scalar([], col.type))
    offsets = col.offsets.to_numpy()
    values = col.values.to_numpy(zero_copy_only=False)[offsets[0]:offsets[-1]]
    return values, offsets - offsets[0]


def is_in(col: Any, values: tuple[str, ...]) -> np.ndarray:
    """A bool array: the string column's value is one of ``values`` (null: False)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(col.type):          # decided once per distinct value
        hit = np.fromiter((v in values for v in col.dictionary.to_pylist()), bool,
                          len(col.dictionary)) if len(col.dictionary) <= 64 else \
            is_in(col.dictionary, values)
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


def text_values(col: Any) -> list[Any]:
    """A string column (plain or dictionary) as Python values."""
    import pyarrow as pa

    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    return list(col.to_pylist())


def small_ints(col: Any, n: int, default: int) -> np.ndarray:
    if col is None:
        return np.full(n, default, np.int64)
    import pyarrow.compute as pc

    if col.null_count:
        col = pc.fill_null(col, default)
    out: np.ndarray = col.to_numpy(zero_copy_only=False).astype(np.int64)
    return out


def _narrow_ints(col: Any, n: int, default: int) -> np.ndarray:
    """An integer column as numpy without a copy when it is signed and at most 16 bits
    wide with no nulls (else as :func:`small_ints`, int64)."""
    import pyarrow as pa

    if col is not None and not col.null_count and pa.types.is_signed_integer(col.type) and \
            col.type.bit_width <= 16:
        out: np.ndarray = col.to_numpy(zero_copy_only=False)
        return out
    return small_ints(col, n, default)


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


def counts_column(col: Any, n: int, what: str) -> np.ndarray:
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


def read_hands(table: Any) -> HandArrays:
    n = table.num_rows
    _check_column_types(table)
    error: dict[int, str] = {}
    melds = _narrow_ints(table_column(table, "n_melds"), n, 0)
    if "counts" in table.column_names:
        counts = counts_column(table_column(table, "counts"), n, "counts")
        if counts.dtype != np.uint8:       # 34 integers; 34 bytes go to the kernel as they are
            for r in np.flatnonzero((counts < 0).any(axis=1) | (counts > 4).any(axis=1)):
                error[int(r)] = "too_many_copies: counts must be 0..4"
            counts = np.clip(counts, 0, 4).astype(np.uint8)
    elif "closed" in table.column_names:
        values, offsets = list_values(table_column(table, "closed"))
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
        counts, parsed_melds = _parse_hands(text_values(table_column(table, "hand")), error)
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
        seen = counts_column(table_column(table, "visible"), n, "visible")
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
        tile = _narrow_ints(table_column(table, "tile"), n, -1)
        is_discard = is_in(table_column(table, "action"), DISCARD_ACTIONS) & (tile >= 0) & \
            (tile < 136)
        made = np.where(is_discard, tile >> 2, np.int16(-1)).astype(np.int16, copy=False)
    elif "discard" in table.column_names:
        made = _parse_discards(text_values(table_column(table, "discard")), error)
    forms = np.full(n, RIICHI, np.uint8)
    rules = table_column(table, "rules")
    if rules is not None:
        for text, rows in rows_by_value(rules):
            found = _rules_of_row(text)
            if found is not None:
                forms[rows] = winning_forms(found)
    return HandArrays(np.ascontiguousarray(counts), melds.astype(np.uint8),
                      np.ascontiguousarray(visible), made, error, forms)


def three_player_rows(table: Any) -> np.ndarray:
    """(N,) bool: the rows of a three-player game, by the ``players`` column, else by the
    ``players`` option of ``rules`` (JSON of the differences from the ``tenhou`` preset)."""
    n = table.num_rows
    col = table_column(table, "players")
    if col is not None:
        three: np.ndarray = small_ints(col, n, 4) == 3
        return three
    out = np.zeros(n, bool)
    rules = table_column(table, "rules")
    if rules is not None:
        for text, rows in rows_by_value(rules):
            out[rows] = _players_of(text) == 3
    return out


def rules_options(rules_text: str | None) -> dict[str, Any]:
    """The options of a row's rules text (a JSON object); {} when it is empty or unreadable
    (not JSON, not an object, nested too deeply)."""
    if not rules_text:
        return {}
    try:
        found = json.loads(rules_text)
    except (ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def _players_of(rules_text: str | None) -> int:
    """The ``players`` option of a row's rules text (4 when absent or unreadable)."""
    value = rules_options(rules_text).get("players", 4)
    return value if value in (3, 4) else 4


def _rules_of_row(rules_text: str | None) -> Any:
    """The rules value of a row whose rules text names its game (``"game"``, with that game's
    ``row_rules`` in the registry), as far as its winning forms go; None for the default
    game's rows (riichi, whose rules text names no game)."""
    from ..games import GAMES

    options = rules_options(rules_text)
    game = options.get("game")
    found = GAMES.get(game) if isinstance(game, str) else None
    if found is None or not found.offers("row_rules"):
        return None
    return found.entry("row_rules")(options)


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


def rows_by_value(col: Any) -> list[tuple[str | None, np.ndarray]]:
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


def no_hand_column(names: list[str]) -> MjcoreError:
    """The error for a table without a column of hands; names at most 20 of its columns."""
    shown = ", ".join(names[:20]) + (f", ... ({len(names)} columns)" if len(names) > 20 else "")
    return MjcoreError(f"a table of hands needs a 'closed', 'counts' or 'hand' column "
                       f"(has: {shown or 'none'})")


__all__ = ["per_kind", "per_kind_bytes"]

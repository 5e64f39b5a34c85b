"""The analysis columns of a table (SCHEMA.md): their fields, the analysis of a table as
arrays (:func:`analysis_of`: the compiled pass over its hands and the scores of its win rows)
and the Arrow columns built from it without copies where the kernel's layout allows
(:func:`analyze_table`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import batch
from .common import Problem
from .hand_arrays import HAND_BYTES, read_hands, table_column
from .hands import analyze_hands
from .win_scores import score_wins

NO_FORM = 99


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
# the analysis columns of one value per row, and those of one value per kind (lists, bytes)
FORM_COLUMNS = ("shanten_standard", "shanten_chiitoitsu", "shanten_kokushi")
SCALAR_COLUMNS = ("tiles", "analysis_error", "shanten", *FORM_COLUMNS, "ukeire",
                  "best_discards", "best_shanten", "best_ukeire", "made_discard",
                  "made_shanten", "made_ukeire", "made_best", "acceptance_lost")
KIND_COLUMNS = ("waits", "waits_remaining", "discard_shanten", "discard_ukeire")


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


def dense_array(values: np.ndarray, arrow_type: Any) -> Any:
    """An Arrow array without nulls on a numpy array's buffer (no copy when contiguous)."""
    import pyarrow as pa

    return pa.Array.from_buffers(arrow_type, len(values),
                                 [None, pa.py_buffer(np.ascontiguousarray(values))])


def masked_array(values: np.ndarray, valid: np.ndarray, arrow_type: Any) -> Any:
    import pyarrow as pa

    return pa.array(values, type=arrow_type, mask=~valid)


def kinds_of(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row index, kind) of every bit set in (N,) uint64 masks, row-major."""
    bits = np.unpackbits(masks.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    rows, kinds = np.nonzero(bits[:, :34])
    return rows, kinds


class Validity:
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
class Analysed:
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


def tile_rows(tiles: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The analysed rows with 13-3k and with 14-3k closed tiles (melds are 3 tiles each)."""
    rest = tiles.astype(np.int16) % 3
    return ok & (rest == 1), ok & (rest == 2)


def analysis_of(table: Any, n_threads: int | None, problems: list[Problem] | None,
                where: str, wins: Any = None, games: Any = None) -> Analysed:
    """The analysis of ``table``; ``wins``: its win rows with the columns scoring reads and
    ``row`` (an extract's side table), else the win rows are taken from ``table``;
    ``games``: a function giving the ``game`` column when ``table`` lacks it (for problems)."""
    h = read_hands(table)
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
    is13, is14 = tile_rows(res.tiles, ok)
    if problems is not None and h.error:
        game = table_column(table, "game")
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
    sub, w_kinds = kinds_of(np.ascontiguousarray(waits[tenpai]))
    w_rows = rows13[tenpai[sub]]
    w_left = 4 - np.minimum(h.counts[w_rows, w_kinds].astype(np.int16) +
                            h.visible[w_rows, w_kinds], 4)
    score_rows, score_status, score_values = score_wins(table, h, ok, n_threads, wins)
    return Analysed(h.error, h.made, res, ok, is13, is14, is14 & (res.made_best >= 0),
                    w_rows, w_kinds.astype(np.int8), w_left.astype(np.int8), score_rows,
                    score_status, score_values)


def _form_column(a: Analysed, name: str) -> Any:
    """A shanten-by-form column: null on bad rows and where melds rule the form out."""
    import pyarrow as pa

    values = getattr(a.res, name)
    return Validity(a.ok & (values != NO_FORM)).array(values, pa.int8())


def analyze_table(table: Any, *, n_threads: int | None = 1,
                  problems: list[Problem] | None = None, where: str = "table") -> Any:
    """The Arrow ``table`` with the analysis columns appended (see the module doc).

    Bad rows get ``analysis_error`` and are listed in ``problems`` (when given) with their
    row number in ``table``."""
    cols = columns_of(analysis_of(table, n_threads, problems, where))
    out = table
    for f in analysis_fields():
        if f.name in out.column_names:
            out = out.drop_columns([f.name])
        out = out.append_column(f, cols[f.name])
    return out


def columns_of(a: Analysed) -> dict[str, Any]:
    """The analysis columns (Arrow arrays by name) of an analysis."""
    return {**scalar_columns(a),
            **kind_columns(a.n, a.is13, a.is14, a.w_rows, a.w_kinds, a.w_left,
                           a.res.discard_shanten, a.res.discard_ukeire),
            **score_columns(a.n, a.score_rows, a.score_status, a.score_values)}


def scalar_columns(a: Analysed) -> dict[str, Any]:
    """The analysis columns of one value per row (SCALAR_COLUMNS), on the kernel's arrays
    without copies where their layout allows, nulls from the rows' validity."""
    import pyarrow as pa

    res, made_best = a.res, a.res.made_best
    valid_ok, valid13, valid14, valid_made = (Validity(v) for v in
                                              (a.ok, a.is13, a.is14, a.has_made))
    return {
        "tiles": dense_array(res.tiles, pa.int8()),
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


def kind_columns(n: int, is13: np.ndarray, is14: np.ndarray, w_rows: np.ndarray,
                 w_kinds: np.ndarray, w_left: np.ndarray, d_shanten: np.ndarray,
                 d_ukeire: np.ndarray) -> dict[str, Any]:
    """The per-kind analysis columns: the waits of the 13-3k tile rows (every wait's row,
    kind and copies left) and the discards of the 14-3k tile rows ((n, 34) arrays)."""
    import pyarrow as pa

    valid14 = Validity(is14)
    w_off = _offsets(w_rows, n)
    return {
        "waits": _list_array(w_off, w_kinds, pa.int8(), is13),
        "waits_remaining": _list_array(w_off, w_left, pa.int8(), is13),
        "discard_shanten": valid14.array(d_shanten, pa.binary(HAND_BYTES)),
        "discard_ukeire": valid14.array(d_ukeire, pa.binary(HAND_BYTES)),
    }


def score_columns(n: int, score_rows: np.ndarray, score_status: list[str],
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
        **{name: masked_array(scores[:, j].astype(t.to_pandas_dtype()), scored, t)
           for j, (name, t) in enumerate(score_types())},
    }


def score_types() -> list[tuple[str, Any]]:
    import pyarrow as pa

    return [("score_han", pa.int16()), ("score_fu", pa.int16()), ("score_points", pa.int32()),
            ("score_yakuman", pa.int8())]


__all__ = ["ANALYSIS_COLUMNS", "KIND_COLUMNS", "SCALAR_COLUMNS", "analysis_fields", "analyze_table"]

"""The files of an analysed Parquet part, written and read back.

An analysed part of a Parquet input stores only what the analysis adds, in its input part's
row order and without keys (SCHEMA.md): a base file of the analysis columns of one value per
row, typed and null as documented (any Parquet reader queries them), and `kind_detail`, the
discards of a 14-3k tile row or the waits of a 13-3k tile row packed in 26 bytes; and a side
table of the scored win rows (`wins`, with their `row`). read_part builds the per-kind and
score columns back from them and joins the input part's columns by position; read_table and
iter_parts read a whole folder.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from .._core import discard_analysis as _k
from ..errors import MjcoreError
from ..files import real_folder
from .analysis_columns import (
    ANALYSIS_COLUMNS,
    KIND_COLUMNS,
    SCALAR_COLUMNS,
    Analysed,
    Validity,
    analysis_fields,
    kind_columns,
    kinds_of,
    masked_array,
    scalar_columns,
    score_columns,
    score_types,
    tile_rows,
)
from .common import drop_old_side_file, part_files, side_file, write_table_atomic
from .expected import EV_COLUMNS, EV_SIDE
from .hand_arrays import HAND_BYTES, fixed_bytes, small_ints, table_column, text_values
from .hands import NOT_HELD
from .inputs import ParquetSlice

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
# an analysed part of a Parquet input stores what the analysis adds and names its input part
INPUT_KEY = "mjcore.input"
ROW_GROUPS_KEY = "mjcore.input_row_groups"     # "first,end" when the input is a slice of a file
RELATIVE_KEY = "mjcore.input_relative"  # the input part from the analysed part's folder


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


def base_schema() -> Any:
    """The Arrow schema of an analysed part's base file (before its metadata)."""
    import pyarrow as pa

    fields = {f.name: f for f in analysis_fields()}
    return pa.schema([fields[c] for c in SCALAR_COLUMNS] +
                     [pa.field(DETAIL_COLUMN, pa.binary(DETAIL_BYTES))])


def split_tables(a: Analysed) -> dict[str, Any]:
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
    cols = scalar_columns(a)
    cols[DETAIL_COLUMN] = Validity(a.is13 | a.is14).array(detail, pa.binary(DETAIL_BYTES))
    won = a.score_values[:, 0] >= 0
    wins = {"row": pa.array(a.score_rows.astype(np.int32)),
            "score_status": pa.array(a.score_status, pa.string()),
            **{name: masked_array(a.score_values[:, j].astype(t.to_pandas_dtype()), won, t)
               for j, (name, t) in enumerate(score_types())}}
    return {"": pa.Table.from_arrays(list(cols.values()), schema=base_schema()),
            WINS_SIDE: pa.Table.from_arrays(list(wins.values()), schema=pa.schema(
                [pa.field(k, v.type, nullable=k not in ("row", "score_status"))
                 for k, v in wins.items()]))}


def _unpack_kinds(where: str, tiles: Any, col: Any) -> dict[str, Any]:
    """The per-kind columns of an analysed part from its ``tiles`` and ``kind_detail``."""
    n = len(col)
    detail = fixed_bytes(col, DETAIL_BYTES)
    valid = col.is_valid().to_numpy(zero_copy_only=False)
    is13, is14 = tile_rows(tiles.to_numpy(zero_copy_only=False), valid)
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
    sub, w_kinds = kinds_of(kinds.view("<u8")[:, 0].astype(np.uint64))
    at = np.arange(sub.size) - np.searchsorted(sub, sub)
    if at.size and at.max() >= DETAIL_BYTES - WAITS_LEFT_AT:
        raise MjcoreError(f"{where}: a {DETAIL_COLUMN} with more waits than it holds")
    w_left = detail[rows[sub], WAITS_LEFT_AT + at].view(np.int8)
    return kind_columns(n, is13, is14, rows[sub], w_kinds.astype(np.int8), w_left,
                        d_shanten, d_ukeire)


def _read_ev(where: str, path: str, n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``ev_*`` columns of an analysed part of n rows from its ``_ev`` side table (null
    on the rows that are not discard decisions), and their fields."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not os.path.exists(path):
        raise MjcoreError(f"{where}: its side table {path} is gone")
    ev = pq.read_table(path)
    rows = small_ints(table_column(ev, "row"), ev.num_rows, 0)
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
    rows = small_ints(table_column(wins, "row"), wins.num_rows, 0)
    if rows.size and (rows.min() < 0 or rows.max() >= n):
        raise MjcoreError(f"{where}: a row of its wins table outside its {n} rows")
    values = np.stack([small_ints(table_column(wins, name), wins.num_rows, -1)
                       for name, _t in score_types()], 1).reshape(-1, 4)
    return score_columns(n, rows, text_values(table_column(wins, "score_status")), values)


def write_split_tables(tables: dict[str, Any], source: str | ParquetSlice, rows: int,
                       path: str) -> None:
    """Write an analysed part's tables (``split_tables``) to ``path`` and its side folders;
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
        cols.update(_unpack_kinds(f, table_column(base, "tiles"),
                                  table_column(base, DETAIL_COLUMN)))
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


__all__ = ["DETAIL_COLUMN", "SIDE_TABLES", "WINS_SIDE", "base_schema", "input_stamp", "iter_parts",
           "read_part", "read_table", "side_path", "table_columns", "write_options",
           "write_split_tables"]

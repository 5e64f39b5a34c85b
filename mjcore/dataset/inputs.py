"""The input of an analysis as parts: the Parquet files of a folder (a large file in slices of
whole row groups), a CSV or text file cut into parts of rows; a footer checked before anything
is read; and the columns of a part the analysis reads, with its win rows from the extract's side
table."""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import MjcoreError
from .common import WINS_TABLE, part_files, side_file
from .hand_arrays import WIN_ACTIONS, is_in, no_hand_column, table_column

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

MAX_LINE_BYTES = 1 << 16       # a text file's line is read up to this length


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


def read_column(source: Any, column: str) -> Any:
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
            bool(is_in(table_column(table, "format"), ("mjs",)).any())
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
    rows = np.flatnonzero(is_in(table_column(table, "action"), WIN_ACTIONS))
    if not np.array_equal(wins.column("row").to_numpy(), rows):
        return False
    tile, win_tile = table_column(table, "tile"), table_column(wins, "tile")
    if tile.null_count or win_tile.null_count:
        return bool(win_tile.equals(tile.take(pa.array(rows))))
    return bool(np.array_equal(win_tile.to_numpy(), tile.to_numpy()[rows]))


def part_rows(source: Any) -> int:
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


__all__ = ["ParquetSlice", "read_input_part"]

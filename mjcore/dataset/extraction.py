"""Game records -> one table row per decision, written as partitioned Parquet.

A *decision* is an action a player took in the record: a discard (``discard``, or ``riichi``
for the discard that declares riichi), a call (``chi``, ``pon``, ``daiminkan``), a kan from
the hand (``kakan``, ``ankan``), a win (``tsumo``, ``ron``) or the nine-terminals abort
(``kyuushu``), and with three players a north set aside (``kita``). Declining a call is
not recorded by the logs and is not a row. Rows come in record order; ``decision`` numbers
them within a game. The columns are listed in :data:`EXTRACT_SCHEMA` and in
``mjcore/dataset/SCHEMA.md``.

Records are read from files, folders and ``.tar``/``.tar.gz``/``.tar.xz`` archives: Tenhou
mjlog XML (gzip-compressed or not) and mjai JSON lines (Tenhou conversions and the records of
``mjcore play``), read into the riichi engine's events and their rows by :mod:`.riichi`, and
Bradfield ``.mjs`` hand histories (Chinese classical), replayed through the classical referee
by :mod:`.classical`. The format is told by content: each game's ``read_record`` in the
registry (``mjcore.games``) says whether a record is its own. Here: the columns both games fill,
the partitions and the job.

Records are grouped into partitions of ``records_per_partition`` in input order, a partition
ending early once its records pass ``MAX_PART_BYTES``; partition i is ``part-<i>.parquet`` plus
``_problems-<i>.json`` (the records and rows that could not be used, with file, game, row and
reason). A partition is not redone when its Parquet file exists and the folder's journal shows
it was made from the same records (names and bytes). Memory is bounded by the partitions in
flight, two per worker, each at most ``MAX_PART_BYTES`` of records plus one record.
"""
from __future__ import annotations

import json
import os
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ..engine.sources import MAX_RECORD_BYTES
from ..errors import InvalidHandError, MjcoreError
from ..files import is_tar_name, real_folder, walk_inputs
from ..games import record_suffixes
from ..tiles import format_tiles
from .common import (
    OLD_WINS_TABLE,
    WINS_TABLE,
    PartitionPlan,
    Problem,
    atomic_write_json,
    drop_old_side_file,
    parallel_map,
    partition_name,
    problems_name,
    progress,
    side_file,
    write_table_atomic,
)

ACTIONS = ("discard", "riichi", "chi", "pon", "daiminkan", "kakan", "ankan", "tsumo", "ron",
           "kyuushu", "original_call", "kita")
WIN_FLAG_BITS = {"tsumo": 1, "riichi": 2, "double_riichi": 4, "ippatsu": 8, "rinshan": 16,
                 "chankan": 32, "haitei": 64, "houtei": 128, "tenhou": 256, "chiihou": 512}
LIVE_WALL = 70                 # 136 tiles - 52 dealt - 14 dead wall
LIVE_WALL_OF = {4: LIVE_WALL, 3: 55}   # by players: sanma is 108 - 39 dealt - 14 dead wall
RED_IDS = (16, 52, 88)
HAND_BYTES = 34             # `counts` and `visible`: one byte per kind (fixed-width, fast to read)
# an extract part is lz4 with dictionary pages on every column but the 34-byte hands (nearly
# all distinct), which are stored plain: the analysis reads the archive's extract in about
# 47 ms against 69 ms with the hands lz4 too (132 MB instead of 37 MB) and 146 ms for zstd
# with dictionary pages on the text only (17 MB) (benchmarks/HISTORY.md "analyse step" sections)
PLAIN_COLUMNS = ("counts", "visible")


def write_options(column_names: list[str]) -> dict[str, Any]:
    """pyarrow.parquet.write_table's options for an extract part or its side table."""
    return {"compression": {c: "none" if c in PLAIN_COLUMNS else "lz4" for c in column_names},
            "use_dictionary": [c for c in column_names if c not in PLAIN_COLUMNS]}


def win_rows(table: Any) -> Any:
    """The ``tsumo`` and ``ron`` rows of an extract table, after ``row``, their row in it."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    hit = pc.is_in(table.column("action"), value_set=pa.array(["tsumo", "ron"]))
    rows = np.flatnonzero(pc.fill_null(hit, False).to_numpy(zero_copy_only=False))
    wins = table.take(pa.array(rows))
    return wins.add_column(0, pa.field("row", pa.int32(), nullable=False),
                           pa.array(rows.astype(np.int32)))


def schema() -> Any:
    """The Arrow schema of an extract (see SCHEMA.md for the meaning of each column)."""
    import pyarrow as pa

    i16list = pa.list_(pa.int16())
    return pa.schema([
        ("source", pa.string()), ("format", pa.string()), ("game", pa.int32()),
        ("rules", pa.string()), ("players", pa.int8()), ("hand", pa.int16()),
        ("round_wind", pa.int8()),
        ("kyoku", pa.int8()), ("honba", pa.int16()), ("riichi_sticks", pa.int16()),
        ("dealer", pa.int8()), ("decision", pa.int32()), ("event", pa.int32()),
        ("seat", pa.int8()), ("player", pa.string()), ("turn", pa.int16()),
        ("tiles_left", pa.int16()),
        ("closed", i16list), ("counts", pa.binary(HAND_BYTES)), ("red", pa.int8()),
        ("melds", pa.list_(pa.string())), ("n_melds", pa.int8()), ("kita", pa.int8()),
        ("visible", pa.binary(HAND_BYTES)), ("dora_markers", i16list),
        ("riichi", pa.bool_()), ("riichi_seats", pa.int8()), ("scores", pa.list_(pa.int32(), 4)),
        ("action", pa.string()), ("tile", pa.int16()), ("tsumogiri", pa.bool_()),
        ("consumed", i16list), ("from_seat", pa.int8()), ("win_flags", pa.int16()),
        ("ura_markers", i16list), ("pao_seat", pa.int8()),
        ("win_han", pa.int16()), ("win_fu", pa.int16()), ("win_points", pa.int32()),
        ("hand_result", pa.string()), ("hand_delta", pa.int32()), ("hand_won", pa.bool_()),
    ])


@cache
def _int_ranges() -> dict[str, tuple[int, int]]:
    """The values each integer column (or list of integers) of the extract can hold."""
    import pyarrow as pa

    out = {}
    for f in schema():
        t = f.type
        if pa.types.is_list(t) or pa.types.is_fixed_size_list(t):
            t = t.value_type
        if pa.types.is_integer(t):
            half = 1 << (t.bit_width - 1)
            out[f.name] = (-half, half - 1)
    return out


def _fit(column: str, value: Any) -> Any:
    """``value`` when the extract's column can hold it (None passes); else ValueError naming
    both, so that a record with an absurd number is reported, not the partition lost."""
    if value is not None:
        lo, hi = _int_ranges()[column]
        if not lo <= value <= hi:
            raise ValueError(f"{column} {value} is outside {lo}..{hi}")
    return value


# ---- reading records ---------------------------------------------------------------------------

# the record walker's suffixes and size limit (mjcore.engine.sources: a larger record is
# reported as unreadable, not read into memory), plus gzipped records and Bradfield's histories
RECORD_SUFFIXES = (*record_suffixes(), ".gz")

MAX_PART_BYTES = 64 << 20
"""A partition ends once its records hold this many bytes (they are held in the main process
and sent to a worker): 200 records of the largest size would otherwise be 12.8 GiB."""


def iter_sources(paths: Iterable[str]) -> Iterator[tuple[str, bytes | Exception]]:
    """(name, raw bytes) of every record under ``paths`` (files, folders searched recursively,
    tar archives read in place), in a stable order. A path that cannot be read yields
    (path, the error) instead of stopping the run."""
    for name, data, _done in _sources_with_bytes(paths):
        yield name, data


def input_bytes(paths: Iterable[str]) -> int:
    """The total size of the record files under ``paths`` (for progress bars)."""
    total = 0
    for path in paths:
        path = os.fspath(path)
        if os.path.isdir(path):
            for root, _dirs, files in os.walk(path):
                total += sum(os.path.getsize(os.path.join(root, fn)) for fn in files
                             if fn.endswith(RECORD_SUFFIXES) or is_tar_name(fn))
        elif os.path.isfile(path):
            total += os.path.getsize(path)
    return total


def _sources_with_bytes(paths: Iterable[str]
                        ) -> Iterator[tuple[str, bytes | Exception, int]]:
    """iter_sources plus the input bytes consumed so far after each record (the walk every
    reader of records shares: :func:`mjcore.files.walk_inputs`)."""
    yield from walk_inputs(paths, lambda name: name.endswith(RECORD_SUFFIXES),
                           max_bytes=MAX_RECORD_BYTES)


@dataclass
class ParsedRecord:
    """One record read from a file by its game's ``read_record``: ``format`` (mjlog, mjai or
    mjs), its events, ``rules`` (JSON of the options that differ from the default rules), for
    mjs its hand history, and ``extract``, the game's ``(record, columns, *, source, game) ->
    complete`` that appends its decision rows (False: the record stops before its game ends).
    """
    format: str
    events: list[dict[str, Any]]   # the record's events (empty for a hand history)
    rules: str                 # JSON of the options that differ from the default rules
    extract: Callable[..., bool]
    history: Any = None        # a Bradfield hand history (format "mjs")


def parse_record(name: str, data: bytes) -> ParsedRecord:
    """The events of one record, read by the first game whose ``read_record`` knows its
    format (the registry, ``mjcore.games``); raises MjcoreError naming the record on bad
    input."""
    from ..engine.sources import record_text
    from ..games import games_offering

    text = record_text(data, name, "bad_mjlog")
    for game in games_offering("read_record"):
        found: ParsedRecord | None = game.entry("read_record")(name, text)
        if found is not None:
            return found
    raise InvalidHandError(f"{name}: unknown record format (neither mjlog XML nor mjai JSON "
                           "lines)", reason="unknown_format")


# ---- events -> rows ----------------------------------------------------------------------------

def _mpsz(ids: Iterable[int]) -> str:
    """Tile ids as mpsz in the order given (a run of one suit shares its letter)."""
    ids = list(ids)
    return format_tiles([t >> 2 for t in ids], [t in RED_IDS for t in ids], sort=False)


def meld_token(kind: str, called: int | None, tiles: list[int], from_rel: int) -> str:
    """A meld in the notation of :class:`mjcore.Meld` (``chi:324m``, ``pon:555z<2``, ...)."""
    if kind == "chi":
        assert called is not None
        return "chi:" + _mpsz([called] + sorted(tiles))
    body = _mpsz(sorted(tiles + ([called] if called is not None else [])))
    if kind == "ankan":
        return "ankan:" + body
    name = {"pon": "pon", "daiminkan": "kan", "kakan": "kakan"}[kind]
    return f"{name}:{body}<{from_rel}"


class _ListColumn:
    """A list column kept as flat values plus offsets (cheap to append, cheap to convert)."""

    def __init__(self, typecode: str) -> None:
        self.values = array(typecode)
        self.offsets = array("i", [0])

    def add(self, seq: Iterable[Any]) -> None:
        self.values.extend(seq)
        self.offsets.append(len(self.values))

    def truncate(self, rows: int) -> None:
        end = self.offsets[rows]
        del self.offsets[rows + 1:]
        del self.values[end:]

    def arrow(self, value_type: Any) -> Any:
        import numpy as np
        import pyarrow as pa

        values = pa.array(np.frombuffer(self.values, self.values.typecode), type=value_type)
        return pa.ListArray.from_arrays(pa.array(np.frombuffer(self.offsets, np.int32)), values)


class _Pool:
    """A list column whose rows repeat a few distinct lists (dora indicators, meld tokens):
    each row stores the number of its list in a pool of distinct tuples."""

    def __init__(self) -> None:
        self.items: list[tuple[Any, ...]] = [()]
        self.ids: dict[tuple[Any, ...], int] = {(): 0}
        self.rows = array("i")

    def intern(self, items: Iterable[Any]) -> int:
        key = tuple(items)
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.items)
            self.items.append(key)
        return i

    def truncate(self, rows: int) -> None:
        del self.rows[rows:]

    def arrow(self, value_type: Any) -> Any:
        import numpy as np
        import pyarrow as pa

        lengths = np.array([len(x) for x in self.items], np.int64)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        flat = pa.array([v for x in self.items for v in x], type=value_type)
        ids = np.frombuffer(self.rows, np.int32)
        row_len = lengths[ids]
        offsets = np.concatenate([[0], np.cumsum(row_len)]).astype(np.int32)
        idx = np.repeat(starts[ids] - offsets[:-1], row_len) + np.arange(offsets[-1])
        return pa.ListArray.from_arrays(pa.array(offsets), flat.take(pa.array(idx)))


class _Strings:
    """A string column as codes into its distinct values (a partition's rows repeat a few
    players, actions, sources and results), turned into Arrow strings by one take."""

    def __init__(self) -> None:
        self.codes = array("i")
        self.values: list[str | None] = []
        self.ids: dict[str | None, int] = {}

    def code(self, value: str | None) -> int:
        i = self.ids.get(value)
        if i is None:
            i = self.ids[value] = len(self.values)
            self.values.append(value)
        return i

    def append(self, value: str | None) -> None:
        self.codes.append(self.code(value))

    def extend(self, values: Iterable[str | None]) -> None:
        self.codes.extend(self.code(v) for v in values)

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, row: int) -> str | None:
        return self.values[self.codes[row]]

    def __delitem__(self, rows: slice) -> None:
        del self.codes[rows]

    def arrow(self) -> Any:
        import numpy as np
        import pyarrow as pa

        codes = pa.array(np.frombuffer(self.codes, np.int32))
        return pa.array(self.values, pa.string()).take(codes)


_TYPECODES = {"int8": "b", "int16": "h", "int32": "i", "bool": "b"}
NULLABLE = ("hand_delta",)      # null for an unfinished hand: kept as a Python list


def _column_store(arrow_type: Any, name: str) -> Any:
    """The buffer one column of a partition is appended to: a typed array for numbers (taken
    by Arrow without a copy) and flags, codes for strings, a list for a nullable column."""
    if name in NULLABLE:
        return []
    if str(arrow_type) == "string":
        return _Strings()
    return array(_TYPECODES[str(arrow_type)])


class _Columns:
    """Column buffers of one partition."""

    PER_ROW = ("decision", "event", "seat", "player", "turn", "tiles_left", "n_melds", "kita",
               "riichi", "riichi_seats", "action", "tile", "tsumogiri", "from_seat", "win_flags")
    PER_HAND = ("source", "format", "game", "rules", "players", "hand", "round_wind", "kyoku",
                "honba", "riichi_sticks", "dealer", "hand_result", "hand_delta", "hand_won")
    PER_WIN = ("pao_seat", "win_han", "win_fu", "win_points")
    POOLED = ("melds", "dora_markers", "consumed", "ura_markers")

    def __init__(self) -> None:
        types = {f.name: f.type for f in schema()}
        self.cols: dict[str, Any] = {n: _column_store(types[n], n)
                                     for n in self.PER_ROW + self.PER_HAND}
        self.closed = _ListColumn("h")
        self.pools = {n: _Pool() for n in self.POOLED}
        self.wins: dict[int, tuple[Any, ...]] = {}     # row -> PER_WIN values
        self.visible = bytearray()
        self.scores = array("i")

    def __len__(self) -> int:
        return len(self.cols["seat"])

    def fill_hand(self, start: int, values: dict[str, Any], scores: list[int]) -> None:
        """Set the per-hand columns of rows ``start:`` (rows added since the hand began).
        Raises ValueError naming a number that its column cannot hold."""
        n = len(self) - start
        ranges = _int_ranges()
        for k in self.PER_HAND:             # every number checked before any column changes
            v = values[k]
            if k in ranges:
                for x in v if isinstance(v, list) else (v,):
                    _fit(k, x)
        for x in scores:
            _fit("scores", x)
        for k in self.PER_HAND:
            col = self.cols[k]
            del col[start:]
            v = values[k]
            if isinstance(v, list):
                col.extend(v)
            elif isinstance(col, _Strings):
                col.codes.extend(array("i", [col.code(v)]) * n)
            elif isinstance(col, array):
                col.extend(array(col.typecode, [v]) * n)
            else:
                col.extend([v] * n)
        del self.scores[start * 4:]
        self.scores.extend(array("i", scores) * n)

    def set_win(self, row: int, values: tuple[Any, ...]) -> None:
        """The ``PER_WIN`` values of a win row; ValueError naming one its column cannot hold."""
        self.wins[row] = tuple(_fit(c, v) for c, v in zip(self.PER_WIN, values, strict=True))

    def truncate(self, n: int) -> None:
        for v in self.cols.values():
            del v[n:]
        self.closed.truncate(n)
        for pool in self.pools.values():
            pool.truncate(n)
        for r in [r for r in self.wins if r >= n]:
            del self.wins[r]
        del self.visible[n * 34:]
        del self.scores[n * 4:]

    def _hand_columns(self, n: int) -> tuple[Any, Any]:
        """``counts`` and ``red`` from the closed hands' 136-ids."""
        import numpy as np
        import pyarrow as pa

        ids = np.frombuffer(self.closed.values, np.int16)
        offsets = np.frombuffer(self.closed.offsets, np.int32)
        owner = np.repeat(np.arange(n, dtype=np.int32), np.diff(offsets))
        cells = np.bincount(owner * 34 + (ids >> 2), minlength=n * 34).astype(np.uint8)
        red = np.bincount(owner[(ids == RED_IDS[0]) | (ids == RED_IDS[1]) | (ids == RED_IDS[2])],
                          minlength=n)
        return _per_kind(cells.tobytes(), n), pa.array(red.astype(np.int8))

    def table(self) -> Any:
        import numpy as np
        import pyarrow as pa

        sch = schema()
        n = len(self)
        counts, red = self._hand_columns(n)
        arrays = []
        for f in sch:
            name = f.name
            col = self.cols.get(name)
            if name == "visible":
                arrays.append(_per_kind(bytes(self.visible), n))
            elif name == "counts":
                arrays.append(counts)
            elif name == "red":
                arrays.append(red)
            elif name == "scores":
                values = pa.array(np.frombuffer(self.scores, np.int32))
                arrays.append(pa.FixedSizeListArray.from_arrays(values, 4))
            elif name == "closed":
                arrays.append(self.closed.arrow(f.type.value_type))
            elif name in self.pools:
                arrays.append(self.pools[name].arrow(f.type.value_type))
            elif name in self.PER_WIN:
                j = self.PER_WIN.index(name)
                default = -1 if name == "pao_seat" else None
                values_of = [default] * n
                for r, vals in self.wins.items():
                    values_of[r] = vals[j]
                arrays.append(pa.array(values_of, type=f.type))
            elif isinstance(col, _Strings):
                arrays.append(col.arrow())
            elif isinstance(col, array):
                values = np.frombuffer(col, col.typecode)
                arrays.append(pa.array(values.view(np.bool_) if f.type == pa.bool_()
                                       else values, type=f.type))
            else:
                arrays.append(pa.array(col, type=f.type))
        return pa.Table.from_arrays(arrays, schema=sch)


def _per_kind(data: bytes, n: int) -> Any:
    """A ``binary(34)`` column of n rows from n * 34 bytes (byte k: kind k)."""
    import pyarrow as pa

    return pa.FixedSizeBinaryArray.from_buffers(pa.binary(HAND_BYTES), n,
                                                [None, pa.py_buffer(data)])


# ---- partitions --------------------------------------------------------------------------------

@dataclass
class PartitionResult:
    """What writing one Parquet part gave: its index, rows, records and problems."""
    index: int
    rows: int
    records: int
    problems: list[Problem] = field(default_factory=list)


def extract_partition(index: int, first_game: int, items: list[tuple[str, bytes | str]],
                      out_dir: str | None) -> tuple[PartitionResult, Any]:
    """Extract the records ``items`` (name, bytes or a read error) as partition ``index``.
    Writes the partition when ``out_dir`` is given, else returns its table."""
    cols = _Columns()
    problems: list[Problem] = []
    for offset, (name, data) in enumerate(items):
        game = first_game + offset
        if isinstance(data, str):           # a read error: "reason<sep>detail", or the detail
            reason, sep, detail = data.partition(REASON_SEP)
            problems.append(Problem(name, game, -1, reason if sep else "unreadable",
                                    _detail_of(detail, name) if sep else data))
            continue
        try:
            rec = parse_record(name, data)
        except MjcoreError as exc:
            problems.append(Problem(name, game, -1, getattr(exc, "reason", "") or "bad_record",
                                    _detail(exc, name)))
            continue
        except (KeyError, ValueError, IndexError, TypeError) as exc:   # a reader's slip
            problems.append(Problem(name, game, -1, "bad_record", f"malformed ({exc!r})"))
            continue
        mark = len(cols)
        try:
            complete = rec.extract(rec, cols, source=name, game=game)
        except MjcoreError as exc:
            cols.truncate(mark)
            problems.append(Problem(name, game, -1, getattr(exc, "reason", "") or "bad_record",
                                    _detail(exc, name)))
            continue
        except (KeyError, ValueError, IndexError, TypeError, AttributeError,
                OverflowError) as exc:
            cols.truncate(mark)
            problems.append(Problem(name, game, -1, "bad_record", f"malformed ({exc!r})"))
            continue
        if not complete:
            problems.append(Problem(name, game, len(cols) - mark, "incomplete",
                                    f"the record stops before the game ends: its "
                                    f"{len(cols) - mark} rows are kept, the last hand has no "
                                    "result"))
    table = cols.table()
    res = PartitionResult(index, table.num_rows, len(items), problems)
    if out_dir is not None:
        real_folder(os.path.join(out_dir, WINS_TABLE))
        wins = win_rows(table)
        base = os.path.join(out_dir, partition_name(index))
        write_table_atomic(wins, side_file(base, WINS_TABLE), **write_options(wins.column_names))
        drop_old_side_file(base, WINS_TABLE)
        atomic_write_json(os.path.join(out_dir, problems_name(index)),
                          [p.as_dict() for p in problems])
        write_table_atomic(table, os.path.join(out_dir, partition_name(index)),
                           **write_options(table.column_names))
        return res, None
    return res, table


REASON_SEP = "\x1f"          # a read error's reason and detail, as one task string


def _detail_of(text: str, name: str) -> str:
    """A read error's text without its type and the record name it starts with."""
    kind, sep, rest = text.partition(": ")
    text = rest if sep and kind.isidentifier() else text
    return text[len(name) + 2:] if text.startswith(name + ": ") else text


def _detail(exc: Exception, name: str) -> str:
    """An error's message without the record name it starts with (the problem names it)."""
    text = str(exc)
    return text[len(name) + 2:] if text.startswith(name + ": ") else text


def input_digest(items: list[tuple[str, bytes | str]]) -> str:
    """A digest of a part's records (names and bytes, or read errors): a part is resumed
    only when its input is provably the one it was made from."""
    import hashlib

    h = hashlib.blake2b(digest_size=20)
    for name, data in items:
        raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape")
        key = name.encode("utf-8", "surrogateescape")
        h.update(b"%d:%d:%d:" % (len(key), isinstance(data, bytes), len(raw)))
        h.update(key)
        h.update(raw)
    return h.hexdigest()


def _task(args: tuple[int, int, list[tuple[str, bytes | str]], str | None]) -> Any:
    return extract_partition(*args)


def _batches(paths: Iterable[str], per: int) -> Iterator[tuple[int, int, list[Any], int]]:
    """(part index, first game number, records, input bytes read) of each part: ``per``
    records, or fewer once they pass MAX_PART_BYTES."""
    batch: list[tuple[str, bytes | str]] = []
    index = game = 0
    done = held = 0
    for name, data, done in _sources_with_bytes(paths):
        item = (name, data if isinstance(data, bytes) else
                f"{getattr(data, 'reason', 'unreadable')}{REASON_SEP}{type(data).__name__}: "
                f"{data}")
        batch.append(item)
        held += len(item[1])
        if len(batch) == per or held >= MAX_PART_BYTES:
            yield index, game, batch, done
            index += 1
            game += len(batch)
            batch = []
            held = 0
    if batch:
        yield index, game, batch, done


def extract(records: str | Iterable[str], out: str | None = None, *,
            records_per_partition: int = 200, workers: int | None = None,
            show_progress: bool = False, resume: bool = True) -> Any:
    """Extract game records to one row per decision.

    With ``out`` (a folder) the partitions are written there as Parquet and an
    :class:`ExtractSummary` is returned; without it the whole extract is returned as one
    Arrow table (small inputs only; its problems are in ``problems_of(table)``).
    ``workers`` processes (default: one per core)."""
    import pyarrow as pa

    paths = [records] if isinstance(records, (str, os.PathLike)) else list(records)
    if records_per_partition < 1:
        raise MjcoreError("records_per_partition must be at least 1")
    for p in paths:
        if not os.path.exists(p):
            raise MjcoreError(f"{p}: no such file or folder")
    plan = PartitionPlan(out, (WINS_TABLE, OLD_WINS_TABLE)) if out is not None else None
    if plan is not None:
        _check_manifest(plan, paths, records_per_partition, resume)
    tables: list[Any] = []
    summary = ExtractSummary()
    bytes_at: dict[int, int] = {}
    bar = progress(show_progress, desc="extract", unit="B", unit_scale=True,
                   total=input_bytes(paths))

    n_parts = [0]

    def tasks() -> Iterator[Any]:
        for index, first, batch, done in _batches(paths, records_per_partition):
            n_parts[0] = index + 1
            digest = input_digest(batch)
            if plan is not None and resume and plan.done(index) and \
                    plan.owned.get(partition_name(index)) == digest:
                summary.resumed += 1
                summary.records += len(batch)
                bar.update(max(0, done - bar_pos[0]))
                bar_pos[0] = max(bar_pos[0], done)
                continue
            bytes_at[index] = done
            digests[index] = digest
            yield (index, first, batch, out)

    bar_pos = [0]
    digests: dict[int, str] = {}
    for res, table in parallel_map(_task, tasks(), workers):
        summary.add(res)
        if plan is not None:
            plan.wrote(partition_name(res.index), digests.pop(res.index))
        if table is not None:
            tables.append((res.index, table))
        done = bytes_at.pop(res.index, 0)
        if done > bar_pos[0]:
            bar.update(done - bar_pos[0])
            bar_pos[0] = done
        bar.set_postfix(records=summary.records, rows=summary.rows, refresh=False)
    if plan is not None:        # parts of a longer input than this one
        plan.remove_other_parts({partition_name(i) for i in range(n_parts[0])})
    bar.close()
    if plan is not None:
        summary.problems = plan.read_problems()
        return summary
    tables.sort(key=lambda x: x[0])
    summary.problems.sort(key=lambda p: p.game)
    if not tables:
        return schema().empty_table()
    table = pa.concat_tables([t for _i, t in tables])
    return table.replace_schema_metadata(
        {"problems": json.dumps([p.as_dict() for p in summary.problems])})


def _check_manifest(plan: PartitionPlan, paths: list[Any], per: int, resume: bool) -> None:
    """Parts are only reused for the same inputs and part size; ``resume=False`` clears them."""
    manifest = {"inputs": [os.path.abspath(p) for p in paths], "records_per_part": per,
                "schema": "mjcore.dataset.extract/4"}
    plan.start("_extract.json", manifest, resume, what="an extract",
               other="an extract of other inputs or another part size (or use --no-resume)")


@dataclass
class ExtractSummary:
    """Totals of an extract run: records, rows, parts written, parts already done
    (``resumed``) and the problems.
    """
    records: int = 0
    rows: int = 0
    partitions: int = 0
    resumed: int = 0
    problems: list[Problem] = field(default_factory=list)

    def add(self, res: PartitionResult) -> None:
        """Add one part's result to the totals."""
        self.records += res.records
        self.rows += res.rows
        self.partitions += 1
        self.problems.extend(res.problems)


def problems_of(table: Any) -> list[Problem]:
    """The problems an in-memory extract carries in its schema metadata."""
    meta = table.schema.metadata or {}
    raw = meta.get(b"problems")
    return [Problem(**p) for p in json.loads(raw)] if raw else []

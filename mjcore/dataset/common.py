"""What the dataset jobs share: partition files, problem lists, progress bars, worker pools."""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import MjcoreError, OutputError
from ..files import new_file, real_folder

PART_PREFIX = "part-"
PROBLEMS_PREFIX = "_problems-"
# the side table of an extract part: its win rows again, so that the analysis scores them
# without reading from every row the columns only they use; in a folder starting with `_`, so
# that readers of the folder as one dataset (pyarrow.dataset, Spark) do not count them twice
WINS_TABLE = "_wins"
# a side table's part is named as its part plus this suffix (`_wins/part-00000.parquet-side`):
# not matched by the `*.parquet` globs of DuckDB's read_parquet('X') or polars' X/**/*.parquet,
# which would count its rows twice; the name of earlier layouts (`_wins/part-00000.parquet`)
# is still read
SIDE_SUFFIX = "-side"
JOURNAL_SUFFIX = "-parts.jsonl"   # beside a job's manifest: the parts it wrote, one a line
OLD_WINS_TABLE = "wins"         # the same before mjcore.dataset.extract/3


def partition_name(index: int) -> str:
    """File name of Parquet part ``index``: ``part-NNNNN.parquet``."""
    return f"{PART_PREFIX}{index:05d}.parquet"


def problems_name(index: int) -> str:
    """File name of part ``index``'s problem list: ``_problems-NNNNN.json``."""
    return f"{PROBLEMS_PREFIX}{index:05d}.json"


@dataclass(frozen=True)
class Problem:
    """A record or row that could not be used: where it is and why."""

    file: str           # the record (file or archive member) or the Parquet part
    game: int           # game number in the extract, -1 when not known
    row: int            # row in the part or decision in the game, -1 for a whole record
    reason: str         # a short machine-readable reason
    detail: str = ""    # the message

    def as_dict(self) -> dict[str, Any]:
        """The problem's fields as a dict."""
        return asdict(self)

    def __str__(self) -> str:
        where = self.file + (f" game {self.game}" if self.game >= 0 else "") + \
            (f" row {self.row}" if self.row >= 0 else "")
        return f"{where}: {self.reason}: {self.detail}"


def atomic_write_json(path: str, value: Any) -> None:
    """Write ``value`` as compact JSON to ``path`` atomically (a temporary file in the same
    folder, then renamed; a link at ``path`` is replaced, never followed).
    """
    with new_file(path, "w", replace=True) as f:
        json.dump(value, f, indent=None, separators=(",", ":"))


def write_table_atomic(table: Any, path: str, **options: Any) -> None:
    """Write a Parquet file under a temporary name, then rename it: a part that exists is
    complete, which is what resuming relies on. ``options``: pyarrow.parquet.write_table's
    (default zstd compression)."""
    import pyarrow.parquet as pq

    with new_file(path, "wb", replace=True) as f:
        pq.write_table(table, f, **{"compression": "zstd", **options})


class PartitionPlan:
    """An output folder of ``part-NNNNN.parquet`` files and their problem lists, and of the
    subfolders ``sides`` of side tables (parts named as the parts they belong to)."""

    def __init__(self, directory: str, sides: Iterable[str] = ()) -> None:
        self.directory = os.fspath(directory)
        self.sides = tuple(sides)
        self.journal = os.path.join(self.directory, "_parts" + JOURNAL_SUFFIX)
        self.owned: dict[str, str] = {}
        os.makedirs(self.directory, exist_ok=True)

    def path(self, index: int) -> str:
        """Path of Parquet part ``index`` in the folder."""
        return os.path.join(self.directory, partition_name(index))

    def done(self, index: int) -> bool:
        """True when part ``index`` and its problem list are both written."""
        return os.path.exists(self.path(index)) and os.path.exists(
            os.path.join(self.directory, problems_name(index)))

    def count(self) -> int:
        """Number of Parquet parts in the folder."""
        return len(part_files(self.directory))

    def read_problems(self) -> list[Problem]:
        """The problems of every part in the folder (see :func:`read_problems`)."""
        return read_problems(self.directory)

    def start(self, manifest_name: str, manifest: dict[str, Any], resume: bool, *,
              what: str, other: str, redo_on: tuple[str, ...] = ("schema",)) -> None:
        """Begin a job in the folder: resume its parts when the manifest ``manifest_name``
        matches ``manifest``, redo them when only the keys ``redo_on`` changed (the layout,
        ``schema``; a changed input file), refuse a folder holding ``other`` (another job's
        parts; ``what`` names this job's kind), and write the manifest.

        The parts written are listed in the journal beside the manifest (see :meth:`wrote`);
        only they are ever deleted. A folder holding parts mjcore cannot tell it wrote is
        refused before anything in it is deleted."""
        path = os.path.join(self.directory, manifest_name)
        self.journal = os.path.join(self.directory, manifest_name.rsplit(".json", 1)[0]
                                    + JOURNAL_SUFFIX)
        for own in (path, self.journal):
            if os.path.islink(own):
                raise OutputError(f"{own} is a symbolic link; mjcore reads and writes only its "
                                  "own files in an output folder", path=own)
        has_manifest = os.path.lexists(path)
        if has_manifest:
            try:
                with open(path, encoding="utf-8") as f:
                    old = json.load(f)
            except (OSError, ValueError) as exc:
                raise MjcoreError(f"{path}: not a manifest mjcore can read ({exc}); give a new "
                                  "folder") from None
            if resume:
                same_job = {k: v for k, v in old.items() if k not in redo_on} == \
                    {k: v for k, v in manifest.items() if k not in redo_on}
                if same_job and old != manifest:
                    resume = False      # the same job in an older layout or on a changed input
                elif old != manifest:
                    raise MjcoreError(f"{self.directory} holds {other}; give a new folder")
        elif self._part_like():
            raise MjcoreError(f"{self.directory} holds Parquet parts or problem lists that are "
                              f"not {what} (no {manifest_name}): nothing was deleted; give a "
                              "new folder")
        self.owned = self.written()
        if not resume:
            self.clear()
        atomic_write_json(path, manifest)

    def written(self) -> dict[str, str]:
        """The journal: {part file name: its input's digest} of the parts written here."""
        out: dict[str, str] = {}
        try:
            with open(self.journal, encoding="utf-8") as f:
                for line in f:
                    try:
                        entry = json.loads(line)
                        name = str(entry["part"])
                        digest = str(entry.get("digest", ""))
                    except (ValueError, KeyError, TypeError, AttributeError):
                        continue            # a line cut by an interrupted run
                    if _part_named(name) and os.path.basename(name) == name:
                        out[name] = digest  # never a path: only this folder's files
        except FileNotFoundError:
            pass
        return out

    def wrote(self, name: str, digest: str = "") -> None:
        """Journal that part ``name`` (made from input of ``digest``) is written."""
        fd = os.open(self.journal, os.O_WRONLY | os.O_CREAT | os.O_APPEND |
                     getattr(os, "O_NOFOLLOW", 0), 0o666)
        with os.fdopen(fd, "a", encoding="utf-8") as f:
            f.write(json.dumps({"part": name, "digest": digest}) + "\n")
        self.owned[name] = digest

    def _files_of(self, name: str) -> list[str]:
        stem = name.rsplit(".parquet", 1)[0]      # an extract's problems drop the `part-`
        short = stem[len(PART_PREFIX):] if stem.startswith(PART_PREFIX) else stem
        return [os.path.join(self.directory, name),
                *{os.path.join(self.directory, f"{PROBLEMS_PREFIX}{x}.json")
                  for x in (stem, short)},
                *(os.path.join(self.directory, side, x) for side in self.sides
                  for x in (name, name + SIDE_SUFFIX))]

    def _part_like(self) -> list[str]:
        """The parts, problem lists and side tables' parts in the folder."""
        found = [os.path.join(self.directory, n) for n in os.listdir(self.directory)
                 if (n.endswith(".parquet") and not n.startswith(".")) or
                 (n.startswith(PROBLEMS_PREFIX) and n.endswith(".json"))]
        for side in self.sides:
            folder = os.path.join(self.directory, side)
            if os.path.islink(folder):
                raise OutputError(f"{folder} is a symbolic link; mjcore writes only into "
                                  "real folders it made or was given", path=folder)
            if os.path.isdir(folder):
                found += [os.path.join(folder, n) for n in os.listdir(folder)
                          if not n.startswith(".")]
        return found

    def clear(self) -> None:
        """Remove the parts the journal lists, with their problem lists and side tables' parts,
        and the side folders left empty; refuse (deleting nothing) when the folder holds other
        parts or problem lists. (A folder of an mjcore before the journal: its manifest
        vouches for the files named as its parts.)"""
        if os.path.lexists(self.journal):
            ours = {f for name in self.owned for f in self._files_of(name)}
        else:
            ours = {f for f in self._part_like() if _part_named(os.path.basename(f))}
        foreign = sorted(set(self._part_like()) - ours)
        if foreign:
            raise MjcoreError(f"{self.directory} holds {foreign[0]}"
                              f"{f' and {len(foreign) - 1} more files' if len(foreign) > 1 else ''}"
                              ", which mjcore did not write: nothing was deleted; move them "
                              "away or give a new folder")
        for path in ours:
            if os.path.lexists(path):
                os.unlink(path)
        if os.path.lexists(self.journal):
            os.unlink(self.journal)
        self.owned = {}
        for side in self.sides:
            folder = os.path.join(self.directory, side)
            if os.path.isdir(folder) and not os.listdir(folder):
                os.rmdir(folder)

    def remove_other_parts(self, names: set[str]) -> None:
        """Remove the parts mjcore wrote here (and their problem lists and side tables'
        parts) whose file names are not in ``names``."""
        legacy = not os.path.lexists(self.journal)
        for path in part_files(self.directory):
            name = os.path.basename(path)
            if name in names or not (name in self.owned or (legacy and _part_named(name))):
                continue
            for other in self._files_of(name):
                if os.path.lexists(other):
                    os.unlink(other)
            self.owned.pop(name, None)

    def side_path(self, side: str, index: int) -> str:
        """Path of side table ``side``'s part ``index`` (its folder made when missing)."""
        real_folder(os.path.join(self.directory, side))
        return side_file(self.path(index), side)


def _part_named(name: str) -> bool:
    """True for the names of parts, problem lists and side parts (an older mjcore's files)."""
    return (name.endswith((".parquet", ".parquet" + SIDE_SUFFIX)) and
            not name.startswith((".", "_"))) or \
        (name.startswith(PROBLEMS_PREFIX) and name.endswith(".json"))


def side_file(base: str, side: str, *, reading: bool = False) -> str:
    """The file of side table ``side`` for the part file ``base`` (``DIR/part-N.parquet``):
    ``DIR/side/part-N.parquet-side``; when ``reading`` and only the name of an earlier layout
    exists (``DIR/side/part-N.parquet``), that one."""
    folder = os.path.join(os.path.dirname(base), side)
    name = os.path.basename(base)
    new = os.path.join(folder, name + SIDE_SUFFIX)
    if reading and not os.path.exists(new) and os.path.exists(os.path.join(folder, name)):
        return os.path.join(folder, name)
    return new


def drop_old_side_file(base: str, side: str) -> None:
    """Remove the side file of an earlier layout for ``base`` (now written under the new name)
    so that a glob over the folder does not find it."""
    old = os.path.join(os.path.dirname(base), side, os.path.basename(base))
    if os.path.isfile(old) and not os.path.islink(old):
        os.unlink(old)


def part_files(directory: str) -> list[str]:
    """The Parquet files of a table folder, in name order (hidden and ``_`` files left out)."""
    names = sorted(n for n in os.listdir(directory)
                   if n.endswith(".parquet") and not n.startswith((".", "_")))
    return [os.path.join(directory, n) for n in names]


def read_problems(directory: str) -> list[Problem]:
    """The problems in every problem-list file of ``directory``, in file-name order."""
    out: list[Problem] = []
    for name in sorted(os.listdir(directory)):
        if name.startswith(PROBLEMS_PREFIX) and name.endswith(".json"):
            with open(os.path.join(directory, name)) as f:
                out.extend(Problem(**p) for p in json.load(f))
    return out


def cores() -> int:
    """CPUs this process may run on (its affinity on Linux, else the CPU count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not Linux
        return os.cpu_count() or 1


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass


def progress(show: bool, **kwargs: Any) -> Any:
    """A tqdm bar (rate and ETA) when ``show``, else a bar that does nothing."""
    if not show:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(dynamic_ncols=True, **kwargs)


def parallel_map(fn: Callable[[Any], Any], tasks: Iterable[Any],
                 workers: int | None) -> Iterator[Any]:
    """``fn`` over ``tasks`` on ``workers`` processes (None: one per core), in completion
    order, with at most two tasks per worker in flight so memory stays bounded."""
    n = cores() if workers is None or workers <= 0 else workers
    if n == 1:
        for t in tasks:
            yield fn(t)
        return
    import concurrent.futures as cf

    from ..processes import end_with_parent, pool_context

    # the workers end when the command does (kill PID, a crash), never left running
    with cf.ProcessPoolExecutor(n, mp_context=pool_context(),
                                initializer=end_with_parent,
                                initargs=(os.getpid(),)) as pool:
        pending: set[Any] = set()
        for t in tasks:
            pending.add(pool.submit(fn, t))
            if len(pending) >= 2 * n:
                done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                for f in done:
                    yield f.result()
        for f in cf.as_completed(pending):
            yield f.result()

"""An analysed table for SQL readers: joined with its input and unpacked, part by part.

An analysed folder keeps the input's columns in the input parts (joined by row position) and
the per-kind columns packed in ``kind_detail``; a reader without mjcore (DuckDB, polars,
Spark) sees neither. :func:`export` writes, for each part, one Parquet file with every column
of :func:`mjcore.dataset.read_table` (input columns, then the analysis columns, ``waits``,
``discard_shanten`` ... and the scores included), each 34-byte column as a list of 34
numbers instead (kind k at index k, so DuckDB's ``discard_shanten[k + 1]``). In
``discard_shanten`` and ``discard_ukeire`` a kind not held is null.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import MjcoreError
from .analysed_parts import iter_parts
from .common import part_files, write_table_atomic
from .hand_arrays import HAND_BYTES, per_kind
from .hands import NOT_HELD

# the 34-byte columns and the list type each becomes
KIND_LISTS = {"counts": "int8", "visible": "int8", "discard_shanten": "int8",
              "discard_ukeire": "uint8"}


def export(source: str, out: str) -> dict[str, int]:
    """Write the joined, unpacked parts of the analysed folder ``source`` into the new or
    empty folder ``out`` (same part names); returns ``{"parts": ..., "rows": ...}``. Memory
    holds one part at a time."""
    files = part_files(source)
    if not files:
        raise MjcoreError(f"{source}: no Parquet parts")
    os.makedirs(out, exist_ok=True)
    if part_files(out):
        raise MjcoreError(f"{out}: already holds Parquet parts; export into a new folder")
    rows = 0
    for path, part in zip(files, iter_parts(source), strict=True):
        table = flat_table(part)
        write_table_atomic(table, os.path.join(out, os.path.basename(path)))
        rows += table.num_rows
    return {"parts": len(files), "rows": rows}


def flat_table(table: Any) -> Any:
    """``table`` with each 34-byte column (``KIND_LISTS``) as a list of 34 numbers."""
    import pyarrow as pa

    def packed(name: str) -> bool:
        index = table.schema.get_field_index(name)
        return bool(index >= 0 and table.schema.field(index).type == pa.binary(HAND_BYTES))

    not_held = None      # the kinds not held, where the discard columns have them
    if packed("discard_shanten"):
        shanten = per_kind(table.column("discard_shanten").combine_chunks()).view(np.int8)
        not_held = (shanten == NOT_HELD).ravel()
    for name, dtype in KIND_LISTS.items():
        if not packed(name):
            continue
        index = table.schema.get_field_index(name)
        col = table.column(name).combine_chunks()
        values = per_kind(col)
        if name == "discard_shanten":
            values = values.view(np.int8)
        missing = not_held if name.startswith("discard_") else None
        flat = pa.array(values.astype(dtype).ravel(), mask=missing)
        offsets = pa.array(np.arange(0, HAND_BYTES * (len(col) + 1), HAND_BYTES,
                                     dtype=np.int32))
        lists = pa.ListArray.from_arrays(offsets, flat, mask=col.is_null())
        table = table.set_column(index, pa.field(name, lists.type), lists)
    return table


__all__ = ["KIND_LISTS", "export", "flat_table"]

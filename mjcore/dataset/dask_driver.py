"""The analysis on a Dask cluster: a client (a local cluster or a scheduler's address), the
parts submitted a few per worker at a time, a Dask DataFrame analysed partition by partition,
and an analysed folder read as a Dask DataFrame."""
from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from ..errors import MjcoreError
from .analysed_parts import read_part
from .analysis_columns import analysis_fields, analyze_table
from .common import cores, part_files

DASK_CONNECT_TIMEOUT = 30      # seconds to reach a scheduler given by address


def _pandas_part(frame: Any) -> Any:
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    return analyze_table(table, n_threads=1).to_pandas()


def analyze_dask_frame(ddf: Any) -> Any:
    import pyarrow as pa

    sample = pa.Table.from_pandas(ddf._meta, preserve_index=False)
    meta = pa.schema(list(sample.schema) + [f for f in analysis_fields()
                                             if f.name not in sample.column_names])
    return ddf.map_partitions(_pandas_part, meta=meta.empty_table().to_pandas())


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


def run_dask(address: Any, todo: Iterable[tuple[str, Any]], out: str, done: Any,
             ev: dict[str, Any] | None = None) -> None:
    from dask.distributed import as_completed

    from .analysis import analyze_part

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


__all__ = ["dask_client", "read_dask"]

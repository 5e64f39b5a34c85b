"""The table job on a Dask local cluster of two worker processes: identical, row for row, to
the in-process run."""
from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from mjcore.dataset.analysed_parts import read_table
from mjcore.dataset.analysis import analyze, analyze_dir
from mjcore.dataset.dask_driver import read_dask


def test_dask_local_cluster_matches_in_process(tmp_path, extract_table):
    distributed = pytest.importorskip("dask.distributed")
    dd = pytest.importorskip("dask.dataframe")
    src = tmp_path / "in"
    src.mkdir()
    table = extract_table.slice(0, 12000)
    step = table.num_rows // 4
    for i in range(4):
        pq.write_table(table.slice(i * step, step), src / f"part-{i:05d}.parquet")
    here = analyze_dir(str(src), str(tmp_path / "here"), workers=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        # by scheduler address, as `mjcore analyze DIR --out DIR2 --dask ADDRESS` does
        there = analyze_dir(str(src), str(tmp_path / "there"), dask=cluster.scheduler_address)
        assert client.status == "running"
        # the same on a Dask DataFrame: partitions analysed by the workers
        # (`players`: three-player rows are analysed without 2m-8m)
        frame = dd.read_parquet(str(src), columns=["closed", "n_melds", "visible", "action",
                                                   "tile", "players"])
        computed = analyze(frame).compute()
        # an analysed folder as a Dask DataFrame, joined with its input
        lazy = read_dask(str(tmp_path / "there"), ["game", "player", "shanten", "made_best"])
        assert lazy.npartitions == 4
        from_dask = lazy.compute().reset_index(drop=True)
    assert here.rows == there.rows == table.num_rows
    a, b = read_table(str(tmp_path / "here")), read_table(str(tmp_path / "there"))
    assert a.num_rows == b.num_rows and a.equals(b)
    expected = a.to_pandas()
    assert from_dask.equals(expected[["game", "player", "shanten", "made_best"]])
    assert computed.reset_index(drop=True)[["shanten", "best_ukeire", "acceptance_lost"]] \
        .equals(expected[["shanten", "best_ukeire", "acceptance_lost"]])

"""Bulk analysis of game records and tables of hands: extract, analyse, report, export.

``extract`` turns records into one row per decision, ``analyze`` adds shanten, waits, ukeire of
every discard, efficiency and scores through the batch kernels, ``report`` summarises an analysed
table, ``export`` writes it joined and unpacked for SQL readers. Each takes and returns Arrow
tables or pandas DataFrames (``analyze`` also Dask DataFrames), reads and writes folders of
Parquet parts, and runs on every core or on a Dask cluster. The columns are in SCHEMA.md. Needs
the ``dataset`` extra (pyarrow, pandas, matplotlib); Dask needs the ``dask`` extra.
"""
from __future__ import annotations

from .analysed_parts import read_table
from .analysis import analyze, analyze_dir
from .common import Problem
from .dask_driver import read_dask
from .exporting import export
from .extraction import extract
from .hand_arrays import per_kind
from .hands import analyze_hands
from .reporting import Report, build_report, plot_report, report

__all__ = ["Problem", "Report", "analyze", "analyze_dir", "analyze_hands", "build_report",
           "export", "extract", "per_kind", "plot_report", "read_dask", "read_table", "report"]

"""A command that needs an extra which is not installed says so in one line: the command, the
missing package and the pip command; never a traceback. A missing package is simulated in a
fresh interpreter by setting its sys.modules entry to None (its import then fails)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_RUN = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
from mjcore.cli import main
main(sys.argv[2:], prog_name="mjcore")
"""


def without(missing: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _RUN, missing, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def one_line(r: subprocess.CompletedProcess[str], command: str, extra: str, package: str) -> None:
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines == [f"Error: {command} needs the {extra} extra ({package} is missing): "
                     f"pip install 'mjcore[{extra}]'"], r.stderr


@pytest.mark.parametrize("missing", ["grpc", "google.protobuf"])
def test_analyze_server_without_the_client_extra(missing):
    r = without(missing, "analyze", "--server", "127.0.0.1:1", "123m456p789s1122z")
    one_line(r, "mjcore analyze --server", "client", missing)


def test_score_server_without_the_client_extra():
    r = without("grpc", "score", "123m456p789s11122z", "--win", "2z", "--server", "127.0.0.1:1")
    one_line(r, "mjcore score --server", "client", "grpc")


def test_analyze_dask_without_the_dask_extra(tmp_path):
    hands = tmp_path / "hands.txt"
    hands.write_text("123m456p789s1122z\n")
    r = without("dask,distributed", "analyze", str(hands), "--out", str(tmp_path / "o"),
                "--dask", "local", "--no-progress")
    assert "dask" in r.stderr and not (tmp_path / "o").exists()
    one_line(r, "mjcore analyze --dask", "dask", "dask.distributed")


def test_report_without_pandas_or_matplotlib(tmp_path):
    one_line(without("pandas", "report", str(tmp_path)), "mjcore report", "dataset", "pandas")
    r = without("matplotlib", "report", str(tmp_path), "--plots", str(tmp_path / "p"))
    one_line(r, "mjcore report --plots", "dataset", "matplotlib")


def test_extract_and_table_job_without_pyarrow(tmp_path):
    one_line(without("pyarrow", "extract", str(tmp_path), "--out", str(tmp_path / "o")),
             "mjcore extract", "dataset", "pyarrow")
    one_line(without("pyarrow", "analyze", str(tmp_path), "--out", str(tmp_path / "o")),
             "mjcore analyze --out", "dataset", "pyarrow")


def test_export_without_pyarrow(tmp_path):
    one_line(without("pyarrow", "export", str(tmp_path), "--out", str(tmp_path / "o")),
             "mjcore export", "dataset", "pyarrow")


@pytest.mark.parametrize("missing", ["starlette", "uvicorn"])
def test_web_without_the_web_extra(missing):
    one_line(without(missing, "web", "--port", "0"), "mjcore web", "web", missing)


def test_the_client_module_names_the_missing_package():
    """mjcore.client's own ImportError keeps the missing package's name (for callers that
    filter on it, as `mjcore serve` does)."""
    code = ("import sys; sys.modules['grpc'] = None\n"
            "try:\n    import mjcore.client\n"
            "except ImportError as e:\n    print(e.name)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=60, check=True)
    assert r.stdout.strip() == "grpc"

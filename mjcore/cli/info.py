"""``mjcore info``: the version, what the kernels were built for and what this CPU runs."""
from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version

import click


@click.command("info")
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
def info_cmd(as_json: bool) -> None:
    """The instruction set the compiled kernels run with, against what this CPU can run."""
    from ..build import build_info

    try:
        ver = version("mjcore")
    except PackageNotFoundError:
        ver = "unknown"
    b = build_info()
    if as_json:
        click.echo(json.dumps({"version": ver, **b}))
        return
    click.echo(f"mjcore {ver}")
    built = ", ".join([b["level"] if b["march"] != "dispatch" else "x86-64"]
                      + list(b.get("levels") or []))
    click.echo(f"kernels   {b['level']}{' (forced by MJCORE_SIMD)' if b['forced'] else ''}, "
               f"built: {built} (MJCORE_MARCH={b['march']}"
               f"{', debug' if b.get('debug') else ''}) in {b['folder']}")
    for name in b["mismatch"]:
        click.echo(f"mismatch  {name} runs {b['kernel_levels'][name]} code, not {b['level']}: "
                   "rebuild (make build)")
    click.echo(f"this CPU  {', '.join(b['cpu_levels']) or 'not x86-64'}")
    missing = [k for k, path in b["kernels"].items() if path is None]
    if missing:
        click.echo(f"missing   {', '.join(missing)} (not built: make build)")
    if b["slow"] and b["forced"]:
        click.echo(f"note      MJCORE_SIMD holds the kernels at {b['level']}; this CPU runs "
                   f"{b['cpu_levels'][-1]}")
    elif b["slow"]:
        click.echo(f"note      this CPU runs {b['cpu_levels'][-1]}; the kernels were built for "
                   f"{b['level']}: rebuild with MJCORE_MARCH=dispatch (the default) for full speed")

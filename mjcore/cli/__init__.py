"""The ``mjcore`` command. Each subcommand lives in its own module of this package."""
from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from ..errors import MjcoreError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mjcore")
def main() -> None:
    """mjcore: fast mahjong hand analysis, scoring, a gRPC service and game engines."""


MAX_JOBS = 256
JOBS = click.IntRange(1, MAX_JOBS)  # --jobs: worker processes, each a fork of this one


def fail(as_json: bool, text: str, e: MjcoreError) -> NoReturn:
    """Report the error ``e`` about the input ``text`` (with --json a JSON line on stdout, else a
    line on stderr) and exit with status 1."""
    reason = getattr(e, "reason", "invalid")
    if as_json:
        click.echo(json.dumps({"input": text, "error": {"reason": reason, "message": str(e)}},
                              ensure_ascii=False))
    else:
        click.echo(f"error: {e} [{reason}]", err=True)
    sys.exit(1)


def _register() -> None:
    from . import (
        analyze,  # noqa: F401  (each module adds its commands to `main`)
        extract,  # noqa: F401
        play,  # noqa: F401
        replay,  # noqa: F401
        report,  # noqa: F401
        score,  # noqa: F401
        serve,  # noqa: F401
    )


_register()

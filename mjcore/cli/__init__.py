"""The ``mjcore`` command: the group and its subcommands, one module per command (a command
that differs by game finds the game in the registry, ``mjcore.games``, and calls its module
beside it, e.g. ``score_riichi``, ``score_classical``); the helpers they share are in
``common``."""
from __future__ import annotations

import click

from . import analyze, export, extract, info, play, replay, report, score, serve, web


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mjcore")
def main() -> None:
    """mjcore: fast mahjong hand analysis, scoring, a gRPC service and game engines."""
    from .. import KERNELS_UNAVAILABLE

    if KERNELS_UNAVAILABLE is not None:
        raise click.ClickException(str(KERNELS_UNAVAILABLE))


for _command in (analyze.analyze, export.export, extract.extract, info.info_cmd,
                 play.play_cmd, replay.replay_cmd, report.report, score.score_command,
                 serve.serve, web.web):
    main.add_command(_command)

__all__ = ["main"]

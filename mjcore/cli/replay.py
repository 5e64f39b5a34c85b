"""``mjcore replay``: replay real or self-play records through their game's engine and check
them. Each record is told by its content (the game registry's ``record_kind``); the game's
replay is its own: riichi's in ``replay_riichi``, the classical game's in ``replay_classical``."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click

from .common import JOBS


@click.command("replay")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--rules", "preset", default=None,
              help="Rule preset (default: from each record: the Tenhou lobby flags, or the "
                   "rules named in an mjai record).")
@click.option("--allow", "allow_file", type=click.Path(exists=True), default=None,
              help="JSON file of known disagreements ({name: reason}) that do not fail the run.")
@click.option("--jobs", "-j", default=1, show_default=True, type=JOBS,
              help="Worker processes.")
@click.option("--json", "as_json", is_flag=True, help="One JSON line per record.")
@click.option("--show", default=10, show_default=True, help="Disagreements printed in full.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="A running count of records on stderr.")
def replay_cmd(paths: tuple[str, ...], preset: str | None, allow_file: str | None, jobs: int,
               as_json: bool, show: int, progress: bool) -> None:
    """Replay mjlog files, mjai records (also tenhou.net/6 JSON as written by `mjcore play`),
    directories or .tar.xz archives; exit 1 on any disagreement (three-player records replay
    under three-player rules). Bradfield hand histories (.mjs files, folders, .tar.xz) and
    classical JSON-lines records, told by their content, replay through the classical engine."""
    game, kind = _records_game(paths)
    game.entry("replay")(paths=paths, kind=kind, preset=preset,
                         allowed=_read_allow(allow_file) if allow_file else {}, jobs=jobs,
                         as_json=as_json, show=show, progress=progress)


def _records_game(paths: Sequence[str]) -> tuple[Any, str | None]:
    """The game and the kind of the records under ``paths``, each told by its own content
    (the registry's ``record_kind``); the default game when none is told (its replay
    reports what it cannot read). A mix of kinds is refused, naming one of each."""
    from ..engine.sources import MAX_RECORD_BYTES
    from ..files import walk_inputs
    from ..games import GAMES, default_game, games_offering, record_suffixes

    sniffers = [(g, g.entry("record_kind")) for g in games_offering("record_kind")]
    kinds: dict[tuple[str, str, str], str] = {}   # (game, kind, words) -> its first record
    suffixes = record_suffixes()
    for name, data, _done in walk_inputs(paths, lambda n: n.endswith(suffixes),
                                         max_bytes=MAX_RECORD_BYTES):
        if not isinstance(data, bytes):
            continue                      # reported by the replay that reads it
        head = data[:4096].decode("utf-8", "replace")
        for game, record_kind in sniffers:
            told = record_kind(name, head)
            if told is not None:
                kinds.setdefault((game.name, *told), name)
                break
    if len(kinds) > 1:
        mix = " and ".join(f"{words} ({n})" for (_g, _k, words), n in kinds.items())
        raise click.ClickException(f"the paths hold {mix}: replay each kind in a separate run")
    if not kinds:
        return default_game(), None
    game_name, kind, _words = next(iter(kinds))
    return GAMES[game_name], kind


def _read_allow(path: str) -> dict[str, str]:
    """The --allow file: a JSON object {record name: reason}."""
    try:
        with open(path, encoding="utf-8") as f:
            allowed = json.load(f)
    except (OSError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"--allow {path!r}: cannot read it ({exc})") from None
    except json.JSONDecodeError as exc:
        raise click.ClickException(f"--allow {path!r}: not JSON (line {exc.lineno} column "
                                   f"{exc.colno}: {exc.msg})") from None
    if not isinstance(allowed, dict):
        raise click.ClickException(f"--allow {path!r}: expected a JSON object "
                                   "{record name: reason}, got a JSON "
                                   f"{type(allowed).__name__}")
    return {str(k): str(v) for k, v in allowed.items()}



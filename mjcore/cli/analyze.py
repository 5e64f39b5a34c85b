"""``mjcore analyze``: shanten, waits and the ukeire table of hands, for people or programs."""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any

import click

from ..games import game_of, or_list, presets_offering
from .common import RulesOption, client_options, connect_client, rules_of_command

PROGRESS_MIN_LINES = 1000
MAX_LINE_CHARS = 4096  # a hand with melds and bonus tiles is under 100
_COMPACT = (",", ":")


class _Source:
    """One input hand: where it came from and its text."""

    __slots__ = ("line", "text", "where")

    def __init__(self, where: str, line: int, text: str) -> None:
        self.where = where
        self.line = line
        self.text = text


def _lines(stream: IO[str], name: str) -> Iterator[_Source]:
    for n, raw in enumerate(iter(lambda: stream.readline(MAX_LINE_CHARS + 1), ""), 1):
        if len(raw) > MAX_LINE_CHARS and not raw.endswith("\n"):
            raise click.ClickException(f"{name} line {n}: longer than {MAX_LINE_CHARS} characters")
        text = raw.strip()
        if text and not text.startswith("#"):
            yield _Source(f"{name} line {n}", n, text)


def _count_lines(path: str) -> int:
    with open(path, "rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))


def _sources(hands: tuple[str, ...], files: tuple[str, ...]
             ) -> tuple[Iterator[_Source], int | None]:
    """All inputs in order, and their total line count when it is cheap to know."""
    total: int | None = len(hands)
    parts: list[Iterable[_Source]] = []
    last: _Source | None = None
    for i, text in enumerate(hands, 1):
        if text == "-":
            total = None
            last = None
            parts.append(_lines(sys.stdin, "<stdin>"))
        elif last is not None and _only_melds(text):
            # `analyze 23m406p789s11z 'pon:555z<2'`: melds belong to the hand before them.
            last.text += " " + text
            total = None if total is None else total - 1
        else:
            last = _Source(f"argument {i}", i, text)
            parts.append([last])
    for path in files:
        if path == "-":
            total = None
            parts.append(_lines(sys.stdin, "<stdin>"))
            continue
        _refuse_binary(path)
        if total is not None:
            total += _count_lines(path)
        parts.append(_file_lines(path))

    def chain() -> Iterator[_Source]:
        for part in parts:
            yield from part

    return chain(), total


def _only_melds(text: str) -> bool:
    tokens = text.split()
    return bool(tokens) and all(":" in t for t in tokens)


def _file_lines(path: str) -> Iterator[_Source]:
    with open(path, encoding="utf-8", errors="replace") as f:
        yield from _lines(f, path)


def _refuse_binary(path: str) -> None:
    """Refuse a regular file that is not text (a NUL byte, or not UTF-8, in its first 64 KiB)
    before anything of it is read as hands."""
    import stat

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return                  # a pipe (`--file <(...)`) is read as it comes
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError as e:
        raise click.ClickException(f"--file {path!r}: cannot read it ({e.strerror or e})") \
            from None
    nul = head.find(b"\0")
    if nul >= 0:
        raise click.ClickException(f"--file {path!r}: a binary file (byte {nul} is NUL), not "
                                   "lines of hands")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        if len(head) < 1 << 16 or e.start < len(head) - 3:   # not a character cut at 64 KiB
            raise click.ClickException(f"--file {path!r}: not UTF-8 text (byte {e.start}), "
                                       "not lines of hands") from None


MAX_SHOWN_ERRORS = 100
"""Failed hands reported one by one on stderr; the rest are counted."""


def printable(text: str) -> str:
    """``text`` with control characters (and other unprintables) escaped, for a terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# -- analysis -----------------------------------------------------------------------------------

def _wait_list(waits: Any) -> list[dict[str, Any]]:
    from ..tiles import TILE_NAMES

    return [{"tile": TILE_NAMES[w.tile], "remaining": w.remaining} for w in waits]


def analyse_hand(text: str, visible: list[int], client: Any = None, rules: object = None,
                 rules_name: str | None = None) -> dict[str, Any]:
    """Everything ``analyze`` shows for one hand, as plain data (the ``--json`` object).
    With ``client`` (a ``mjcore.client.Client``) the analysis runs on the server. ``rules``:
    a preset name or rules value (None: riichi); classical rules name their forms seven_pairs
    and thirteen_orphans and add ``"rules"`` (``rules_name``, else ``rules``) to the record."""
    from .. import analysis
    from ..hand import Hand
    from ..tiles import format_tiles

    hand = Hand.parse(text)
    size = hand.require_tiles(13, 14)
    remote = client.analyze(text, format_tiles(visible), rules=rules) \
        if client is not None else None
    sh = remote.shanten if remote else analysis.shanten(hand, rules)
    classical = rules is not None and analysis.resolve_rules(rules)[1] is not None
    record: dict[str, Any] = {
        "hand": str(hand),
        "unicode": hand.format(unicode=True),
        "n_tiles": size,
        "n_melds": hand.n_melds,
        "shanten": {
            "min": int(sh),
            "standard": sh.standard,
            "seven_pairs": sh.seven_pairs,
            "thirteen_orphans": sh.thirteen_orphans,
        } if classical else {
            "min": int(sh),
            "standard": sh.standard,
            "chiitoitsu": sh.chiitoitsu,
            "kokushi": sh.kokushi,
        },
    }
    if classical:
        record = {"rules": rules_name or rules, **record}
    uk = remote.ukeire if remote else analysis.ukeire(hand, visible=visible, rules=rules)
    options = []
    for opt in uk.options:
        options.append({
            "discard": None if opt.discard is None else _name(opt.discard),
            "shanten": int(opt.shanten),
            "tiles": _wait_list(opt.tiles),
            "count": int(opt.remaining),
        })
    if size == 13:
        w = remote.waits if remote else analysis.waits(hand, visible=visible, rules=rules)
        record["tenpai"] = bool(w.tenpai)
        record["waits"] = _wait_list(w.tiles) if w.tenpai else []
    else:
        record["complete"] = int(sh) == -1
        record["tenpai_discards"] = [
            {"discard": o["discard"], "waits": o["tiles"], "count": o["count"]}
            for o in options if o["shanten"] == 0 and o["tiles"]
        ]
    record["ukeire"] = options
    return record


def _name(kind: int) -> str:
    from ..tiles import tile_name

    return tile_name(kind)


# -- output -------------------------------------------------------------------------------------

def _tiles_text(tiles: list[dict[str, Any]]) -> str:
    from ..tiles import format_tiles, parse_tile

    return format_tiles([parse_tile(t["tile"]) for t in tiles], sort=False) or "-"


def _waits_text(tiles: list[dict[str, Any]]) -> str:
    return " ".join(f"{t['tile']}({t['remaining']})" for t in tiles)


def _form(value: int | None) -> str:
    return "-" if value is None else str(value)


def render(record: dict[str, Any], label: str) -> str:
    """The person-readable block for one analysed hand."""
    sh = record["shanten"]
    lines = [f"{label}: {record['hand']}", f"  tiles    {record['unicode']}"]
    state = {-1: "complete", 0: "tenpai"}.get(sh["min"], f"{sh['min']}-shanten")
    forms = ", ".join(f"{name.replace('_', ' ')} {_form(value)}"
                      for name, value in sh.items() if name != "min")
    lines.append(f"  shanten  {sh['min']} ({state}); {forms}")
    if record["n_tiles"] == 13:
        if record["tenpai"]:
            total = sum(t["remaining"] for t in record["waits"])
            lines.append(f"  waits    {_waits_text(record['waits'])}  ({total} tiles)")
        opt = record["ukeire"][0] if record["ukeire"] else None
        if opt is not None and not record["tenpai"]:
            lines.append(f"  ukeire   {_tiles_text(opt['tiles'])}  ({opt['count']} tiles)")
            if opt["tiles"]:
                lines.append(f"           {_waits_text(opt['tiles'])}")
        return "\n".join(lines)
    for t in record["tenpai_discards"]:
        lines.append(f"  tenpai   discard {t['discard']}: waits {_waits_text(t['waits'])}"
                     f"  ({t['count']} tiles)")
    lines.append("  discard  shanten  count  advancing tiles")
    for opt in record["ukeire"]:
        lines.append(f"  {opt['discard'] or '-':<7}  {opt['shanten']:>7}  {opt['count']:>5}  "
                     f"{_tiles_text(opt['tiles'])}")
    return "\n".join(lines)


# -- command ------------------------------------------------------------------------------------

@click.command()
@click.argument("hands", nargs=-1, metavar="HAND...")
@click.option("--file", "-f", "files", multiple=True, metavar="PATH",
              type=click.Path(dir_okay=False, allow_dash=True, exists=True),
              help="Read hands from PATH, one per line (blank lines and # comments skipped).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object per hand (errors too) instead of text.")
@click.option("--visible", default="", metavar="TILES",
              help="Tiles already seen (discards, melds, dora indicators), e.g. '1z1z5m'.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: for more than 1000 lines on a terminal).")
@click.option("--rules", "rules_name", default="riichi", show_default=True, metavar="NAME",
              cls=RulesOption,
              help="Winning forms and tile set of a game: riichi or a preset, {presets} "
                   "(a three-player preset: no 2m-8m, no chi; Chinese classical: four sets "
                   "and a pair, Thirteen Unique Wonders, bonus tiles 1f-8f beside the hand).")
@click.option("--set", "rule_set", multiple=True, metavar="OPTION=VALUE",
              help="Change a rule option of --rules, e.g. classical --set seven_pairs=true "
                   "(repeatable).")
@click.option("--server", metavar="HOST:PORT", envvar="MJCORE_SERVER",
              help="Run the analysis on a `mjcore serve` server. [env MJCORE_SERVER; the "
                   "token, if any, from MJCORE_TOKEN]")
@client_options
@click.option("--out", "out_dir", metavar="DIR", type=click.Path(file_okay=False),
              help="Table job: analyse SOURCE (a folder of Parquet parts from `mjcore "
                   "extract`, or a Parquet, CSV or text file) into Parquet parts in DIR.")
@click.option("--dask", metavar="ADDRESS",
              help="Table job on the Dask scheduler at ADDRESS, or 'local' for a local "
                   "cluster (default: every core of this machine).")
@click.option("--workers", "-j", default=0, type=click.IntRange(0),
              help="Table job: parts analysed at a time in-process (0: one per core).")
@click.option("--ev", "with_ev", is_flag=True,
              help="Riichi: also the expected value of each discard (win %, tenpai %, "
                   "expected score; mjcore/riichi/ev.md).")
@click.option("--model", "ev_model", type=click.Choice(["consistent", "compatible"]),
              default="consistent", show_default=True,
              help="With --ev: true probabilities of one best-score policy (consistent), or "
                   "mahjong-cpp 0.9.8's model number for number (compatible).")
@click.option("--turn", default=1, type=click.IntRange(1, 24), show_default=True,
              help="With --ev: the turn whose values the table shows (1 = the next draw).")
@click.option("--dora", "dora_text", default="", metavar="TILES",
              help="With --ev: the dora indicators, e.g. '3z5p'.")
@click.option("--round", "round_wind", default="E", show_default=True,
              type=click.Choice(["E", "S", "W", "N"], case_sensitive=False),
              help="With --ev: the round wind.")
@click.option("--seat", "seat_wind", default="E", show_default=True,
              type=click.Choice(["E", "S", "W", "N"], case_sensitive=False),
              help="With --ev: the seat wind (E is the dealer).")
@click.option("--t-max", default=18, type=click.IntRange(1, 24), show_default=True,
              help="With --ev: the draws left in the model.")
@click.option("--extra", default=1, type=click.IntRange(0, 4), show_default=True,
              help="With --ev: how far the search may leave the greedy line.")
@click.option("--red/--no-red", "ev_red", default=True, show_default=True,
              help="With --ev: red fives as dora and as their own discards.")
@click.option("--ura/--no-ura", "ev_ura", default=True, show_default=True,
              help="With --ev: expected ura dora after riichi.")
@click.option("--shanten-down/--no-shanten-down", default=True, show_default=True,
              help="With --ev: consider discards that raise the shanten (向聴戻し).")
@click.option("--tegawari/--no-tegawari", default=True, show_default=True,
              help="With --ev: consider draws that keep the shanten (手変わり).")
@click.option("--max-shanten", default=3, type=click.IntRange(-1, 6), show_default=True,
              help="With --ev: hands above this shanten are not searched (with --out: their "
                   "rows get ev_status ev_shanten_too_high).")
@click.option("--max-nodes", default=None, type=click.IntRange(1, 50_000_000),
              help="With --ev: the search's node budget (default: 2,000,000 a hand, 200,000 a "
                   "row with --out; past it: ev_node_budget).")
@click.option("--max-seconds", default=None, type=click.FloatRange(0, 600, min_open=True),
              callback=lambda _ctx, param, v: _a_number(param, v),
              help="With --ev: the search's deadline in seconds (default 1; with --out a "
                   "row's CPU time; with --server the call's deadline).")
@click.option("--ev-chart", "ev_chart", metavar="FILE.png", type=click.Path(dir_okay=False),
              help="With --ev and one hand: draw win probability and expected score by turn "
                   "for the best discards.")
def analyze(hands: tuple[str, ...], files: tuple[str, ...], as_json: bool, visible: str,
            progress: bool | None, server: str | None, token_file: str | None = None,
            tls: bool = False, ca_file: str | None = None, cert_file: str | None = None,
            key_file: str | None = None, out_dir: str | None = None,
            dask: str | None = None, workers: int = 0, rules_name: str = "riichi",
            rule_set: tuple[str, ...] = (), with_ev: bool = False, turn: int = 1,
            dora_text: str = "", round_wind: str = "E", seat_wind: str = "E", t_max: int = 18,
            extra: int = 1, ev_red: bool = True, ev_ura: bool = True,
            shanten_down: bool = True, tegawari: bool = True, max_shanten: int = 3,
            max_nodes: int | None = None, max_seconds: float | None = None,
            ev_chart: str | None = None, ev_model: str = "consistent") -> None:
    """Analyse hands: tiles, shanten by form, waits and the ukeire table.

    HAND is mpsz text such as 123m406p789s1122z, with melds after spaces
    ('23m406p789s11z pon:555z<2'); '-' reads hands from stdin, one per line.
    A 14-tile hand lists every discard with its shanten and advancing tiles, best first.
    Bad hands are reported with their line number and the rest still run; the exit
    status is 1 if any hand failed.
    """
    from ..errors import MjcoreError

    rules = _command_rules(rules_name, rule_set)
    if not with_ev:
        _needs_ev("t_max", "extra", "ev_red", "ev_ura", "shanten_down", "tegawari",
                  "max_shanten", "max_nodes", "max_seconds", "ev_model", "turn",
                  "round_wind", "seat_wind")
    if out_dir is not None or dask is not None:     # the table job (mjcore.dataset)
        if rules is not None:
            raise click.UsageError(f"--rules {rules_name} analyses one hand at a time, here "
                                   "or with --server; --out and --dask analyse four-player "
                                   "riichi hands")
        per_hand = [name for name in ("visible", "turn", "dora_text", "round_wind",
                                      "seat_wind", "ev_chart") if _given(name)]
        if per_hand:
            flags = ", ".join(_flag(name) for name in per_hand)
            raise click.UsageError(f"{flags}: the table job (--out, --dask) takes "
                                   f"{'it' if len(per_hand) == 1 else 'them'} from each record")
        from .extract import analyze_table_job

        ev = None
        if with_ev:
            from ..dataset.expected import EvOptions

            try:
                ev = EvOptions(
                    t_max=t_max, max_shanten=max_shanten, model=ev_model, extra=extra,
                    red=ev_red, ura=ev_ura, shanten_down=shanten_down, tegawari=tegawari,
                    max_nodes=EvOptions.max_nodes if max_nodes is None else max_nodes,
                    max_seconds=EvOptions.max_seconds if max_seconds is None else max_seconds)
            except MjcoreError as e:
                raise click.UsageError(str(e)) from None
        analyze_table_job(hands, out_dir, dask, workers, progress, ev)
        return
    if not hands and not files:
        raise click.UsageError("give at least one HAND, '-' for stdin, or --file PATH")
    ev_options: dict[str, Any] = {}
    if with_ev:
        if not game_of(rules_name).offers("expected_value"):
            raise click.UsageError(f"--ev: --rules {rules_name} has no expected-value model "
                                   f"(the presets with one: "
                                   f"{or_list(presets_offering('expected_value'))})")
        if turn > t_max:
            raise click.BadParameter(f"turn {turn} is past --t-max {t_max}",
                                     param_hint="--turn")
        ev_options = {"rules_name": rules_name, "visible": visible, "dora": dora_text,
                      "round_wind": round_wind, "seat_wind": seat_wind, "t_max": t_max,
                      "extra": extra, "red": ev_red, "ura": ev_ura,
                      "shanten_down": shanten_down, "tegawari": tegawari,
                      "max_shanten": max_shanten, "model": ev_model,
                      "max_nodes": max_nodes, "max_seconds": max_seconds}
    elif ev_chart or dora_text:
        raise click.UsageError("--dora and --ev-chart go with --ev")
    seen = _visible_kinds(visible)
    sources, total = _sources(hands, files)
    bar = _progress_bar(progress, total)
    client, server_errors = _server_client(server, token_file, tls, ca_file, cert_file,
                                           key_file)
    ev_of = _ev_runner(**ev_options, client=client) if with_ev else None
    printer = _HandPrinter(as_json, turn, ev_chart, bar)
    try:
        for src in sources:
            try:
                record = analyse_hand(src.text, seen, client, rules, rules_name)
                ev = ev_of(src.text) if ev_of is not None else None
            except server_errors as e:      # the server, not the hand: stop here
                raise click.ClickException(str(e)) from None
            except MjcoreError as e:
                printer.failure(src, e)
            else:
                printer.success(src, record, ev)
    finally:
        if bar is not None:
            bar.close()
        if client is not None:
            client.close()
        printer.out.flush()
    printer.exit_if_failed()


def _command_rules(rules_name: str, rule_set: tuple[str, ...]) -> object:
    """The rules ``--rules`` and ``--set`` name, in the form the analysis takes fastest: None
    when they are the default's (four-player riichi), the rules value when ``--set`` changed
    them, else the preset name."""
    from ..analysis import ALL_KINDS, kinds_in_play, resolve_rules

    _game, rules = rules_of_command(rules_name, rule_set)
    if rule_set:
        return rules
    if resolve_rules(rules_name) == resolve_rules(None) and kinds_in_play(rules_name) == ALL_KINDS:
        return None
    return rules_name


def _a_number(param: click.Parameter, value: float | None) -> float | None:
    """``value`` unless it is NaN (which passes a FloatRange)."""
    if value is not None and value != value:
        raise click.BadParameter("nan is not a number of seconds", param=param)
    return value


def _given(name: str) -> bool:
    """The option ``name`` (its parameter's name) was given on the command line."""
    source = click.get_current_context().get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def _flag(name: str) -> str:
    """The command line's spelling of the parameter ``name``."""
    for param in click.get_current_context().command.params:
        if param.name == name and param.opts:
            return param.opts[0]
    return name


def _needs_ev(*names: str) -> None:
    """A usage error when one of these --ev options was given without --ev."""
    given = [_flag(n) for n in names if _given(n)]
    if given:
        raise click.UsageError(f"{', '.join(given)} go{'es' if len(given) == 1 else ''} "
                               "with --ev")


def _visible_kinds(visible: str) -> list[int]:
    """The ``--visible`` tiles as kinds; a bad tile or a fifth copy is a bad parameter."""
    from ..errors import MjcoreError
    from ..tiles import parse_kinds

    try:
        seen = parse_kinds(visible) if visible else []
    except MjcoreError as e:
        raise click.BadParameter(str(e), param_hint="--visible") from None
    over = sorted({k for k in seen if seen.count(k) > 4})
    if over:
        from ..tiles import tile_name

        raise click.BadParameter(
            f"{visible!r} has more than four copies of {', '.join(map(tile_name, over))}",
            param_hint="--visible")
    return seen


def _progress_bar(progress: bool | None, total: int | None) -> Any:
    """A tqdm bar on stderr when asked for, or by default for many lines on a terminal."""
    show = progress if progress is not None else (
        sys.stderr.isatty() and (total is None or total > PROGRESS_MIN_LINES))
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="hand", file=sys.stderr, dynamic_ncols=True,
                delay=0 if progress else 0.5)


def _server_client(server: str | None, token_file: str | None, tls: bool,
                   ca_file: str | None, cert_file: str | None, key_file: str | None
                   ) -> tuple[Any, tuple[type[Exception], ...]]:
    """The ``--server`` client (None without it) and the errors that are the server's, not
    a hand's; the client options without --server are a usage error."""
    if server:
        client = connect_client(server, "mjcore analyze --server", token_file, tls, ca_file,
                                cert_file, key_file)
        from ..client import ServiceError

        return client, (ServiceError,)
    if token_file or tls or ca_file or cert_file or key_file:
        raise click.UsageError("--token-file, --tls, --ca, --cert and --key go with --server")
    return None, ()


class _HandPrinter:
    """Writes each hand's analysis (text blocks or JSON lines), counts the failures and
    moves the progress bar on."""

    def __init__(self, as_json: bool, turn: int, ev_chart: str | None, bar: Any) -> None:
        self.out = sys.stdout
        self.as_json = as_json
        self.turn = turn
        self.ev_chart = ev_chart
        self.bar = bar
        self.failed = 0
        self.first_block = True

    def failure(self, src: _Source, err: Exception) -> None:
        self.failed += 1
        reason = getattr(err, "reason", "invalid")
        if self.failed <= MAX_SHOWN_ERRORS:
            _report_error(src, err, reason, self.bar)
        if self.as_json:
            self.out.write(json.dumps({
                "source": src.where, "line": src.line, "input": src.text,
                "error": {"reason": reason, "position": getattr(err, "position", None),
                          "message": str(err)}}, separators=_COMPACT) + "\n")
        self._advance()

    def success(self, src: _Source, record: dict[str, Any], ev: Any) -> None:
        if self.as_json:
            record = {"source": src.where, "line": src.line, "input": src.text, **record}
            if ev is not None:
                record["ev"] = ev.to_dict()
            self.out.write(json.dumps(record, ensure_ascii=False, separators=_COMPACT) + "\n")
        else:
            if not self.first_block:
                self.out.write("\n")
            self.out.write(render(record, src.where) + "\n")
            if ev is not None:
                self.out.write("expected value\n" + ev.table(self.turn) + "\n")
            self.first_block = False
        if ev is not None and self.ev_chart:
            _draw_ev_chart(ev, self.ev_chart)
            self.ev_chart = None         # the first hand's
        self._advance()

    def _advance(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def exit_if_failed(self) -> None:
        if self.failed:
            rest = self.failed - MAX_SHOWN_ERRORS
            click.echo(f"{self.failed} hand(s) failed"
                       + (f" ({rest} more not shown)" if rest > 0 else ""), err=True)
            sys.exit(1)


def _ev_runner(rules_name: str, visible: str, dora: str, round_wind: str, seat_wind: str,
               t_max: int, extra: int, red: bool, ura: bool, shanten_down: bool,
               tegawari: bool, max_shanten: int = 3, model: str = "consistent",
               max_nodes: int | None = None, max_seconds: float | None = None,
               client: Any = None) -> Any:
    """The expected value of one hand's text with the command's options; with ``client``
    (a ``mjcore.client.Client``) computed on its server, the same ``ExpectedValues``
    (``max_seconds`` its call's deadline). None: the default."""
    game = game_of(rules_name)
    rules = game.preset(rules_name).name    # the preset the alias stands for
    compute: Any = game.entry("expected_value") if client is None else client.expected_values
    bounds: dict[str, Any] = {} if max_nodes is None else {"max_nodes": max_nodes}
    if max_seconds is not None:
        bounds["max_seconds" if client is None else "timeout"] = max_seconds

    def run(text: str) -> Any:
        return compute(text, dora=dora, round_wind=round_wind, seat_wind=seat_wind,
                               visible=visible or None, rules=rules, t_max=t_max, extra=extra,
                               red=red, ura=ura, shanten_down=shanten_down, tegawari=tegawari,
                               max_shanten=max_shanten, model=model, **bounds)
    return run


def _draw_ev_chart(ev: Any, path: str, top: int = 5) -> None:
    """Win probability and expected score by turn for the best discards, one line each."""
    try:
        import matplotlib
    except ImportError:
        raise click.ClickException("--ev-chart needs matplotlib: pip install "
                                   "'mjcore[dataset]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    best = [d for d in ev.discards if d.evaluated][:top]
    if not best:
        raise click.ClickException(f"--ev-chart: nothing to draw ({ev.message})")
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    turns = list(range(1, ev.t_max + 1))
    for d in best:
        label = f"discard {d.tile}" if d.tile else "this hand"
        left.plot(turns, [100 * w for w in d.win], marker="o", markersize=3, label=label)
        right.plot(turns, d.ev, marker="o", markersize=3, label=label)
    left.set_ylabel("win probability (%)")
    right.set_ylabel("expected score (points)")
    for ax in (left, right):
        ax.set_xlabel("turn (1 = the next draw)")
        ax.set_xticks(turns)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"{ev.hand}: the {len(best)} best discards by expected score "
                 f"({ev.nodes:,} nodes; the one-player {ev.model} model)", fontsize=10)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as e:
        raise click.ClickException(f"--ev-chart {path}: {e.strerror or e}") from None
    finally:
        plt.close(fig)


def _report_error(src: _Source, err: Exception, reason: str, bar: Any) -> None:
    message = printable(f"error: {src.where}: {err} [{reason}]")
    if bar is not None:
        bar.write(message, file=sys.stderr)
    else:
        click.echo(message, err=True)

"""What the commands of ``mjcore`` share: the --jobs range, the --server client and its options,
``--set`` rule changes, error lines, and the agents, records and worker pool of ``mjcore play``.
It imports no command module."""
from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

if TYPE_CHECKING:
    from ..errors import MjcoreError
    from ..options import RuleOptions

Task = TypeVar("Task")
F = TypeVar("F", bound=Callable[..., Any])


MAX_JOBS = 256
JOBS = click.IntRange(1, MAX_JOBS)  # --jobs: worker processes, each a fork of this one


# what `mjcore.client` imports (the client extra): grpcio, its health checking, protobuf and
# googleapis-common-protos
CLIENT_MODULES = ("grpc", "grpc_health.v1.health_pb2", "google.protobuf",
                  "google.rpc.status_pb2")


def need_extra(extra: str, command: str, *modules: str) -> None:
    """Import ``modules``, the packages of the extra ``extra`` that ``command`` needs; when one
    will not import (not installed, or a dependency of it missing) the command stops with one
    line naming the extra to install, before any work and never with a traceback."""
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as err:
            raise click.ClickException(
                f"{command} needs the {extra} extra ({err.name or module} is missing): "
                f"pip install 'mjcore[{extra}]'") from None


def server_address(server: str) -> str:
    """The --server value when it is HOST:PORT (a port 1-65535; an IPv6 host in brackets);
    otherwise one line saying the address is malformed (not that it is unreachable)."""
    host, colon, port = server.strip().rpartition(":")
    why = None
    if not colon or not host:
        why = "expected HOST:PORT, e.g. 127.0.0.1:50051 (the port is required)"
    elif not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        why = f"the port {port!r} is not a number 1-65535"
    elif ":" in host and not (host.startswith("[") and host.endswith("]")):
        why = "write an IPv6 host in brackets, e.g. [::1]:50051"
    if why:
        raise click.BadParameter(f"{server!r} is not a server address: {why}",
                                 param_hint="--server")
    return server.strip()


def bearer_token(token_file: str | None) -> str | None:
    """The token of --token-file (its first line), else $MJCORE_TOKEN, else None; an empty
    first line is one error naming the file."""
    if not token_file:
        return os.environ.get("MJCORE_TOKEN") or None
    with open(token_file, encoding="utf-8") as f:
        token = f.readline().strip()
    if not token:
        raise click.BadParameter(f"{token_file!r}: the first line is empty",
                                 param_hint="--token-file")
    return token


def connect_client(server: str, command: str, token_file: str | None, tls: bool,
                   ca_file: str | None, cert_file: str | None, key_file: str | None) -> Any:
    """The --server client of ``command``, checked: a malformed address, a missing client
    extra, an unreachable server (nothing listening, a failed TLS handshake) or a refused
    token is one line, fast, not an error per call and never a traceback."""
    import os

    server = server_address(server)
    # grpc core logs a failed TLS handshake to stderr itself; the command says it in one line
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    need_extra("client", command, *CLIENT_MODULES)
    from ..client import Client, ServiceError

    if (cert_file is None) != (key_file is None):
        raise click.UsageError("--cert and --key go together (mutual TLS)")
    token = bearer_token(token_file)
    client = Client(server, token=token, tls=tls, root_certificates=ca_file,
                    client_cert=cert_file, client_key=key_file, retries=1)
    try:
        client.check()
    except ServiceError as exc:
        client.close()
        raise click.ClickException(str(exc)) from None
    return client


def client_options(command: F) -> F:
    """The options of a command's --server client beside --server itself: the token file and
    TLS (the same for every command that asks a server)."""
    path = click.Path(exists=True, dir_okay=False)
    for decorate in reversed((
            click.option("--token-file", type=path, default=None,
                         help="With --server: a file whose first line is the bearer token."),
            click.option("--tls", is_flag=True,
                         help="With --server: TLS with the system's CA roots."),
            click.option("--ca", "ca_file", type=path, default=None,
                         help="With --server: TLS, trusting this PEM CA certificate."),
            click.option("--cert", "cert_file", type=path, default=None,
                         help="With --server: this PEM client certificate (mutual TLS; "
                              "needs --key)."),
            click.option("--key", "key_file", type=path, default=None,
                         help="With --server: the PEM private key of --cert."))):
        command = decorate(command)
    return command


def _setting_value(text: str) -> Any:
    """An --set value: a bool, () for none, an int, a comma list (of ints or names) or text."""
    low = text.lower()
    if low in ("true", "on", "yes"):
        return True
    if low in ("false", "off", "no"):
        return False
    if low in ("none", ""):
        return ()
    try:
        return int(text)
    except ValueError:
        pass
    if "," not in text:
        return text
    items = [x for x in text.split(",") if x]
    try:
        return tuple(int(x) for x in items)
    except ValueError:
        return tuple(items)


Rules = TypeVar("Rules", bound="RuleOptions")


def with_settings(rules: Rules, settings: Sequence[str]) -> Rules:
    """``rules`` with the options of ``--set OPTION=VALUE`` items changed; a malformed item,
    an unknown option or a bad value is an InvalidRuleError naming it. One name where the
    option is a list of names is that list of one."""
    from ..errors import InvalidRuleError

    opts: dict[str, Any] = {}
    for item in settings:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise InvalidRuleError(f"--set {item!r}: expected OPTION=VALUE")
        v = _setting_value(value)
        if isinstance(v, str) and key in rules.option_names() \
                and isinstance(getattr(rules, key), tuple):
            v = (v,)
        opts[key] = v
    return rules.replace(**opts)


def preset_rules(preset: str, settings: Sequence[str] = ()) -> Any:
    """The rules value of ``preset`` (found in the game registry) with the ``--set`` items
    ``settings`` changed; an unknown preset or a bad item is an InvalidRuleError."""
    from ..games import game_of

    return with_settings(game_of(preset).preset(preset), settings)


def rules_of_command(preset: str, settings: Sequence[str]) -> tuple[Any, Any]:
    """``(game, rules value)`` of a command's ``--rules`` and ``--set``, from the game
    registry; an unknown preset or a bad item is a click error naming the option."""
    from ..errors import InvalidRuleError
    from ..games import game_of

    try:
        return game_of(preset), preset_rules(preset, settings)
    except InvalidRuleError as e:
        raise click.BadParameter(str(e) + _other_games_option(preset, settings),
                                 param_hint="--set" if settings else "--rules") from None


def _other_games_option(preset: str, settings: Sequence[str]) -> str:
    """``"; X is an option of the G rules (--rules a or b)"`` for the first ``--set`` option
    that only another game's rules have (empty when there is none)."""
    from ..errors import InvalidRuleError
    from ..games import GAMES, game_of, or_list

    try:
        own = game_of(preset)
    except InvalidRuleError:
        return ""
    for item in settings:
        key = item.partition("=")[0].strip()
        if key in own.rules_type.option_names():
            continue
        for game in GAMES.values():
            if game is not own and key in game.rules_type.option_names():
                return f"; {key} is an option of the {game.name} rules (--rules " \
                       f"{or_list(game.presets)})"
    return ""


class RulesOption(click.Option):
    """An option whose help names the registry's presets: ``{presets}`` in the help text
    (every game's, or those of the games offering ``face``) is filled in when the help is
    shown, so no command lists presets by hand."""

    def __init__(self, *args: Any, face: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.face = face

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        from ..games import all_presets, or_list, presets_offering

        names = all_presets() if self.face is None else presets_offering(self.face)
        template = self.help or ""
        self.help = template.format(presets=or_list(names))
        try:
            return super().get_help_record(ctx)
        finally:
            self.help = template


def default_agents(players: int) -> str:
    """The default ``--agents``: one efficiency agent, random agents in the other seats."""
    return ",".join(["efficiency"] + ["random"] * (players - 1))


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


def table_agents(agents: str, players: int, rules: str, check: Callable[[str], object]
                 ) -> list[str]:
    """``mjcore play --agents``: one agent name per seat (the names given repeat round the
    table), each checked by ``check`` before any game starts; a bad list is a click error."""
    from ..errors import MjcoreError

    names = [a.strip() for a in agents.split(",") if a.strip()]
    if not names or len(names) > players:
        raise click.BadParameter(f"give one to {players} agent names for --rules {rules}",
                                 param_hint="--agents")
    names = (names * players)[:players]
    try:
        for name in names:
            check(name)
    except MjcoreError as exc:
        raise click.ClickException(str(exc)) from None
    return names


def record_name(seed: int) -> str:
    """The name (without suffix) of the record ``mjcore play --out`` writes for game ``seed``."""
    return f"game-{seed:08d}"


def records_folder(out_dir: str, names: Sequence[str], overwrite: bool) -> None:
    """``mjcore play --out``: make the folder; unless ``overwrite``, refuse (before any game) a
    folder that already holds one of the records ``names`` the run would write."""
    import os

    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise click.ClickException(f"--out {out_dir!r}: cannot make the folder ({exc})") from None
    if overwrite:
        return
    taken = [n for n in names if os.path.lexists(os.path.join(out_dir, n))]
    if taken:
        more = f" and {len(taken) - 1} more" if len(taken) > 1 else ""
        raise click.ClickException(
            f"--out {out_dir!r} already holds {taken[0]}{more} (an earlier run's records); "
            "nothing was played. Give another folder or --seed, or --overwrite to replace them")


def run_games(play_one: Callable[[Task], dict[str, Any]], tasks: Sequence[Task], jobs: int,
              progress: bool) -> Iterator[dict[str, Any]]:
    """``mjcore play``'s games: each task's summary, in a pool of ``jobs`` forked workers when
    jobs > 1, with a progress bar on stderr. A summary with an ``error`` ends the command: its
    seed and error are printed and the exit status is 1."""
    from tqdm import tqdm

    bar = tqdm(total=len(tasks), desc="games", unit="game", disable=not progress, file=sys.stderr)
    old_term = _term_as_exit()
    try:
        if jobs > 1:
            import multiprocessing

            from ..processes import end_with_parent

            with multiprocessing.get_context("fork").Pool(jobs, end_with_parent,
                                                      (os.getpid(),)) as pool:
                yield from _until_failed(pool.imap_unordered(play_one, tasks, chunksize=4), bar)
        else:
            yield from _until_failed(map(play_one, tasks), bar)
    finally:
        bar.close()
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)


def _term_as_exit() -> Any:
    """While games run, SIGTERM (``kill PID``) exits through ``finally`` blocks, so a record
    being written leaves no temporary file; the previous handler (None off the main thread)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    return signal.signal(signal.SIGTERM, stop)


def _until_failed(summaries: Iterator[dict[str, Any]], bar: Any) -> Iterator[dict[str, Any]]:
    for summary in summaries:
        if "error" in summary:
            bar.close()
            click.echo(f"FAILED in game seed {summary['seed']}: {summary['error']}", err=True)
            sys.exit(1)
        bar.update(1)
        yield summary

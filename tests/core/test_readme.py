"""The README's code runs as written: its Python blocks, and every shell command in README.md
and service/README.md.

Shell commands are run as pasted, from a scratch copy of the checkout (links to the real files,
so `games/` and the like land in the scratch folder), with one exception each for what cannot
run inside a test:
- `make TARGET` is checked with `make -n` (the test suite is what `make check` runs);
- `. .venv/bin/activate` is checked to name this virtualenv's activate script, and
  `.venv/bin/mjcore` its console script (then run like `mjcore`, from this checkout);
- `python benchmarks/...` runs for minutes: the script's --help must list every flag used;
- `mjcore play` with more than 1000 games: its command line is parsed and validated, not run;
- `mjcore serve ...` runs until it prints "listening on", then the README's `--server` commands
  for its port run against it, then it gets SIGTERM and must exit 0;
- `mjcore web ... &` likewise runs until it prints its address, then the `curl` commands of its
  block run against it (each must answer JSON without an error).
"""
from __future__ import annotations

import itertools
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.service.conftest import certs  # noqa: F401  (files for the TLS `serve` command)

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SERVICE_README = ROOT / "service" / "README.md"
VENV_MJCORE = ".venv/bin/mjcore"
PROGRAMS = ("mjcore", "python", "make", ".", "source", VENV_MJCORE, "curl")


def test_readme_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert blocks
    namespace: dict = {}
    for code in blocks:      # the blocks continue one another, like a session
        exec(compile(code, "README.md", "exec"), namespace)  # our own README
    assert namespace["r"].points == 12000


def test_the_names_the_readme_leads_with_are_in_dir():
    import numpy as np

    import mjcore

    for name in ("score", "decompose", "RuleSet", "batch", "Hand", "shanten", "ukeire"):
        assert name in dir(mjcore) and name in mjcore.__all__, name
    namespace: dict = {}
    exec("from mjcore import *", namespace)
    assert {"score", "decompose", "RuleSet", "batch"} <= set(namespace)
    result = mjcore.batch.shanten(np.zeros((1, 34), dtype=np.uint8), forms=True)
    assert {"shanten", "forms", "status", "errors"} <= set(dir(result))


def shell_blocks(text: str, fenced: bool) -> list[list[list[str]]]:
    """The commands of each ```sh block (fenced) or of each 4-space indented block."""
    if fenced:
        blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
    else:
        blocks = re.findall(r"(?:^|\n\n)((?:    \S.*\n(?:    .*\n)*))", text)
    out = []
    for block in blocks:
        commands = []
        for line in block.replace("\\\n", " ").splitlines():
            args = shlex.split(line, comments=True)
            env = list(itertools.takewhile(lambda a: re.fullmatch(r"[A-Z_0-9]+=\S*", a), args))
            program = args[len(env)] if len(args) > len(env) else ""
            if args and (env or program in PROGRAMS):
                commands.append(args)       # (anything else is an indented paragraph)
        if commands:
            out.append(commands)
    return out


def all_blocks() -> list[list[list[str]]]:
    return (shell_blocks(README.read_text(), fenced=True)
            + shell_blocks(SERVICE_README.read_text(), fenced=False))


def all_commands() -> list[list[str]]:
    return [c for block in all_blocks() for c in block]


def test_the_readme_says_how_to_call_mjcore_before_its_first_command():
    """`make demo` installs `mjcore` in .venv, not on PATH: before the first bare `mjcore`
    command the README says to activate the virtualenv or to call .venv/bin/mjcore."""
    text = README.read_text()
    starts = [block.start(1) + line.start()
              for block in re.finditer(r"```sh\n(.*?)```", text, flags=re.DOTALL)
              for line in re.finditer(r"^mjcore ", block.group(1), flags=re.MULTILINE)]
    before = text[:min(starts)]
    assert ". .venv/bin/activate" in before and VENV_MJCORE in before
    assert "python3 -m venv .venv" in (ROOT / "Makefile").read_text()


def test_the_readme_lists_every_extra():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", README.read_text(), flags=re.MULTILINE))
    assert set(extras) <= set(rows), set(extras) - set(rows)


def test_no_synopsis_inside_copy_paste_blocks():
    for args in all_commands():
        assert not any(a.startswith("[") or a.endswith("]") or a == "..." for a in args), args


def test_the_readme_names_only_files_the_repo_has():
    for block in shell_blocks(README.read_text(), fenced=True):
        for args in block:
            for flag, value in itertools.pairwise(args):
                if flag == "--file":
                    assert (ROOT / value).is_file(), value


@pytest.fixture(scope="module")
def scratch(tmp_path_factory, certs):  # noqa: F811
    """A folder laid out like the checkout beside its shared data, plus the files the TLS
    serve command names."""
    top = tmp_path_factory.mktemp("readme")
    work = top / "checkout"
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in (".git", ".venv", "build", "games"):
            (work / entry.name).symlink_to(entry)
    (top / "shared").symlink_to(ROOT.parent / "shared")
    for name, source in (("server.pem", "server"), ("server.key", "server.key"),
                         ("clients-ca.pem", "ca")):
        (work / name).write_bytes(certs[source].read_bytes())
    (work / "token.txt").write_text("readme-token\n")
    return work


def _flag_value(args: list[str], flag: str) -> str | None:
    return args[args.index(flag) + 1] if flag in args else None


def _split_env(args: list[str]) -> tuple[dict[str, str], list[str]]:
    env = dict(a.split("=", 1) for a in itertools.takewhile(lambda a: "=" in a, args))
    return env, args[len(env):]


def _venv_bin(name: str) -> Path | None:
    """``name`` in the bin folder of the virtualenv running the tests (None outside one)."""
    return Path(sys.prefix) / "bin" / name if sys.prefix != sys.base_prefix else None


def _argv(args: list[str]) -> list[str]:
    if args[0] == VENV_MJCORE:
        script = _venv_bin("mjcore")
        assert script is None or script.is_file(), script     # what `pip install` made
    if args[0] in ("mjcore", VENV_MJCORE):
        return [sys.executable, "-m", "mjcore.cli", *args[1:]]
    return args


def _run(args: list[str], cwd: Path, token: str = "") -> None:
    """One command, run to its end; the `python benchmarks/...` and long `play` exceptions of
    the module docstring."""
    from mjcore.cli import main

    env, args = _split_env(args)
    if not args:
        return                                  # an environment setting shown on its own
    if args[0] in (".", "source"):
        assert args[1:] == [".venv/bin/activate"], args    # the Makefile's virtualenv
        activate = _venv_bin("activate")
        assert activate is None or activate.is_file(), activate
        return
    if args[0] == "make":
        r = subprocess.run(["make", "-n", *args[1:]], cwd=ROOT, capture_output=True,
                           text=True, check=False)
        assert r.returncode == 0, (args, r.stderr)
    elif args[0] == "python":
        r = subprocess.run([sys.executable, args[1], "--help"], cwd=cwd, capture_output=True,
                           text=True, timeout=120, check=False)
        assert r.returncode == 0, (args, r.stderr)
        for flag in (a.split("=")[0] for a in args[2:] if a.startswith("--")):
            assert flag in r.stdout, (args, flag)
    elif args[0] == "curl":
        import json

        r = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120,
                           check=False)
        assert r.returncode == 0, (args, r.stderr)
        answer = json.loads(r.stdout)
        assert "error" not in answer, (args, answer)
    elif args[:2] == ["mjcore", "play"] and int(_flag_value(args, "--games") or 10) > 1000:
        main.make_context("mjcore", args[1:])     # parsed and validated
    else:
        r = subprocess.run(_argv(args), cwd=cwd, capture_output=True, text=True, timeout=600,
                           check=False, env={**os.environ, **env, "MJCORE_TOKEN": token})
        if args[0] in ("mjcore", VENV_MJCORE):
            assert r.returncode == 0, (args, r.stdout[-2000:], r.stderr[-2000:])
        else:      # an outside tool (h2spec): it ran to its summary (known failures aside)
            assert r.returncode in (0, 1) and "tests" in r.stdout, (args, r.stdout[-2000:])


def _serve(args: list[str], cwd: Path, clients: list[list[str]]) -> None:
    """Start `mjcore serve`, run ``clients`` against it, stop it with SIGTERM: exit 0."""
    log = cwd.parent / "serve.log"          # (a file: a chatty server never blocks on a pipe)
    with log.open("w") as err:
        proc = subprocess.Popen(_argv(args), cwd=cwd, stdout=subprocess.PIPE, stderr=err,
                                text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        ready = "mjcore web: http://" if args[1:2] == ["web"] else "listening on"
        assert ready in line, (args, line, log.read_text()[-3000:])
        token_file = _flag_value(args, "--token-file")
        token = (cwd / token_file).read_text().strip() if token_file else ""
        for client in clients:
            _run(client, cwd, token)
    finally:
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=60)
        if proc.stdout:
            proc.stdout.close()
    assert status == 0, (args, log.read_text()[-3000:])


@pytest.mark.skipif(bool(os.environ.get("MJCORE_FAST_TREE")),
                    reason="run once, by the release run (this is the debug build's run)")
def test_every_shell_command_runs_as_pasted(scratch):
    blocks = all_blocks()
    clients = [c for c in all_commands() if c[0] == "mjcore" and "--server" in c]
    served = 0
    for block in blocks:
        for i, args in enumerate(block):
            if args[:2] in (["mjcore", "serve"], ["mjcore", "web"]) and args[-1] == "&":
                _serve(args[:-1], scratch, block[i + 1:])    # the rest of its block: clients
                served += 1
                break
            if args[:2] == ["mjcore", "serve"]:
                port = _flag_value(args, "--port")      # (plaintext clients: not for TLS)
                _serve(args, scratch, [c for c in clients if port and "--tls-cert" not in args
                                       and (_flag_value(c, "--server") or "").endswith(f":{port}")])
                served += 1
            elif "--server" not in args:
                _run(args, scratch)
    assert served >= 5


def test_public_names_have_docstrings():
    """help() and editors show something for every public name of mjcore (and every public
    method of the engine's classes)."""
    import importlib
    import inspect

    import mjcore

    missing = []
    modules = [mjcore] + [importlib.import_module(f"mjcore.{m}") for m in (
        "engine.agents", "engine.handcalc", "engine.invariants", "engine.seeds", "engine.sources",
        "engine.table", "engine.turns", "engine.view",
        "riichi.actions", "riichi.agents", "riichi.events", "riichi.game", "riichi.invariants",
        "riichi.mjai", "riichi.mjlog", "riichi.replay", "riichi.tenhou6", "riichi.view",
        "riichi.wall")]
    for module in modules:
        names = mjcore.__all__ if module is mjcore else vars(module)
        for name in names:
            obj = getattr(module, name)
            if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if module is not mjcore and obj.__module__ != module.__name__:
                continue
            if not obj.__doc__:
                missing.append(f"{module.__name__}.{name}")
            methods = vars(obj).items() if inspect.isclass(obj) and module is not mjcore else ()
            for attr, member in methods:
                func = member.fget if isinstance(member, property) else member
                if not attr.startswith("_") and inspect.isfunction(func) and not func.__doc__:
                    missing.append(f"{module.__name__}.{name}.{attr}")
    assert missing == []

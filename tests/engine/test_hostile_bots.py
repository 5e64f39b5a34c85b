"""Bots that misbehave (issue 29): an answer nested too deeply is the same "answered non-JSON"
error as any garbage, naming the bot; helpers a bot starts end with it."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from mjcore.classical.engine.agents import AgentError, EfficiencyAgent, ProcessAgent
from mjcore.classical.engine.game import play_game as play_classical
from mjcore.classical.rules import ClassicalRules
from mjcore.riichi.agents import TsumogiriAgent
from mjcore.riichi.game import play_game
from mjcore.riichi.mjai import MjaiAgent, MjaiError

DEEP = "print('[' * 200000, flush=True)"


def test_an_mjai_bot_answering_deeply_nested_json_is_reported() -> None:
    bot = MjaiAgent([sys.executable, "-c", f"import sys\nfor l in sys.stdin: {DEEP}"])
    try:
        with pytest.raises(MjaiError, match=r"mjai bot \(seat \d\) answered non-JSON"):
            play_game([bot, TsumogiriAgent(), TsumogiriAgent(), TsumogiriAgent()], seed=1)
    finally:
        bot.close()


def test_a_json_agent_answering_deeply_nested_json_is_reported() -> None:
    script = f"import sys\nfor l in sys.stdin:\n    if '\"request\"' in l: {DEEP}"
    agent = ProcessAgent(f"{sys.executable} -c \"{script}\"", name="deep")
    try:
        with pytest.raises(AgentError, match=r"agent 'deep' \(seat \d\) answered"):
            play_classical([agent] + [EfficiencyAgent() for _ in range(3)], seed=1)
    finally:
        agent.close()


def _gone(pid: int, within: float = 20.0) -> bool:
    """True once ``pid`` is no longer a live process (a zombie counts as gone)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


HELPER = ("import subprocess, sys\n"
          "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
          "open({pidfile!r}, 'w').write(str(p.pid))\n")


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_a_helper_an_mjai_bot_starts_ends_with_the_bot(tmp_path: Path) -> None:
    pidfile = str(tmp_path / "helper.pid")
    script = HELPER.format(pidfile=pidfile) + \
        "from mjcore.riichi.mjai import tsumogiri_bot\ntsumogiri_bot()\n"
    bot = MjaiAgent([sys.executable, "-c", script])
    try:
        play_game([bot, TsumogiriAgent(), TsumogiriAgent(), TsumogiriAgent()], seed=1)
    finally:
        bot.close()
    helper = int(Path(pidfile).read_text())
    assert _gone(helper), f"the bot's helper {helper} is still running"


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_a_helper_a_json_agent_starts_ends_with_the_agent(tmp_path: Path) -> None:
    pidfile = str(tmp_path / "helper.pid")
    script = tmp_path / "agent.py"
    script.write_text(HELPER.format(pidfile=pidfile) +
                      "for line in sys.stdin:\n"
                      "    if '\"request\"' in line:\n"
                      "        print('{\"index\": 0}', flush=True)\n")
    agent = ProcessAgent(f"{sys.executable} {script}", name="helper")
    try:
        play_classical([agent] + [EfficiencyAgent() for _ in range(3)], seed=1,
                       rules=ClassicalRules.preset("classical").replace(agreed_hands=1))
    finally:
        agent.close()
    helper = int(Path(pidfile).read_text())
    assert _gone(helper), f"the agent's helper {helper} is still running"

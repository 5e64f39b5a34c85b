"""riichi.md §15.4 (4): in the West-round extension the game ends after the first hand that
leaves anyone at 30 000 or more, even when the dealer repeats.

The record here is written by hand as mjai lines (not by the engine): nine exhaustive draws in
which every player discards what he draws. Only the tenpai seats change: a non-dealer climbs to
29 500 by South 4 (so the game goes into West), and West 1 ends with him at 31 000 while the
dealer is tenpai. The game must end there, and ``mjcore replay`` must agree with the record.
"""
from __future__ import annotations

import json

from click.testing import CliRunner

from mjcore.cli import main

KINDS = ([f"{n}{s}" for s in "mps" for n in range(1, 10)] + list("ESWNPFC"))
TENPAI = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "9s"]  # 9s wait
NOTEN = ["1m", "4m", "7m", "2p", "5p", "8p", "3s", "6s", "9s", "E", "W", "P", "C"]

# (tenpai seats) for East 1 .. South 4, West 1; the dealer is noten until West 1
TENPAI_SEATS = [{1}, set(), {1, 3}, set(), set(), set(), set(), set(), {0, 1}]
DELTAS = [[-1000, 3000, -1000, -1000], [0, 0, 0, 0], [-1500, 1500, -1500, 1500]] + \
    [[0, 0, 0, 0]] * 5 + [[1500, 1500, -1500, -1500]]
FINAL_SCORES = [24000, 31000, 21000, 24000]
# seat 1 first; seats 0 and 3 tie at 24 000 and seat 0 sat earlier; uma 10-20, oka 20
FINAL_POINTS = [4.0, 41.0, -29.0, -16.0]


def _hand_lines(position: int, scores: list[int]) -> list[dict]:
    dealer = position % 4
    pool = {k: [k + "r" if k[0] == "5" and k[1] in "mps" else k] + [k] * 3 for k in KINDS}
    tehais = [[pool[k].pop() for k in (TENPAI if s in TENPAI_SEATS[position] else NOTEN)]
              for s in range(4)]
    rest = [name for k in KINDS for name in pool[k]]
    dora, draws = rest[-1], rest[:70]
    lines: list[dict] = [{
        "type": "start_kyoku", "bakaze": "ESW"[position // 4], "kyoku": position % 4 + 1,
        "honba": position, "kyotaku": 0, "oya": dealer, "scores": list(scores),
        "dora_marker": dora, "tehais": tehais}]
    for i, pai in enumerate(draws):
        seat = (dealer + i) % 4
        lines.append({"type": "tsumo", "actor": seat, "pai": pai})
        lines.append({"type": "dahai", "actor": seat, "pai": pai, "tsumogiri": True})
    for s in range(4):
        scores[s] += DELTAS[position][s]
    lines.append({"type": "ryukyoku", "reason": "exhaustive", "deltas": DELTAS[position],
                  "scores": list(scores),
                  "tenpais": [s in TENPAI_SEATS[position] for s in range(4)]})
    lines.append({"type": "end_kyoku"})
    return lines


def _record() -> list[dict]:
    scores = [25000] * 4
    lines: list[dict] = [{"type": "start_game", "names": ["A", "B", "C", "D"], "rules": "tenhou"}]
    for position in range(9):
        lines += _hand_lines(position, scores)
        if position == 7:
            assert max(scores) < 30000          # nobody at 30 000 after South 4: West round
    assert scores == FINAL_SCORES
    lines.append({"type": "end_game", "scores": FINAL_SCORES, "final_points": FINAL_POINTS})
    return lines


def test_west_round_ends_when_a_non_dealer_reaches_the_target_while_the_dealer_repeats(
        tmp_path):
    path = tmp_path / "west.mjson"
    path.write_text("\n".join(json.dumps(ev) for ev in _record()) + "\n")
    result = CliRunner().invoke(main, ["replay", str(path), "--json", "--no-progress"])
    outcome = json.loads(result.stdout.splitlines()[0])
    assert (outcome["status"], outcome["hands"]) == ("agree", 9), outcome["detail"]
    assert result.exit_code == 0

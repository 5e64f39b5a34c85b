"""Three-player (sanma) scoring cases, converted from the raw Tenhou archive.

``load_sanma_cases()`` reads ``mjlog.tar.xz`` (shared/data/tenhou, or $MJCORE_TENHOU_DATA),
keeps the games whose ``<GO type>`` has the sanma bit (0x10), replays every round and turns
each ``<AGARI>`` into a case shaped like the four-player cases of ``cases.jsonl.gz``
(README.md of that folder describes the fields), plus:

- ``players`` (3) and ``kita_136`` / ``kita``: the winner's north declarations (nukidora),
  which are not melds; the AGARI ``m`` attribute lists them with the melds and ``melds`` here
  does not; ``robbed_kita``: a ron on another player's north declaration; ``rinshan_after``:
  "kan", "kakan" or "kita" for a rinshan win (the replacement draw it won on);
- ``checks``: ``replay_hand_ok`` (the closed hand rebuilt from INIT, draws, discards, calls and
  north declarations equals ``hai``), ``tile_count_ok``, ``situational_vs_yaku_ok`` (every
  situational flag found by the replay agrees with the official yaku list; for a yakuman hand,
  which lists no ordinary yaku, only tenhou/chiihou are compared), ``winner_delta_ok``.

Seats are Tenhou's (0-2; seat 3 is empty and its score stays 0). Situational flags come from
the replay: a riichi is the winner's accepted ``REACH``; double riichi a riichi declared on
the player's first discard with no call or north declaration before it (9 wins would
otherwise be double riichi that Tenhou did not award); ippatsu a riichi
won before the player's next discard with no call or north declaration by anyone in between
(35 wins would otherwise be ippatsu that Tenhou did not award); rinshan a tsumo on the
replacement draw after the winner's kan or north declaration; chankan a ron on an added kan
(robbing a north declaration is not chankan); haitei / houtei a tsumo on the last live tile /
a ron on the discard after it (the live wall is 108 - 14 - 39 = 55 draws, replacement draws
included); tenhou / chiihou a win on the first draw with no call or north declaration before
it.

Run as a script for the counts: ``python tests/scoring/sanma_cases.py [--out cases.jsonl.gz]``
(``--out`` writes the cases as JSON lines, as cases.jsonl.gz holds the four-player ones).
"""
from __future__ import annotations

import os
import random
import re
import tarfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from mjcore.melds import TENHOU_KIND, MeldKind

DATA = Path(os.environ.get(
    "MJCORE_TENHOU_DATA",
    Path(__file__).resolve().parents[3] / "shared" / "data" / "tenhou"))
ARCHIVE = DATA / "mjlog.tar.xz"

SANMA_BIT = 0x10
LIVE_DRAWS = 108 - 14 - 3 * 13
NORTH = 30
_RED_136 = (16, 52, 88)
_TAG = re.compile(r"<(\w+)([^>]*?)/?>")
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_DRAW = {"T": 0, "U": 1, "V": 2, "W": 3}
_DISCARD = {"D": 0, "E": 1, "F": 2, "G": 3}
_SUITS = "mpsz"
_YAKU = (
    "menzen tsumo", "riichi", "ippatsu", "chankan", "rinshan kaihou", "haitei raoyue",
    "houtei raoyui", "pinfu", "tanyao", "iipeikou", "seat wind east", "seat wind south",
    "seat wind west", "seat wind north", "round wind east", "round wind south",
    "round wind west", "round wind north", "haku", "hatsu", "chun", "double riichi",
    "chiitoitsu", "chanta", "ittsu", "sanshoku doujun", "sanshoku doukou", "sankantsu",
    "toitoi", "sanankou", "shousangen", "honroutou", "ryanpeikou", "junchan", "honitsu",
    "chinitsu", "renhou", "tenhou", "chiihou", "daisangen", "suuankou", "suuankou tanki",
    "tsuuiisou", "ryuuiisou", "chinroutou", "chuuren poutou", "junsei chuuren poutou",
    "kokushi musou", "kokushi musou 13-sided", "daisuushii", "shousuushii", "suukantsu",
    "dora", "ura dora", "aka dora")
_LIMITS = ("", "mangan", "haneman", "baiman", "sanbaiman", "yakuman")
# situational flag -> tenhou yaku id
_FLAG_YAKU = {"riichi": 1, "ippatsu": 2, "chankan": 3, "rinshan": 4, "haitei": 5, "houtei": 6,
              "double_riichi": 21, "tenhou": 37, "chiihou": 38}


def mpsz(ids: list[int], red: bool = True) -> str:
    """136-ids as sorted mpsz text (a red five written 0 when ``red``)."""
    out = []
    for s in range(4):
        digits = [(t // 4 % 9 + 1, t) for t in sorted(ids) if t // 36 == s]
        if digits:
            out.append("".join("0" if red and t in _RED_136 else str(d) for d, t in
                               sorted(digits, key=lambda x: (x[0], x[1])))
                       + _SUITS[s])
    return "".join(out)


def decode_meld(m: int) -> dict[str, Any]:
    """One Tenhou meld code: ``type`` (pon, kakan, kan-open, kan-closed, kita), its tiles, the
    called tile and the caller-relative offset Tenhou stores in the low two bits. Bit 2 is a
    chi, bit 3 a pon, bit 4 an added kan; bit 5 alone (bits 2-4 clear) a north declaration
    (in a pon it is part of the unused-copy index)."""
    rel = m & 3
    if m & 0x4:
        raise ValueError(f"meld code {m}: a chi, which sanma does not have")
    if m & 0x18:
        t, r = divmod(m >> 9, 3)
        unused = (m >> 5) & 3
        base = t * 4
        tiles = [base + i for i in range(4) if i != unused]
        kind = MeldKind.PON if m & 0x8 else MeldKind.KAN_ADDED
        meld = {"type": kind.tenhou, "tiles_136": tiles,
                "called_tile_136": tiles[r], "from_rel": rel}
        if m & 0x10:
            meld["added_tile_136"] = base + unused
        return meld
    if m & 0x20:
        return {"type": "kita", "tiles_136": [m >> 8], "called_tile_136": m >> 8, "from_rel": 0}
    called = m >> 8
    base = called // 4 * 4
    kind = MeldKind.KAN_CLOSED if rel == 0 else MeldKind.KAN_OPEN
    return {"type": kind.tenhou,
            "tiles_136": [base + i for i in range(4)], "called_tile_136": called, "from_rel": rel}


def _attrs(text: str) -> dict[str, str]:
    return dict(_ATTR.findall(text))


def _ints(text: str | None) -> list[int]:
    return [int(x) for x in text.split(",")] if text else []


class _Round:
    """Replay state of one hand (kyoku)."""

    def __init__(self, a: dict[str, str], index: int) -> None:
        seed = _ints(a["seed"])
        self.index = index
        self.round_no, self.honba, self.sticks = seed[0], seed[1], seed[2]
        self.dealer = int(a["oya"])
        self.start = [100 * x for x in _ints(a["ten"])]
        self.hands = [_ints(a.get(f"hai{i}")) for i in range(4)]
        self.melds: list[list[dict[str, Any]]] = [[], [], [], []]
        self.kita: list[list[int]] = [[], [], [], []]
        self.draws = 0
        self.discards = [0, 0, 0, 0]
        self.interrupted = False       # a pon/kan or north declaration happened
        self.riichi = [False] * 4
        self.double = [False] * 4
        self.ippatsu = [False] * 4
        self.declaring = [-1, -1, -1, -1]   # discard number of the riichi tile, while pending
        self.last: tuple[str, int, int] = ("", -1, -1)   # (what, seat, tile)
        self.replacement = False       # the last draw was a replacement draw
        self.replacement_after: str | None = None   # after "kan", "kakan" or "kita"
        self.clean = True
        self.results = 0

    def draw(self, seat: int, tile: int) -> None:
        self.replacement = self.last[0] in ("kan", "kakan", "kita") and self.last[1] == seat
        self.replacement_after = self.last[0] if self.replacement else None
        self.draws += 1
        self.hands[seat].append(tile)
        self.last = ("draw", seat, tile)

    def discard(self, seat: int, tile: int) -> None:
        if tile not in self.hands[seat]:
            self.clean = False
        else:
            self.hands[seat].remove(tile)
        self.discards[seat] += 1
        if self.declaring[seat] >= 0:
            self.declaring[seat] = -1
            self.ippatsu[seat] = True
        else:
            self.ippatsu[seat] = False
        self.last = ("discard", seat, tile)

    def reach(self, seat: int, step: int) -> None:
        if step == 1:
            self.declaring[seat] = self.discards[seat]
            self.double[seat] = self.discards[seat] == 0 and not self.interrupted
        else:
            self.riichi[seat] = True

    def call(self, seat: int, m: int) -> None:
        meld = decode_meld(m)
        meld["m"] = m
        if meld["type"] == "kita":
            self._take(seat, meld["tiles_136"])
            self.kita[seat].extend(meld["tiles_136"])
            self.interrupted = True
            self.ippatsu = [False] * 4       # as a call does (the records show it)
            self.last = ("kita", seat, meld["tiles_136"][0])
            return
        self.interrupted = True
        self.ippatsu = [False] * 4
        kind = TENHOU_KIND[meld["type"]]
        if kind is MeldKind.KAN_ADDED:
            added = meld["added_tile_136"]
            self._take(seat, [added])
            for i, old in enumerate(self.melds[seat]):
                if old["type"] == MeldKind.PON.tenhou and old["tiles_136"][0] // 4 == added // 4:
                    meld["from_who"] = old["from_who"]
                    self.melds[seat][i] = meld
                    break
            else:
                self.clean = False
            self.last = ("kakan", seat, added)
            return
        if kind is MeldKind.KAN_CLOSED:
            self._take(seat, meld["tiles_136"])
            meld["from_who"] = seat
        else:
            what, frm, tile = self.last
            if what != "discard" or tile != meld["called_tile_136"]:
                self.clean = False
            meld["from_who"] = frm
            self._take(seat, [t for t in meld["tiles_136"] if t != meld["called_tile_136"]])
        self.melds[seat].append(meld)
        self.last = ("kan" if kind.is_kan else "pon", seat, meld["called_tile_136"])

    def _take(self, seat: int, tiles: list[int]) -> None:
        for t in tiles:
            if t in self.hands[seat]:
                self.hands[seat].remove(t)
            else:
                self.clean = False


def _case(game: dict[str, Any], rnd: _Round, a: dict[str, str], result_index: int,
          multi: dict[str, int] | None, honba_paid: int) -> dict[str, Any]:
    who, frm = int(a["who"]), int(a["fromWho"])
    tsumo = who == frm
    hai = sorted(_ints(a["hai"]))
    machi = int(a["machi"])
    melds = [dict(m) for m in rnd.melds[who]]
    for m in melds:
        m["tiles"] = mpsz(m["tiles_136"])
        m["called_tile"] = mpsz([m["called_tile_136"]])
        if "added_tile_136" in m:
            m["added_tile"] = mpsz([m["added_tile_136"]])
    ten = _ints(a["ten"])
    yaku_raw, yakuman_raw = _ints(a.get("yaku")), _ints(a.get("yakuman"))
    yaku = [{"id": i, "name": _YAKU[i], "han": h} for i, h in
            zip(yaku_raw[::2], yaku_raw[1::2], strict=True)]
    yakuman = [{"id": i, "name": _YAKU[i]} for i in yakuman_raw]
    sc = _ints(a["sc"])
    ba = _ints(a["ba"])
    dora_136, ura_136 = _ints(a.get("doraHai")), _ints(a.get("doraHaiUra"))
    closed_wo = list(hai)
    closed_wo.remove(machi)
    last_draw = rnd.last[0] == "draw" and rnd.last[1] == who
    first_turn = not rnd.interrupted and rnd.discards[who] == 0 and tsumo
    situational = {
        "riichi": rnd.riichi[who] and not rnd.double[who],
        "double_riichi": rnd.riichi[who] and rnd.double[who],
        "ippatsu": rnd.riichi[who] and rnd.ippatsu[who],
        "rinshan": tsumo and last_draw and rnd.replacement,
        "chankan": not tsumo and rnd.last[0] == "kakan",
        "haitei": tsumo and rnd.draws == LIVE_DRAWS and not rnd.replacement,
        "houtei": not tsumo and rnd.last[0] == "discard" and rnd.draws == LIVE_DRAWS,
        "tenhou": first_turn and who == rnd.dealer,
        "chiihou": first_turn and who != rnd.dealer,
        "tiles_left": LIVE_DRAWS - rnd.draws,
    }
    ids = {y["id"] for y in yaku} | set(yakuman_raw)
    if yakuman:
        sit_ok = all(situational[f] == (_FLAG_YAKU[f] in ids) for f in ("tenhou", "chiihou"))
    else:
        sit_ok = all(situational[f] == (y in ids) for f, y in _FLAG_YAKU.items())
    expected_hand = sorted(rnd.hands[who] + ([] if tsumo else [machi]))
    n_kans = sum(1 for m in melds if TENHOU_KIND[m["type"]].is_kan)
    deltas = [100 * x for x in sc[1::2]]
    round_wind = "ESWN"[rnd.round_no // 4]
    return {
        "case_id": f"{game['source']}/{game['game_id']}#{rnd.index}.{result_index}",
        "source": game["source"], "game_id": game["game_id"], "file": game["file"],
        "go_type": game["go_type"], "rules": game["rules"], "players": 3,
        "round": {"index": rnd.index, "round_wind": round_wind, "kyoku": rnd.round_no % 4 + 1,
                  "honba": rnd.honba, "riichi_sticks": rnd.sticks, "dealer": rnd.dealer,
                  "start_scores": rnd.start},
        "winner": who, "from_who": frm, "tsumo": tsumo,
        "pao_who": int(a["paoWho"]) if "paoWho" in a else None,
        "dealer": rnd.dealer, "is_dealer": who == rnd.dealer,
        "round_wind": round_wind, "round_wind_tile": f"{rnd.round_no // 4 + 1}z",
        "seat_wind": "ESW"[(who - rnd.dealer) % 3],
        "seat_wind_tile": f"{(who - rnd.dealer) % 3 + 1}z",
        "closed_136": hai, "closed": mpsz(hai), "closed_plain": mpsz(hai, red=False),
        "closed_without_win": mpsz(closed_wo),
        "win_tile_136": machi, "win_tile": mpsz([machi]),
        "melds": melds, "kita_136": list(rnd.kita[who]), "kita": len(rnd.kita[who]),
        "robbed_kita": not tsumo and rnd.last[0] == "kita",
        "rinshan_after": rnd.replacement_after if situational["rinshan"] else None,
        "n_kans": n_kans,
        "menzen": all(m["type"] == MeldKind.KAN_CLOSED.tenhou for m in melds),
        "dora_indicators_136": dora_136, "dora_indicators": [mpsz([t]) for t in dora_136],
        "ura_indicators_136": ura_136, "ura_indicators": [mpsz([t]) for t in ura_136],
        "honba": ba[0], "riichi_sticks": ba[1], "honba_paid": honba_paid,
        "situational": situational, "multi_ron": multi,
        "expected": {
            "fu": ten[0], "points": ten[1], "limit": ten[2], "limit_name": _LIMITS[ten[2]],
            "han": sum(y["han"] for y in yaku), "yaku": yaku, "yakuman": yakuman,
            "scores_before": [100 * x for x in sc[0::2]], "deltas": deltas,
        },
        "raw": dict(a),
        "checks": {
            "replay_hand_ok": expected_hand == hai,
            "round_replay_clean": rnd.clean,
            "tile_count_ok": len(hai) + 3 * len(melds) == 14,
            "win_tile_ok": machi in hai,
            "situational_vs_yaku_ok": sit_ok,
            "winner_delta_ok": deltas[who] == max(deltas) > 0,
        },
    }


def _rules_of(go: int) -> dict[str, Any]:
    room = {0xA0: "houou", 0x80: "joukyuu", 0x20: "tokujou", 0: "ippan"}[go & 0xA0]
    return {"vs_human": bool(go & 1), "aka": not go & 2, "kuitan": not go & 4,
            "hanchan": bool(go & 8), "players": 3 if go & SANMA_BIT else 4,
            "fast": bool(go & 0x40), "room": room}


def convert_game(text: str, source: str, game_id: str, file: str) -> dict[str, Any] | None:
    """Every win of one sanma mjlog as cases, with the game's draws and end; None when the
    game is not a sanma game."""
    tags = _TAG.findall(text)
    go = next((int(_attrs(body)["type"]) for name, body in tags if name == "GO"), None)
    if go is None or not go & SANMA_BIT:
        return None
    game = {"source": source, "game_id": game_id, "file": file, "go_type": go,
            "rules": _rules_of(go)}
    cases: list[dict[str, Any]] = []
    draws: list[dict[str, Any]] = []
    rnd: _Round | None = None
    n_rounds = 0
    n_kita = 0
    owari = None
    for name, body in tags:
        if name[0] in _DRAW and name[1:].isdigit() and rnd is not None:
            rnd.draw(_DRAW[name[0]], int(name[1:]))
        elif name[0] in _DISCARD and name[1:].isdigit() and rnd is not None:
            rnd.discard(_DISCARD[name[0]], int(name[1:]))
        elif name == "INIT":
            rnd = _Round(_attrs(body), n_rounds)
            n_rounds += 1
        elif rnd is None:
            continue
        elif name == "N":
            a = _attrs(body)
            rnd.call(int(a["who"]), int(a["m"]))
            n_kita += rnd.last[0] == "kita"
        elif name == "REACH":
            a = _attrs(body)
            rnd.reach(int(a["who"]), int(a["step"]))
        elif name == "AGARI":
            a = _attrs(body)
            idx = rnd.results
            rnd.results += 1
            cases.append(_case(game, rnd, a, idx, None, 0))
            if "owari" in a:
                owari = [float(x) for x in a["owari"].split(",")]
        elif name == "RYUUKYOKU":
            a = _attrs(body)
            draws.append({"round": rnd.index, "kind": a.get("type", "exhaustive"),
                          "honba": rnd.honba, "sticks": rnd.sticks,
                          "deltas": [100 * x for x in _ints(a["sc"])[1::2]]})
            if "owari" in a:
                owari = [float(x) for x in a["owari"].split(",")]
    _mark_multi_ron(cases)
    return {"cases": cases, "draws": draws, "rounds": n_rounds, "kita_declared": n_kita,
            "owari": owari, **game}


def _mark_multi_ron(cases: list[dict[str, Any]]) -> None:
    """Double ron: ``multi_ron`` on both cases; honba are paid to the first winner only
    (Tenhou's rule, as the deltas show), sticks to whoever ``ba`` names."""
    by_round: dict[int, list[dict[str, Any]]] = {}
    for c in cases:
        by_round.setdefault(c["round"]["index"], []).append(c)
    for group in by_round.values():
        for i, c in enumerate(group):
            if len(group) > 1:
                c["multi_ron"] = {"count": len(group), "index": i}
            c["honba_paid"] = c["honba"] if i == 0 else 0


@lru_cache(maxsize=1)
def load_sanma_games() -> tuple[dict[str, Any], ...]:
    """Every sanma game of the archive (sorted by file), each with its ``cases``."""
    games = []
    with tarfile.open(ARCHIVE, "r:xz") as tar:
        for member in tar:
            if not member.isfile():
                continue
            f = tar.extractfile(member)
            if f is None:
                continue
            raw = f.read()
            if b'<GO type="' not in raw:
                continue
            text = raw.decode("utf-8", "replace")
            source = member.name.split("/", 1)[0]
            game_id = Path(member.name).stem
            g = convert_game(text, source, game_id, member.name)
            if g is not None:
                games.append(g)
    games.sort(key=lambda g: g["file"])
    return tuple(games)


@lru_cache(maxsize=1)
def load_sanma_cases() -> tuple[dict[str, Any], ...]:
    """Every sanma win of the archive as a case (see the module doc)."""
    return tuple(c for g in load_sanma_games() for c in g["cases"])


# ---- seeded random sanma wins (differential test, benchmark) ------------------------------

SANMA_KINDS = [0, 8] + list(range(9, 34))


def sanma_random_wins(n: int, seed: int) -> list[dict[str, Any]]:
    """Seeded random complete sanma hands (no 2m-8m, no chi, red 5p/5s) with situations and
    north set aside, as kernel arguments plus the 136-ids the oracle needs."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while len(out) < n:
        h = _sanma_hand(rng)
        if h is not None:
            out.append(h)
    return out


def _sanma_hand(rng: random.Random) -> dict[str, Any] | None:
    free = {k: [k * 4 + c for c in range(4)] for k in SANMA_KINDS}
    for k in (13, 22):
        rng.shuffle(free[k])
    kinds = rng.choice([SANMA_KINDS, list(range(9, 18)) + list(range(27, 34)),
                        [0, 8, 9, 17, 18, 26] + list(range(27, 34)), list(range(18, 27))])
    closed: list[int] = []
    melds: list[tuple[MeldKind, list[int]]] = []

    def take(k: int, m: int) -> list[int]:
        return [free[k].pop() for _ in range(m)]

    form = rng.random()
    if form < 0.05:
        for k in rng.sample(kinds, 7):
            closed += take(k, 2)
    elif form < 0.07:
        yao = [0, 8, 9, 17, 18, 26] + list(range(27, 34))
        closed = [free[k].pop() for k in yao]
        closed += take(rng.choice([k for k in yao if free[k]]), 1)
    else:
        n_melds = rng.choices([0, 1, 2, 3], [50, 25, 15, 10])[0]
        for i in range(4):
            k = rng.choice(kinds)
            if 9 <= k < 27 and k % 9 <= 6 and all(free.get(k + j) for j in range(3)) \
                    and rng.random() < 0.6 and i >= n_melds:
                closed += [free[k + j].pop() for j in range(3)]
            elif len(free[k]) >= 3:
                if i < n_melds:
                    kind = rng.choices([MeldKind.PON, MeldKind.KAN_OPEN, MeldKind.KAN_CLOSED,
                                        MeldKind.KAN_ADDED], [75, 8, 10, 7])[0]
                    if kind is not MeldKind.PON and len(free[k]) == 4:
                        melds.append((kind, take(k, 4)))
                    else:
                        melds.append((MeldKind.PON, take(k, 3)))
                else:
                    closed += take(k, 3)
            else:
                return None
        pair = [k for k in kinds if len(free[k]) >= 2]
        if not pair:
            return None
        closed += take(rng.choice(pair), 2)
    win = rng.choice(closed)
    menzen = all(k is MeldKind.KAN_CLOSED for k, _ in melds)
    tsumo = rng.random() < 0.5
    riichi = menzen and rng.random() < 0.5
    ippatsu = riichi and rng.random() < 0.2
    rinshan = tsumo and any(k.is_kan for k, _ in melds) and rng.random() < 0.3
    haitei = tsumo and not rinshan and rng.random() < 0.05
    houtei = not tsumo and rng.random() < 0.05
    kita = rng.randrange(len(free[NORTH]) + 1) if rng.random() < 0.6 else 0
    seat, rnd = rng.randrange(3), rng.choice([0, 0, 1, 2])
    del free[NORTH][:kita]                 # the norths set aside are not in the wall
    wall = [t for ids in free.values() for t in ids]
    n_ind = 1 + sum(1 for k, _ in melds if k.is_kan)
    dead_wall = rng.sample(wall, 2 * n_ind)  # indicators: unseen tiles, each once
    dora = dead_wall[:n_ind]
    ura = dead_wall[n_ind:] if riichi else []
    honba, sticks = rng.choice([0, 0, 1, 3]), rng.choice([0, 0, 1])
    counts = [0] * 34
    for t in closed:
        counts[t // 4] += 1
    flags = tsumo | 2 * riichi | 8 * ippatsu | 16 * rinshan | 64 * haitei | 128 * houtei
    kernel = {"counts": counts, "win_tile": win // 4,
              "melds": [(int(k), ids[0] // 4, sum(t in (52, 88) for t in ids),
                         0 if k is MeldKind.KAN_CLOSED else 1) for k, ids in melds],
              "red": sum(t in (52, 88) for t in closed), "flags": flags, "seat_wind": seat,
              "round_wind": rnd, "from_rel": 2, "dora": [t // 4 for t in dora],
              "ura": [t // 4 for t in ura], "honba": honba, "riichi_sticks": sticks,
              "kita": kita}
    return {"kernel": kernel, "closed": closed, "melds": melds, "win": win, "dora": dora,
            "ura": ura}


def pack_prepared_sanma(hands: list[dict[str, Any]]) -> dict[str, Any]:
    """Batch input arrays for hands of :func:`sanma_random_wins`."""
    from mjcore.riichi.batch_scoring import pack_prepared

    return pack_prepared([{**h["kernel"], "pao_rel": -1} for h in hands])


if __name__ == "__main__":
    import argparse
    import collections
    import gzip
    import json
    import time

    ap = argparse.ArgumentParser(description="Convert the archive's sanma wins; print counts.")
    ap.add_argument("--out", help="also write the cases as JSON lines (.gz compresses)")
    opts = ap.parse_args()

    t0 = time.perf_counter()
    games = load_sanma_games()
    cases = load_sanma_cases()
    dt = time.perf_counter() - t0
    print(f"{len(games)} sanma games ({sum(g['owari'] is not None for g in games)} complete), "
          f"{len(cases)} wins, {sum(len(g['draws']) for g in games)} draws, "
          f"{sum(g['kita_declared'] for g in games)} north declarations "
          f"({sum(c['kita'] for c in cases)} by winners); {dt:.2f} s")
    bad = collections.Counter(k for c in cases for k, v in c["checks"].items() if not v)
    print("failed checks:", dict(bad))
    if opts.out:
        opener = gzip.open if opts.out.endswith(".gz") else open
        with opener(opts.out, "wt", encoding="utf-8") as f:
            for c in cases:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        print(f"wrote {len(cases)} cases to {opts.out}")

"""Batch riichi scoring over numpy arrays (re-exported as ``mjcore.batch.score``).

Inputs, N rows (seats relative to the winner: 1 shimocha, 2 toimen, 3 kamicha):

| array | shape, dtype | meaning |
| --- | --- | --- |
| counts | (N, 34) uint8 | closed tiles, winning tile included |
| win_tile | (N,) uint8 | winning tile kind |
| melds | (N, 4) uint16 | called melds, ``encode_meld(kind, tile, red, from_rel)``; 0xFFFF = none |
| red | (N,) uint8 | red fives among the closed tiles |
| flags | (N,) uint16 | situation bits, see ``mjcore.scoring.situation_flags`` |
| seat_wind, round_wind | (N,) uint8 | 0 E .. 3 N (seat wind 0 = the winner is the dealer) |
| from_rel | (N,) uint8 | discarder on ron (1..3) |
| pao_rel | (N,) int8 | liable player (1..3) or -1 |
| dora, ura | (N, K) uint8 | indicators, 255 = none (K <= 10) |
| honba, riichi_sticks | (N,) uint16 | honba paid to / sticks collected by this winner |
| kita | (N,) uint8 | norths the winner set aside (three players with nukidora; default 0) |

With three-player rules (``rules="tenhou_sanma"``) seats are mod 3 (1 shimocha, 2 kamicha),
seat winds 0-2, and column 3 of ``deltas``/``payments`` is 0.

Outputs (a :class:`BatchScores`): ``status`` (0 win, 1 no yaku, < 0 bad row), ``han``, ``fu``,
``limit``, ``yakuman``, ``basic``, ``points``, ``yaku_mask`` (uint64, bit = tenhou yaku id),
``yaku_han`` (N, 55), ``dora_ura_aka`` (N, 3), ``fu_items`` (N, 12, 3: code, tile, fu) with
``n_fu_items``, ``deltas`` and ``payments`` (N, 4; relative seats), ``decomposition_index``.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .._core.batch_scoring import MELD_NONE, encode_meld, score_arrays
from .._core.scoring import MAX_INDICATOR_COUNT
from ..batch import _threads
from ..errors import InvalidHandError
from ..hand import copies_detail
from ..melds import TENHOU_KIND
from ..results import RowResults, counts_detail
from ..status import BAD_COUNT
from .rules import RuleSet
from .scoring import NORTH, _rules


class BatchScores(RowResults):
    """Arrays of a batch score; ``bad_rows`` lists rows with a negative status, ``errors()``
    and ``raise_for_errors()`` (from :class:`mjcore.results.RowResults`) their errors."""

    status: np.ndarray
    han: np.ndarray
    fu: np.ndarray
    limit: np.ndarray
    yakuman: np.ndarray
    basic: np.ndarray
    points: np.ndarray
    yaku_mask: np.ndarray
    yaku_han: np.ndarray
    dora_ura_aka: np.ndarray
    fu_items: np.ndarray
    n_fu_items: np.ndarray
    deltas: np.ndarray
    payments: np.ndarray
    decomposition_index: np.ndarray

    def __init__(self, arrays: dict[str, np.ndarray],
                 inputs: tuple[np.ndarray, ...] | None = None) -> None:
        self.__dict__.update(arrays)
        self._names = tuple(arrays)
        if inputs is not None:  # counts, melds, dora, ura, kita, red: for the errors' details
            by_counts = counts_detail(inputs[0])
            # the closed counts alone ("a fifth 1m"), else where the copies are together, else
            # the red fives that cannot be
            self.row_detail = lambda row, code: by_counts(row, code) or (
                _copies_of_row(*(a[row] for a in inputs[:5]))
                or _red_of_row(inputs[0][row], inputs[1][row], int(inputs[5][row]))
                if code == BAD_COUNT else None)

    @property
    def is_win(self) -> np.ndarray:
        """Boolean array: True for rows scored as a win (status 0)."""
        win: np.ndarray = self.status == 0
        return win

    def as_dict(self) -> dict[str, np.ndarray]:
        """Every result array by name."""
        return {n: getattr(self, n) for n in self._names}

    def __repr__(self) -> str:
        return (f"BatchScores({len(self)} rows, {int(self.is_win.sum())} wins, "
                f"{len(self.bad_rows)} bad)")


def _asarray(value: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as e:          # ragged nested lists and the like
        raise InvalidHandError(f"batch {name}: not a rectangular array: {e}",
                               reason="bad_shape") from None


def _arr(value: Any, n: int, shape: tuple[int, ...], dtype: Any, default: int,
         name: str) -> np.ndarray:
    if value is None:
        return np.full((n,) + shape, default, dtype)
    a = _asarray(value, name)
    if a.ndim == 0:
        if a.dtype.kind not in "iub":
            raise InvalidHandError(f"batch {name}: integer expected, got {value!r}",
                                   reason="bad_dtype")
        a = np.full((n,) + shape, a)
    if a.ndim != 1 + len(shape) or a.shape[0] != n or a.shape[1:] != shape:
        raise InvalidHandError(f"batch {name}: shape {a.shape}, expected {(n,) + shape}",
                               reason="bad_shape")
    if a.dtype == dtype:
        return np.ascontiguousarray(a)
    if a.size and a.dtype.kind in "iub":
        info = np.iinfo(dtype)
        lo, hi = int(a.min()), int(a.max())
        if lo < info.min or hi > info.max:
            raise InvalidHandError(f"batch {name}: values {lo}..{hi} do not fit {np.dtype(dtype)}",
                                   reason="bad_value")
    elif a.size:
        raise InvalidHandError(f"batch {name}: integer array expected, got {a.dtype}",
                               reason="bad_dtype")
    return np.ascontiguousarray(a, dtype=dtype)


def _indicators(value: Any, n: int, name: str) -> np.ndarray:
    if value is None:
        return np.full((n, 0), 255, np.uint8)
    a = _asarray(value, name)
    if a.ndim != 2 or a.shape[0] != n or a.shape[1] > MAX_INDICATOR_COUNT:
        raise InvalidHandError(f"batch {name}: shape {a.shape}, expected (N, K) with "
                               f"K <= {MAX_INDICATOR_COUNT}",
                               reason="bad_shape")
    return _arr(a, n, (a.shape[1],), np.uint8, 255, name)


def score(counts: Any, win_tile: Any, *, melds: Any = None, red: Any = None,
          flags: Any = None, seat_wind: Any = None, round_wind: Any = None,
          from_rel: Any = None, pao_rel: Any = None, dora: Any = None, ura: Any = None,
          honba: Any = None, riichi_sticks: Any = None, kita: Any = None,
          rules: RuleSet | str | None = None, n_threads: int | None = 1) -> BatchScores:
    """Score N winning hands in one GIL-free loop (see the module doc for the arrays).
    ``n_threads`` as in :mod:`mjcore.batch` (None or <= 0: one per core)."""
    c = _asarray(counts, "counts")
    if c.ndim != 2 or c.shape[1] != 34:
        raise InvalidHandError(f"batch counts: shape {c.shape}, expected (N, 34)",
                               reason="bad_shape")
    n = c.shape[0]
    c = _arr(c, n, (34,), np.uint8, 0, "counts")
    params = _rules(rules).scoring_params
    dora_a = _indicators(dora, n, "dora")
    ura_a = _indicators(ura, n, "ura")
    melds_a = _arr(melds, n, (4,), np.uint16, MELD_NONE, "melds")
    kita_a = _arr(kita, n, (), np.uint8, 0, "kita")
    red_a = _arr(red, n, (), np.uint8, 0, "red")
    out = score_arrays(
        c, melds_a, red_a,
        _arr(win_tile, n, (), np.uint8, 0, "win_tile"), _arr(flags, n, (), np.uint16, 0, "flags"),
        _arr(seat_wind, n, (), np.uint8, 0, "seat_wind"),
        _arr(round_wind, n, (), np.uint8, 0, "round_wind"),
        _arr(from_rel, n, (), np.uint8, 3, "from_rel"),
        _arr(pao_rel, n, (), np.int8, -1, "pao_rel"),
        dora_a, ura_a, _arr(honba, n, (), np.uint16, 0, "honba"),
        _arr(riichi_sticks, n, (), np.uint16, 0, "riichi_sticks"), params, _threads(n_threads),
        kita_a)
    return BatchScores(out, (c, melds_a, dora_a, ura_a, kita_a, red_a))


def _copies_of_row(counts: np.ndarray, melds: np.ndarray, dora: np.ndarray, ura: np.ndarray,
                   kita: int) -> str | None:
    """Which kind a too_many_copies row holds more than 4 of, and where (as the kernel reads
    the row: melds by their codes, 255 = no indicator)."""
    in_melds = [0] * 34
    for code in melds.tolist():
        kind, tile = code & 7, (code >> 3) & 63
        if code == MELD_NONE or kind > 4 or tile >= 34:
            continue
        for k in ((tile, tile + 1, tile + 2) if kind == 0 else (tile,) * (3 if kind == 1 else 4)):
            if k < 34:
                in_melds[k] += 1
    places = [("the hand", counts.tolist()), ("its melds", in_melds)]
    for where, kinds in (("dora indicators", dora.tolist()), ("ura indicators", ura.tolist()),
                         ("the norths set aside", [NORTH] * int(kita))):
        seen = [0] * 34
        for k in kinds:
            if k < 34:
                seen[k] += 1
        places.append((where, seen))
    return copies_detail(places)


_MELD_NAMES = ("chi", "pon", "kan", "kan", "kan")     # meld kinds 0..4 (open, closed, added)
_FIVES = (4, 13, 22)                                  # 5m 5p 5s


def _red_of_row(counts: np.ndarray, melds: np.ndarray, red: int) -> str | None:
    """Which red fives a too_many_copies row cannot hold (as the kernel checks them: more red
    fives among the closed tiles than fives there, a meld marking more than its fives)."""
    from ..tiles import TILE_NAMES

    def fives(n: int) -> str:
        return "no five" if n == 0 else f"{n} five" + ("s" if n > 1 else "")

    held = sum(int(counts[k]) for k in _FIVES)
    if red > held:
        return f"{red} red fives among the closed tiles, which hold {fives(held)}"
    for code in melds.tolist():
        kind, tile, marked = code & 7, (code >> 3) & 63, (code >> 9) & 7
        if code == MELD_NONE or kind > 4 or tile >= 34 or not marked:
            continue
        kinds = (tile, tile + 1, tile + 2) if kind == 0 else (tile,) * (3 if kind == 1 else 4)
        in_meld = sum(1 for k in kinds if k in _FIVES)
        if marked > in_meld:
            tiles = (f"{''.join(TILE_NAMES[k][0] for k in kinds)}{TILE_NAMES[tile][1]}"
                     if kind == 0 else TILE_NAMES[tile])
            return (f"the {_MELD_NAMES[kind]} of {tiles} marks {marked} red "
                    f"five{'s' if marked > 1 else ''}; it holds {fives(in_meld)}")
    return None


def pack(rows: Sequence[dict[str, Any]] | Iterable[dict[str, Any]],
         rules: RuleSet | str | None = None) -> dict[str, Any]:
    """Build the input arrays of :func:`score` from dicts of :func:`mjcore.scoring.score`
    arguments (``hand``, ``win_tile`` and the situation keywords). ``rules`` sets the table
    size (seats are mod 3 with three players); pass the same rules to :func:`score`. Invalid
    rows raise InvalidHandError with the row index."""
    from .scoring import prepare

    players = _rules(rules).players
    prepared = []
    for i, row in enumerate(rows):
        row = dict(row)
        try:
            prepared.append(prepare(row.pop("hand"), row.pop("win_tile"), players=players,
                                    **row))
        except InvalidHandError as e:
            raise InvalidHandError(f"row {i}: {e}", reason=e.reason, index=i) from None
        except (KeyError, TypeError) as e:
            raise InvalidHandError(f"row {i}: {e}", reason="bad_row", index=i) from None
    return pack_prepared(prepared)


def pack_prepared(prepared: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Arrays from kernel values (``mjcore.scoring.prepare`` output or Tenhou case args)."""
    n = len(prepared)
    counts = np.zeros((n, 34), np.uint8)
    melds = np.full((n, 4), MELD_NONE, np.uint16)
    kd = max((len(p["dora"]) for p in prepared), default=0)
    ku = max((len(p["ura"]) for p in prepared), default=0)
    dora = np.full((n, kd), 255, np.uint8)
    ura = np.full((n, ku), 255, np.uint8)
    cols: dict[str, list[int]] = {k: [] for k in (
        "win_tile", "red", "flags", "seat_wind", "round_wind", "from_rel", "pao_rel", "honba",
        "riichi_sticks", "kita")}
    for i, p in enumerate(prepared):
        counts[i] = np.frombuffer(p["counts"], np.uint8) if isinstance(p["counts"], bytes) \
            else p["counts"]
        for j, (kind, tile, red, frm) in enumerate(p["melds"]):
            melds[i, j] = encode_meld(kind, tile, red, frm)
        dora[i, :len(p["dora"])] = p["dora"]
        ura[i, :len(p["ura"])] = p["ura"]
        for k, v in cols.items():
            v.append(p.get(k, 0))
    arrays: dict[str, np.ndarray] = {"counts": counts, "melds": melds, "dora": dora, "ura": ura}
    dtypes = {"win_tile": np.uint8, "red": np.uint8, "flags": np.uint16, "seat_wind": np.uint8,
              "round_wind": np.uint8, "from_rel": np.uint8, "pao_rel": np.int8,
              "honba": np.uint16, "riichi_sticks": np.uint16, "kita": np.uint8}
    for k, v in cols.items():
        arrays[k] = np.array(v, dtypes[k])
    if not arrays["kita"].any():
        del arrays["kita"]       # four-player input keeps its arrays (the service takes these)
    return arrays


_TENHOU_FLAGS = ("riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei",
                 "tenhou", "chiihou")
_RED_136 = (16, 52, 88)


def tenhou_case_args(case: dict[str, Any]) -> dict[str, Any]:
    """Kernel values (as :func:`pack_prepared` takes them) for one case of the Tenhou data set
    (shared/data/tenhou/cases.jsonl.gz: absolute seats, 136-ids, ``honba_paid`` and
    ``riichi_sticks`` of this winner, ``situational`` flags; a three-player case, as
    tests/scoring/sanma_cases.py makes them, has ``players`` 3 and ``kita``)."""
    from .scoring import situation_flags

    counts = [0] * 34
    for t in case["closed_136"]:
        counts[t // 4] += 1
    winner = case["winner"]
    p = case.get("players", 4)
    melds = []
    for m in case["melds"]:
        ids = set(m["tiles_136"])
        if m.get("added_tile_136") is not None:
            ids.add(m["added_tile_136"])
        melds.append((int(TENHOU_KIND[m["type"]]), min(ids) // 4,
                      sum(1 for t in ids if t in _RED_136), m["from_rel"]))
    sit = case["situational"]
    flags = situation_flags(tsumo=case["tsumo"], **{name: sit[name] for name in _TENHOU_FLAGS})
    return {
        "counts": counts, "win_tile": case["win_tile_136"] // 4, "melds": melds,
        "red": sum(1 for t in case["closed_136"] if t in _RED_136), "flags": flags,
        "seat_wind": (winner - case["dealer"]) % p,
        "round_wind": "ESWN".index(case["round_wind"]), "from_rel": (case["from_who"] - winner) % p,
        "pao_rel": -1 if case["pao_who"] is None else (case["pao_who"] - winner) % p,
        "kita": case.get("kita", 0),
        "dora": [t // 4 for t in case["dora_indicators_136"]],
        "ura": [t // 4 for t in case["ura_indicators_136"]],
        "honba": case["honba_paid"], "riichi_sticks": case["riichi_sticks"], "winner": winner}


def pack_tenhou(cases: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Input arrays of :func:`score` for Tenhou data-set cases (deltas come out relative to
    each case's winner: absolute seat = (winner + column) % 4)."""
    return pack_prepared([tenhou_case_args(c) for c in cases])


__all__ = ["MELD_NONE", "BatchScores", "encode_meld", "pack", "pack_prepared", "pack_tenhou",
           "score", "tenhou_case_args"]

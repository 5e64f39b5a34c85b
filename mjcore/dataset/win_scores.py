"""The win rows of an extract scored by the batch scoring kernel: their columns as the kernel's
arrays (meld tokens encoded, dora indicators as kinds, seats relative to the winner at a table
of three or four), grouped by their rules."""
from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import MjcoreError
from .common import cores
from .hand_arrays import (
    WIN_ACTIONS,
    HandArrays,
    is_in,
    list_values,
    rows_by_value,
    small_ints,
    table_column,
)


def score_wins(table: Any, h: HandArrays, ok: np.ndarray, n_threads: int | None,
               wins: Any = None) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The win rows of an extract scored by the batch scoring kernel: (rows, status of each,
    (M, 4) han, fu, points, yakuman, -1 where not won)."""
    found = win_inputs(table, h, ok, wins)
    if found is None:
        return np.zeros(0, np.int64), [], np.zeros((0, 4), np.int64)
    rows, inputs = found
    status, values = inputs.score(n_threads)
    return rows, status, values


def win_inputs(table: Any, h: HandArrays, ok: np.ndarray, wins: Any = None
               ) -> tuple[np.ndarray, WinInputs] | None:
    """The analysed win rows of an extract and their scoring inputs (None when the table is
    not an extract); ``wins`` as for :func:`analysis_of`."""
    import pyarrow as pa

    need = ("action", "melds", "tile", "seat", "dealer", "round_wind", "dora_markers",
            "ura_markers", "win_flags", "from_seat", "rules")
    if wins is not None:
        rows = wins.column("row").to_numpy()
        good = ok[rows]
        source = wins if good.all() else wins.filter(pa.array(good))
        rows = rows[good]
    else:
        if not all(c in table.column_names for c in need) or \
                ("red" not in table.column_names and "closed" not in table.column_names):
            return None
        rows = np.flatnonzero(is_in(table_column(table, "action"), WIN_ACTIONS) & ok)
        source = table.take(pa.array(rows))
    if not rows.size:
        return None
    have = set(source.column_names)
    names = [c for c in WinInputs.COLUMNS if c in have]
    return rows, WinInputs.of(source.select(names), h.counts[rows])


_MELD_KINDS = {"chi": 0, "pon": 1, "kan": 2, "ankan": 3, "kakan": 4}
_MELD_CACHE: dict[str, int] = {}


def _encode_token(token: str) -> int:
    """A meld token of an extract (``pon:505m<2``) as the batch scoring kernel's uint16."""
    code = _MELD_CACHE.get(token)
    if code is None:
        from ..riichi.batch_scoring import encode_meld

        name, _, body = token.partition(":")
        body, _, rel = body.partition("<")
        suit = "mpsz".index(body[-1])
        digits = body[:-1]
        low = min(int(d) if d != "0" else 5 for d in digits)
        code = encode_meld(_MELD_KINDS[name], suit * 9 + low - 1, digits.count("0"),
                           int(rel) if rel else 0)
        if len(_MELD_CACHE) < 65536:
            _MELD_CACHE[token] = code
    return code


def meld_codes(col: Any, bad: np.ndarray, none: int) -> np.ndarray:
    """(M, 4) uint16 scoring-kernel codes of a list<string> column of meld tokens, each
    distinct token encoded once; a row with an unknown token is marked in ``bad``."""
    import pyarrow as pa

    m = bad.size
    out = np.full((m, 4), none, np.uint16)
    if not pa.types.is_list(col.type) and not pa.types.is_large_list(col.type):
        bad[:] = True
        return out
    offsets = col.offsets.to_numpy()
    lengths = np.where(col.is_valid().to_numpy(zero_copy_only=False), np.diff(offsets), 0)
    if not lengths.any():
        return out
    tokens = col.values.slice(offsets[0], offsets[-1] - offsets[0]).dictionary_encode()
    codes = np.full(len(tokens.dictionary) + 1, -1, np.int64)     # -1: not a meld
    for i, token in enumerate(tokens.dictionary.to_pylist()):
        with contextlib.suppress(KeyError, ValueError, IndexError, AttributeError, TypeError):
            codes[i] = _encode_token(token)
    index = tokens.indices.fill_null(len(tokens.dictionary)).to_numpy(zero_copy_only=False)
    owner = np.repeat(np.arange(m), np.diff(offsets))
    position = np.arange(owner.size) - np.repeat(offsets[:-1] - offsets[0], np.diff(offsets))
    value = codes[index]
    live = np.repeat(lengths > 0, np.diff(offsets))
    bad[owner[live & (value < 0)]] = True
    keep = live & (position < 4) & (value >= 0)
    out[owner[keep], position[keep]] = value[keep]
    return out


def _indicator_kinds(col: Any, n: int) -> np.ndarray:
    values, offsets = list_values(col.combine_chunks() if hasattr(col, "combine_chunks")
                                  else col)
    lengths = np.diff(offsets)
    width = int(min(max(lengths.max(initial=0), 0), 10))
    out = np.full((n, width), 255, np.uint8)
    if width:
        rows = np.repeat(np.arange(n), lengths)
        pos = np.arange(values.size) - np.repeat(offsets[:-1], lengths)
        keep = pos < width
        out[rows[keep], pos[keep]] = (values[keep].astype(np.int64) >> 2).astype(np.uint8)
    return out


@dataclass
class WinInputs:
    """The win rows of an extract as the batch scoring kernel takes them (numpy arrays), and
    the rules of each group of rows."""

    arrays: dict[str, np.ndarray]
    groups: list[tuple[str | None, np.ndarray]]     # (rules text, row indices)
    bad: np.ndarray                                  # rows the kernel cannot take
    seats: dict[str, np.ndarray] = field(default_factory=dict)  # seat, dealer, from, pao
    # the extract's columns it reads (`closed` only without `red`)
    COLUMNS = ("tile", "seat", "win_flags", "red", "closed", "melds", "kita", "pao_seat",
               "dealer", "round_wind", "from_seat", "dora_markers", "ura_markers", "rules")

    @classmethod
    def of(cls, wins: Any, counts: np.ndarray) -> WinInputs:
        """From the win rows of an extract and their closed counts (before the ron tile)."""
        from ..riichi.batch_scoring import MELD_NONE
        from .extraction import RED_IDS, WIN_FLAG_BITS

        m = wins.num_rows

        def col(name: str, default: int = 0) -> np.ndarray:
            return small_ints(table_column(wins, name), m, default)

        tile = col("tile", -1)
        seat = col("seat")
        flags = col("win_flags")
        tsumo = (flags & WIN_FLAG_BITS["tsumo"]) != 0
        counts = counts.copy()
        bad = (tile < 0) | (tile > 135)
        ron_rows = np.flatnonzero(~tsumo & ~bad)
        counts[ron_rows, tile[ron_rows] >> 2] += 1
        if "red" in wins.column_names:
            red = col("red")
        else:
            closed, offsets = list_values(wins.column("closed").combine_chunks())
            owner = np.repeat(np.arange(m), np.diff(offsets))
            red = np.bincount(owner[np.isin(closed, RED_IDS)], minlength=m)
        red = red + (~tsumo & np.isin(tile, RED_IDS))
        melds = meld_codes(table_column(wins, "melds"), bad, MELD_NONE)
        pao = col("pao_seat", -1) if "pao_seat" in wins.column_names else np.full(m, -1)
        seats = {"seat": seat, "dealer": col("dealer"),
                 "from": np.where(tsumo, seat, col("from_seat")), "pao": pao}
        arrays = {
            "counts": counts, "win_tile": np.where(bad, 0, tile >> 2).astype(np.uint8),
            "melds": melds, "red": np.clip(red, 0, 3).astype(np.uint8),
            "flags": flags.astype(np.uint16),
            **seat_arrays(seats, 4),
            "round_wind": (col("round_wind") % 4).astype(np.uint8),
            "dora": _indicator_kinds(wins.column("dora_markers"), m),
            "ura": _indicator_kinds(wins.column("ura_markers"), m),
        }
        if "kita" in wins.column_names:
            arrays["kita"] = np.clip(col("kita"), 0, 255).astype(np.uint8)
        return cls(arrays, rows_by_value(table_column(wins, "rules")), bad, seats)

    def score(self, n_threads: int | None) -> tuple[list[str], np.ndarray]:
        """Each row's score status (``win``, ``no_yaku``, ``invalid`` or ``bad_rules: ...``)
        and (M, 4) han, fu, points, yakuman (-1 where not won)."""
        from ..riichi.batch_scoring import score
        from ..riichi.rules import RuleSet

        m = self.bad.size
        status = np.full(m, "invalid", object)
        out = np.full((m, 4), -1, np.int64)
        for rules_text, sel in self.groups:
            try:
                rules = RuleSet.from_dict(json.loads(rules_text)) if rules_text else None
            except (MjcoreError, ValueError, TypeError) as exc:
                status[sel] = f"bad_rules: {exc}"
                continue
            arrays = {k: v[sel] for k, v in self.arrays.items()}
            players = 4 if rules is None else rules.players
            if players != 4 and self.seats:     # seats relative mod 3 (sanma.md)
                arrays.update(seat_arrays({k: v[sel] for k, v in self.seats.items()},
                                          players))
            res = score(rules=rules, n_threads=n_threads or cores(), **arrays)
            st = np.asarray(res.status)
            bad = self.bad[sel]
            status[sel] = np.where(bad | (st < 0), "invalid",
                                   np.where(st == 0, "win", "no_yaku"))
            won = (st == 0) & ~bad
            out[sel[won]] = np.stack([res.han, res.fu, res.points, res.yakuman], 1)[won]
        return status.tolist(), out


def seat_arrays(seats: dict[str, np.ndarray], players: int) -> dict[str, np.ndarray]:
    """The scoring kernel's seat wind, discarder and liable seat, relative to the winner at a
    table of ``players`` (``seats``: absolute seat, dealer, from seat and pao seat, -1 none)."""
    seat, pao = seats["seat"], seats["pao"]
    return {"seat_wind": ((seat - seats["dealer"]) % players).astype(np.uint8),
            "from_rel": ((seats["from"] - seat) % players).astype(np.uint8),
            "pao_rel": np.where(pao < 0, -1, (pao - seat) % players).astype(np.int8)}


__all__ = ["WinInputs", "win_inputs"]

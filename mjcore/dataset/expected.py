"""The expected value given up by each discard decision of an extract (``mjcore analyze
EXTRACT --out DIR --ev``): the side table ``_ev/part-NNNNN.parquet-side`` of an analysed part.

Per discard row (``discard`` and ``riichi`` of a riichi record, four- or three-player) the
batch search (``mjcore.batch.expected_values``, the consistent model, one call per turn value
and rules over all the part's rows) gives the best discard by expected score at the row's
turn, its expected score and win probability, the same for the discard made, and what the
made one gave up. The turn is the record's: the seat's draws left, ``tiles_left // players``
(the live wall shared by the seats), capped to ``t_max``; turn ``t_max - draws + 1``. What
the model sees: the closed hand, its melds, the norths it set aside (``kita``, sanma), the
dora indicators and the record's ``visible`` tiles less the seat's own melds, norths and the
indicators (the kernel counts those itself); red fives seen
elsewhere are not in the extract, so only red indicators count as seen. Rows the search does
not evaluate get null values and a reason in ``ev_status`` (SCHEMA.md).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..errors import MjcoreError
from ..status import reason_of

EV_SIDE = "_ev"
EV_COLUMNS = ("ev_status", "ev_turn", "ev_best_discard", "ev_best", "ev_best_win", "ev_made",
              "ev_made_win", "ev_loss", "ev_win_loss", "ev_made_best")
# the extract's columns the step reads
INPUT_COLUMNS = ("format", "action", "tile", "closed", "melds", "visible", "dora_markers",
                 "seat", "dealer", "round_wind", "tiles_left", "riichi", "rules", "players",
                 "kita")
OPTIONAL_COLUMNS = ("format", "players", "kita")   # an extract before extract/4 has no players
NORTH = 30
EV_ACTIONS = ("discard", "riichi")
RED_IDS = (16, 52, 88)
TIE = 1e-9          # relative: a made discard this close to the best is EV-best


@dataclass(frozen=True)
class EvOptions:
    """The search's options for a bulk run (those of ``mjcore.batch.expected_values``, which
    checks them here: a bad one is an InvalidHandError naming it); ``max_seconds`` bounds
    each row on ``clock`` (its CPU time by default: waiting for a core does not count)."""

    t_max: int = 18
    max_shanten: int = 3
    max_nodes: int = 200_000
    max_seconds: float = 1.0
    model: str = "consistent"
    extra: int = 1
    red: bool = True
    ura: bool = True
    shanten_down: bool = True
    tegawari: bool = True
    clock: str = "cpu"

    def __post_init__(self) -> None:
        from ..riichi.batch_expected import expected_values

        expected_values(np.zeros((0, 34), np.uint8), **self._search_options())

    def _search_options(self) -> dict[str, Any]:
        """The options as ``mjcore.batch.expected_values`` takes them."""
        return {"model": self.model, "t_max": self.t_max, "max_shanten": self.max_shanten,
                "max_nodes": self.max_nodes, "max_seconds": self.max_seconds,
                "extra": self.extra, "use_red": self.red, "ura": self.ura,
                "shanten_down": self.shanten_down, "tegawari": self.tegawari,
                "clock": self.clock}

    def as_dict(self) -> dict[str, Any]:
        """The options as plain values (kept in the analysis manifest)."""
        return asdict(self)


def ev_types() -> list[tuple[str, Any]]:
    """The columns of the EV side table and their Arrow types."""
    import pyarrow as pa

    return [("row", pa.int32()), ("ev_status", pa.string()), ("ev_turn", pa.int8()),
            ("ev_best_discard", pa.int8()), ("ev_best", pa.float64()),
            ("ev_best_win", pa.float64()), ("ev_made", pa.float64()),
            ("ev_made_win", pa.float64()), ("ev_loss", pa.float64()),
            ("ev_win_loss", pa.float64()), ("ev_made_best", pa.bool_())]


def _list(col: Any) -> tuple[np.ndarray, np.ndarray]:
    col = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    offsets = col.offsets.to_numpy()
    return col.values.to_numpy(zero_copy_only=False)[offsets[0]:offsets[-1]], \
        offsets - offsets[0]


def ev_table(table: Any, n_threads: int | None, options: EvOptions) -> Any:
    """The ``_ev`` side table of an extract part ``table`` (the columns INPUT_COLUMNS): one
    row per discard decision, ``row`` its row in the part."""
    import pyarrow as pa

    from ..riichi.batch_expected import expected_values
    from ..riichi.batch_scoring import MELD_NONE
    from ..riichi.rules import RuleSet
    from .hand_arrays import (
        counts_column,
        is_in,
        rows_by_value,
        small_ints,
        table_column,
        three_player_rows,
    )
    from .win_scores import meld_codes

    types = ev_types()
    missing = [c for c in INPUT_COLUMNS if c not in table.column_names
               and c not in OPTIONAL_COLUMNS]
    if missing:
        raise MjcoreError(f"--ev needs an extract's columns; missing: {', '.join(missing)}")
    rows = np.flatnonzero(is_in(table_column(table, "action"), EV_ACTIONS))
    sub = table.take(pa.array(rows))
    m = rows.size
    status = np.full(m, "ok", object)
    if "format" in sub.column_names:
        status[is_in(table_column(sub, "format"), ("mjs",))] = "classical"

    def ints(name: str, default: int = 0) -> np.ndarray:
        return small_ints(table_column(sub, name), m, default)

    closed, offsets = _list(sub.column("closed"))
    owner = np.repeat(np.arange(m), np.diff(offsets))
    counts = np.zeros((m, 34), np.uint8)
    np.add.at(counts, (owner, closed.astype(np.int64) >> 2), 1)
    red = np.zeros((m, 3), np.uint8)
    for s, rid in enumerate(RED_IDS):
        red[owner[closed == rid], s] = 1
    bad = np.zeros(m, bool)
    melds = meld_codes(table_column(sub, "melds"), bad, MELD_NONE)
    status[bad & (status == "ok")] = "bad_melds"
    # visible: the record's, less the seat's own melds and the indicators
    visible = counts_column(table_column(sub, "visible"), m, "visible").astype(np.int16)
    meld_counts = counts_of_melds(sub.column("melds"), m)
    visible -= meld_counts
    kita = ints("kita")
    players = np.where(three_player_rows(sub), 3, 4)
    visible[:, NORTH] -= np.where(players == 3, kita, 0).astype(np.int16)
    dora_ids, dora_off = _list(sub.column("dora_markers"))
    d_owner = np.repeat(np.arange(m), np.diff(dora_off))
    np.subtract.at(visible, (d_owner, dora_ids.astype(np.int64) >> 2), 1)
    visible_red = np.zeros((m, 3), np.uint8)
    for s, rid in enumerate(RED_IDS):
        visible_red[d_owner[dora_ids == rid], s] = 1
    status[(visible < 0).any(1) & (status == "ok")] = "bad_visible"
    visible = np.clip(visible, 0, 4).astype(np.uint8)
    lengths = np.diff(dora_off)
    width = int(min(max(int(lengths.max(initial=0)), 1), 5))
    dora = np.full((m, width), 255, np.uint8)
    pos = np.arange(dora_ids.size) - np.repeat(dora_off[:-1], lengths)
    keep = pos < width
    dora[d_owner[keep], pos[keep]] = (dora_ids[keep].astype(np.int64) >> 2).astype(np.uint8)
    tile = ints("tile", -1)
    discard = np.where(np.isin(tile, RED_IDS), 34 + (tile >> 2) // 9, tile >> 2)
    discard = np.where(tile < 0, 255, discard).astype(np.uint8)
    seat_wind = ((ints("seat") - ints("dealer")) % players).astype(np.uint8)
    round_wind = (ints("round_wind") % 4).astype(np.uint8)
    riichi = np.asarray(table_column(sub, "riichi").fill_null(False).to_numpy(zero_copy_only=False),
                        bool)
    action_riichi = is_in(table_column(sub, "action"), ("riichi",))
    status[riichi & ~action_riichi & (status == "ok")] = "in_riichi"
    draws = np.minimum(ints("tiles_left") // players, options.t_max)
    status[(draws < 1) & (status == "ok")] = "no_draws_left"
    turn = np.clip(options.t_max - draws + 1, 1, options.t_max).astype(np.int8)

    best_tile = np.full(m, -1, np.int8)
    values = np.full((m, 4), np.nan)            # best ev, best win, made ev, made win
    arrays = {"counts": counts, "red": red, "melds": melds, "visible": visible,
              "visible_red": visible_red, "dora": dora, "seat_wind": seat_wind,
              "round_wind": round_wind, "kita": np.clip(kita, 0, 4).astype(np.uint8),
              "discard": discard}
    for rules_text, sel in rows_by_value(table_column(sub, "rules")):
        sel = sel[status[sel] == "ok"]
        if not sel.size:
            continue
        try:
            rules = RuleSet.from_dict(json.loads(rules_text)) if rules_text else "tenhou"
        except (MjcoreError, ValueError, TypeError) as exc:
            status[sel] = f"bad_rules: {exc}"
            continue
        for t in np.unique(turn[sel]).tolist():
            at = sel[turn[sel] == t]
            res = expected_values(turn=t, rules=rules, n_threads=n_threads,
                                  **options._search_options(),
                                  **{k: v[at] for k, v in arrays.items()})
            st = np.asarray(res.status)
            ok = st == 0
            status[at[~ok]] = [reason_of(int(c)) for c in st[~ok]]
            good = at[ok]
            best_tile[good] = res.best_tile[ok].astype(np.int8)
            values[good] = np.stack([res.best_ev, res.best_win, res.discard_ev,
                                     res.discard_win], 1)[ok]
    ok = status == "ok"
    made = ok & ~np.isnan(values[:, 2])     # the made discard is one the model searched
    loss = values[:, 0] - values[:, 2]
    win_loss = values[:, 1] - values[:, 3]
    made_best = loss <= TIE * np.maximum(1.0, np.abs(values[:, 0]))
    cols = [pa.array(rows.astype(np.int32)), pa.array(status.tolist(), pa.string()),
            pa.array(turn, pa.int8(), mask=~ok), pa.array(best_tile, pa.int8(), mask=~ok),
            *(pa.array(values[:, j], pa.float64(), mask=~ok) for j in range(2)),
            *(pa.array(values[:, j], pa.float64(), mask=~made) for j in (2, 3)),
            pa.array(loss, pa.float64(), mask=~made),
            pa.array(win_loss, pa.float64(), mask=~made),
            pa.array(made_best, pa.bool_(), mask=~made)]
    return pa.Table.from_arrays(cols, schema=pa.schema(
        [pa.field(k, t, nullable=k not in ("row", "ev_status")) for k, t in types]))


def counts_of_melds(col: Any, m: int) -> np.ndarray:
    """(m, 34) the tiles of each row's melds (tokens as ``mjcore.Meld`` writes them)."""
    from ..melds import Meld

    out = np.zeros((m, 34), np.int16)
    cache: dict[str, list[int]] = {}
    for i, tokens in enumerate(col.to_pylist()):
        for token in tokens or ():
            kinds = cache.get(token)
            if kinds is None:
                try:
                    kinds = list(Meld.parse(token).tiles)
                except (MjcoreError, ValueError):
                    kinds = []
                cache[token] = kinds
            for k in kinds:
                out[i, k] += 1
    return out


__all__ = ["EV_COLUMNS", "EV_SIDE", "EvOptions", "counts_of_melds", "ev_table", "ev_types"]

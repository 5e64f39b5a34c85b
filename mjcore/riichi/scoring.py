"""Riichi scoring: yaku, dora, fu, limits and payments of one winning hand.

``score(hand, win_tile, ...)`` returns a :class:`ScoreResult`. A complete hand without a yaku
gives a result with ``is_win == False`` (status ``no_yaku``); an incomplete or impossible hand,
or contradictory situation flags, raise :class:`~mjcore.errors.InvalidHandError`.

Seats. Without ``winner=`` every seat argument (``from_who``, ``dealer``, ``pao_seat``) and
every seat in ``deltas``/``payments`` is relative to the winner: 0 winner, 1 shimocha (next in
turn), 2 toimen, 3 kamicha. With ``winner=`` (0-3) they are absolute table seats, as in Tenhou
records and the game engine. The seat wind follows from the dealer and the winner (or is given
as ``seat_wind``; a seat wind of East means the winner is the dealer).

Three players (``rules`` with ``players=3``, e.g. the ``tenhou_sanma`` preset): seats are 0-2
(relative: 0 winner, 1 shimocha, 2 kamicha), seat winds E S W, entry 3 of ``deltas`` and
``payments`` is always 0, and ``kita`` is the number of norths the winner set aside (nukidora),
each a dora (mjcore/riichi/sanma.md).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._core import scoring as _sc
from .._core.scoring import MAX_INDICATOR_COUNT, FuEntry, ScoreResult, Yaku
from .._core.scoring import score_plain as _score_plain
from .._core.scoring import score_raw as _score_raw
from ..decomposition import _hand_values, _win_kind
from ..errors import InvalidHandError, InvalidRuleError
from ..hand import Hand, check_copies
from ..status import (
    BAD_COUNT,
    BAD_SEATS,
    BAD_SITUATION,
    BAD_TILE,
    BAD_TOTAL,
    NOT_IN_SANMA,
    reason_of,
    status_error,
)
from ..tiles import parse_tiles, tile_name
from .names import LIMIT_NAMES, YAKU_NAMES
from .rules import DEFAULT_RULES, RuleSet

F_TSUMO, F_RIICHI, F_DOUBLE_RIICHI, F_IPPATSU, F_RINSHAN, F_CHANKAN = 1, 2, 4, 8, 16, 32
F_HAITEI, F_HOUTEI, F_TENHOU, F_CHIIHOU, F_RENHOU = 64, 128, 256, 512, 1024

_WINDS = {"E": 0, "S": 1, "W": 2, "N": 3, "1z": 0, "2z": 1, "3z": 2, "4z": 3,
          "east": 0, "south": 1, "west": 2, "north": 3}
_BAD_SEATS = reason_of(BAD_SEATS)
NORTH = 30


def _wind(value: Any, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value < 4:
            return value
        if 27 <= value < 31:
            return value - 27
    elif isinstance(value, str) and value.strip() in _WINDS:
        return _WINDS[value.strip()]
    elif isinstance(value, str) and value.strip().lower() in _WINDS:
        return _WINDS[value.strip().lower()]
    raise InvalidHandError(f"{what} {value!r}: expected E, S, W, N (or 0-3, 1z-4z)",
                           reason="bad_seats")


def _seat(value: Any, what: str, players: int = 4) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players:
        return value
    raise InvalidHandError(f"{what} {value!r}: expected a seat 0-{players - 1}",
                           reason=_BAD_SEATS)


def _indicator_tiles(value: Any, what: str) -> tuple[list[int], list[int]]:
    """The kinds of indicators given as text or a list of kind ids and tile texts (each text
    one or more tiles), and the suits of the red fives among them."""
    if value is None:
        return [], []
    if isinstance(value, str):
        tiles = parse_tiles(value)
        kinds, reds = list(tiles.kinds), list(tiles.reds)
    else:
        try:
            entries = list(value)
        except TypeError:
            raise InvalidHandError(f"{what} {value!r}: expected tile text or a list of kind "
                                   "ids and tile texts", reason="bad_type") from None
        kinds, reds = [], []
        for i, v in enumerate(entries):
            if not isinstance(v, str):
                kinds.append(v)
                reds.append(False)
                continue
            tiles = parse_tiles(v)
            if not tiles.kinds:
                raise InvalidHandError(f"{what}: entry {i} {v!r} is empty (no tile)",
                                       reason=reason_of(BAD_TILE))
            kinds.extend(tiles.kinds)
            reds.extend(tiles.reds)
    red_suits = [k // 9 for k, red in zip(kinds, reds, strict=True) if red]
    return _checked_indicators(kinds, what), red_suits


def _indicators(value: Any, what: str) -> list[int]:
    return _indicator_tiles(value, what)[0]


def _checked_indicators(kinds: list[Any], what: str) -> list[int]:
    if len(kinds) > MAX_INDICATOR_COUNT:
        raise InvalidHandError(f"{what}: at most {MAX_INDICATOR_COUNT} indicators",
                               reason="bad_indicators")
    for k in kinds:
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < 34:
            raise InvalidHandError(f"{what}: {k!r} is not a tile", reason=reason_of(BAD_TILE))
    return kinds


def _rules(rules: RuleSet | str | None) -> RuleSet:
    """The riichi RuleSet of ``rules`` (None, a preset name or a RuleSet); anything else is an
    InvalidRuleError."""
    if rules is None:
        return DEFAULT_RULES
    if isinstance(rules, str):
        return RuleSet.preset(rules)
    if not isinstance(rules, RuleSet):
        raise InvalidRuleError(f"rules {rules!r}: expected a riichi RuleSet or a preset name")
    return rules


def situation_flags(*, tsumo: bool = False, riichi: bool = False, double_riichi: bool = False,
                    ippatsu: bool = False, rinshan: bool = False, chankan: bool = False,
                    haitei: bool = False, houtei: bool = False, tenhou: bool = False,
                    chiihou: bool = False, renhou: bool = False) -> int:
    """The situation bitfield used by the kernel and the batch API."""
    return (F_TSUMO * bool(tsumo) | F_RIICHI * bool(riichi)
            | F_DOUBLE_RIICHI * bool(double_riichi) | F_IPPATSU * bool(ippatsu)
            | F_RINSHAN * bool(rinshan) | F_CHANKAN * bool(chankan)
            | F_HAITEI * bool(haitei) | F_HOUTEI * bool(houtei) | F_TENHOU * bool(tenhou)
            | F_CHIIHOU * bool(chiihou) | F_RENHOU * bool(renhou))


def prepare(hand: Any, win_tile: int | str, *, tsumo: bool = False,
            seat_wind: int | str | None = None, round_wind: int | str = "E",
            dealer: int | bool | None = None, dora: Iterable[int | str] | str = (),
            ura: Iterable[int | str] | str = (), riichi: bool = False,
            double_riichi: bool = False, ippatsu: bool = False, rinshan: bool = False,
            chankan: bool = False, haitei: bool = False, houtei: bool = False,
            tenhou: bool = False, chiihou: bool = False, renhou: bool = False, honba: int = 0,
            riichi_sticks: int = 0, winner: int | None = None, from_who: int | None = None,
            pao_seat: int | None = None, kita: int = 0, players: int = 4) -> dict[str, Any]:
    """Validate the arguments of :func:`score` and return the kernel's plain values
    (the keyword arguments of :func:`score_counts`, seats relative to the winner).
    ``players`` (3 or 4) is the rules' table size: it sets the seat range."""
    counts, melds, red = _hand_values(hand)
    win = _win_kind(win_tile)
    if players not in (3, 4):
        raise InvalidHandError(f"players {players!r}: expected 3 or 4", reason=_BAD_SEATS)
    base = 0 if winner is None else _seat(winner, "winner", players)

    def rel(seat: Any, what: str) -> int:
        return (_seat(seat, what, players) - base) % players

    if isinstance(dealer, bool):
        if seat_wind is None:
            sw = 0 if dealer else 1
        else:
            sw = _wind(seat_wind, "seat wind")
            if (sw == 0) != dealer:
                raise InvalidHandError(f"seat wind {seat_wind!r} contradicts dealer={dealer}",
                                       reason=_BAD_SEATS)
    elif dealer is not None:
        sw = (-rel(dealer, "dealer")) % players
        if seat_wind is not None and _wind(seat_wind, "seat wind") != sw:
            raise InvalidHandError(
                f"seat wind {seat_wind!r} contradicts the dealer seat {dealer}",
                reason=_BAD_SEATS)
    else:
        sw = 0 if seat_wind is None else _wind(seat_wind, "seat wind")
    if sw >= players:
        raise InvalidHandError(f"seat wind {seat_wind!r}: three players sit East, South, West",
                               reason=_BAD_SEATS)
    rw = _wind(round_wind, "round wind")
    if tsumo:
        if from_who is not None and rel(from_who, "from_who") != 0:
            raise InvalidHandError(f"from_who {from_who!r} with tsumo=True: a tsumo has no "
                                   "discarder (from_who is for a ron)", reason=_BAD_SEATS)
        from_rel = 0
    elif from_who is None:
        from_rel = players - 1
    else:
        from_rel = rel(from_who, "from_who")
        if from_rel == 0:
            raise InvalidHandError("a ron needs a discarder other than the winner",
                                   reason=_BAD_SEATS)
    pao_rel = -1 if pao_seat is None else rel(pao_seat, "pao seat")
    if pao_rel == 0:
        raise InvalidHandError("the liable (pao) player cannot be the winner", reason=_BAD_SEATS)
    flags = situation_flags(tsumo=tsumo, riichi=riichi, double_riichi=double_riichi,
                            ippatsu=ippatsu, rinshan=rinshan, chankan=chankan, haitei=haitei,
                            houtei=houtei, tenhou=tenhou, chiihou=chiihou, renhou=renhou)
    if not (isinstance(honba, int) and 0 <= honba < 1000 and isinstance(riichi_sticks, int)
            and 0 <= riichi_sticks < 1000):
        raise InvalidHandError("honba and riichi_sticks must be ints 0..999", reason="bad_counter")
    if not (type(kita) is int and 0 <= kita <= 4):
        raise InvalidHandError(f"kita {kita!r}: expected 0-4 norths set aside", reason="bad_kita")
    dora_kinds, dora_red = _indicator_tiles(dora, "dora indicators")
    ura_kinds, ura_red = _indicator_tiles(ura, "ura indicators")
    if dora_red or ura_red:     # the kernel reads indicators as kinds: red fives checked here
        check_copies(hand if isinstance(hand, Hand) else Hand.parse(hand),
                     red=(("dora indicators", dora_red), ("ura indicators", ura_red)))
    return {"kita": kita, "counts": counts, "win_tile": win, "melds": melds, "red": red,
            "flags": flags, "seat_wind": sw, "round_wind": rw, "from_rel": from_rel,
            "pao_rel": pao_rel, "dora": dora_kinds, "ura": ura_kinds, "honba": honba,
            "riichi_sticks": riichi_sticks, "winner": base}


def _sanma_detail(hand: Any, dora: Any, ura: Any) -> str:
    """Which tile, meld or indicator of a sanma score is not in the 108-tile set."""
    try:
        h = hand if isinstance(hand, Hand) else Hand.parse(hand)
        for t in range(1, 8):
            if h.all_counts[t]:
                return f" ({t + 1}m)"
        if any(m.kind == 0 for m in h.melds):
            return " (a chi)"
        for what, ind in (("dora indicator", dora), ("ura indicator", ura)):
            for k in _indicators(ind, what):
                if 1 <= k <= 7:
                    return f" ({what} {k + 1}m)"
    except (InvalidHandError, TypeError, ValueError):
        pass
    return ""


_FLAG_ORDER = ("riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei",
               "tenhou", "chiihou", "renhou")


class Terms:
    """How a message names the arguments: the API's keywords (``riichi=True``); the CLI
    overrides these with its options (``--riichi``)."""

    def flag(self, name: str) -> str:
        """A situation flag (or ``tsumo``) that is set."""
        return f"{name}=True"

    def ron(self) -> str:
        """A win by ron."""
        return "tsumo=False"

    def seat(self, wind: str) -> str:
        """The winner's seat wind (E, S, W, N)."""
        return f"seat wind {wind}"

    def win(self, tile: str) -> str:
        """The winning tile."""
        return f"the winning tile {tile}"

    def kita(self, n: int) -> str:
        """The norths set aside."""
        return f"kita={n}"


def explain(code: int, hand: Any, win_tile: int | str, *, terms: Terms | None = None,
            tsumo: bool = False, seat_wind: int = 0, kita: int = 0,
            **flags: bool) -> str | None:
    """The one broken condition behind a scoring status ``code`` (bad_situation,
    wrong_tile_count or a winning tile not in the hand), with the value found; None when it
    cannot be told (the status's own message stands). ``seat_wind`` 0-3 (0 the dealer)."""
    t = terms or Terms()
    try:
        h = hand if isinstance(hand, Hand) else Hand.parse(hand)
        win = _win_kind(win_tile)
    except InvalidHandError:
        return None
    n_melds = len(h.melds)
    if code == BAD_TOTAL:
        if not n_melds:
            return (f"{h.n_closed} tiles, where a winning hand holds 14 (the winning tile "
                    "included)")
        return (f"{h.n_closed} closed tiles with {n_melds} called meld(s), where a winning hand "
                f"holds {14 - 3 * n_melds} (14 less 3 per meld, the winning tile included)")
    if code == BAD_TILE and not h.counts[win]:
        where = "among the hand's closed tiles" if n_melds else "in the hand"
        return (f"{t.win(tile_name(win))} is not {where} (the hand must include the "
                "winning tile)")
    if code != BAD_SITUATION:
        return None
    on = [name for name in _FLAG_ORDER if flags.get(name)]
    north = h.all_counts[30]
    if kita and kita + north > 4:
        return f"{t.kita(kita)} with {north} north(s) in the hand: 4 norths at most"
    closed_only = [n for n in on if n in ("riichi", "double_riichi", "ippatsu", "tenhou",
                                          "chiihou")]
    if closed_only and not h.is_closed:
        opened = next(m for m in h.melds if m.kind != 3)
        return f"{t.flag(closed_only[0])} needs a closed hand (the hand calls {opened.format()})"
    if "ippatsu" in on and not {"riichi", "double_riichi"} & set(on):
        return (f"{t.flag('ippatsu')} needs {t.flag('riichi')} or {t.flag('double_riichi')} "
                "(neither is set)")
    for name in on:
        if tsumo and name in ("chankan", "houtei", "renhou"):
            return f"{t.flag(name)} is a win by ron, not with {t.flag('tsumo')}"
        if not tsumo and name in ("rinshan", "haitei", "tenhou", "chiihou"):
            return f"{t.flag(name)} is a win by tsumo, not with {t.ron()}"
    for a, b in (("rinshan", "haitei"), ("chankan", "houtei")):
        if a in on and b in on:
            return f"{t.flag(a)} and {t.flag(b)} cannot both hold"
    wind = "ESWN"[seat_wind % 4]
    if "tenhou" in on and seat_wind != 0:
        return f"{t.flag('tenhou')} needs the dealer ({t.seat(wind)})"
    if "tenhou" in on and n_melds:
        return f"{t.flag('tenhou')} needs a hand without kans (the hand has {n_melds})"
    for name in ("chiihou", "renhou"):
        if name in on and seat_wind == 0:
            return f"{t.flag(name)} needs a non-dealer ({t.seat(wind)}, the dealer)"
    return None


def _raise_copies(hand: Any, dora: Any, ura: Any, kita: int) -> None:
    """The too_many_copies error of a score naming the tile and where its copies are."""
    h = hand if isinstance(hand, Hand) else Hand.parse(hand)
    check_copies(h, ("dora indicators", _indicators(dora, "dora indicators")),
                 ("ura indicators", _indicators(ura, "ura indicators")),
                 ("the norths set aside", [NORTH] * kita))


def raise_for_status(res: ScoreResult, what: str) -> None:
    """Raise the InvalidHandError of a negative status (mjcore.status), naming ``what``."""
    if res.status_code < 0:
        raise status_error(res.status_code, what)


_FAST_WIND = {None: 0, "E": 0, "S": 1, "W": 2, "N": 3, 0: 0, 1: 1, 2: 2, 3: 3}


def score(hand: Any, win_tile: int | str, *, tsumo: bool = False,
          seat_wind: int | str | None = None, round_wind: int | str = "E",
          dealer: int | bool | None = None, dora: Iterable[int | str] | str = (),
          ura: Iterable[int | str] | str = (), riichi: bool = False,
          double_riichi: bool = False, ippatsu: bool = False, rinshan: bool = False,
          chankan: bool = False, haitei: bool = False, houtei: bool = False,
          tenhou: bool = False, chiihou: bool = False, renhou: bool = False, honba: int = 0,
          riichi_sticks: int = 0, winner: int | None = None, from_who: int | None = None,
          pao_seat: int | None = None, kita: int = 0,
          rules: RuleSet | str | None = None) -> ScoreResult:
    """Score a winning hand (``hand`` includes ``win_tile``; a Hand or mpsz text with melds).

    ``tsumo`` or ron; ``seat_wind``/``round_wind`` E S W N (or 0-3, 1z-4z); ``dealer`` (a
    seat, or True/False); ``dora``/``ura`` indicators (kan dora included; kind ids or text);
    situation flags ``riichi`` ... ``renhou``; ``honba`` paid to this winner (0 for the second
    winner of a Tenhou double ron); ``riichi_sticks`` collected by this winner; ``winner``,
    ``from_who``, ``pao_seat`` (see the module doc for seats); ``kita`` norths the winner set
    aside (three players with nukidora only); ``rules`` a RuleSet or a preset name. Raises
    InvalidHandError for an incomplete or impossible hand; a complete hand without yaku gives
    ``is_win == False``.
    """
    params = DEFAULT_RULES._scoring if rules is None else _rules(rules).scoring_params
    players = params[11]
    if kita and not params[12]:
        raise InvalidHandError(
            f"kita={kita!r}: setting north aside needs three-player rules with nukidora "
            "(rules='tenhou_sanma')", reason="bad_kita")
    res = None
    if (type(hand) is Hand and type(win_tile) is int and 0 <= win_tile < 34 and dealer is None
            and winner is None and from_who is None and pao_seat is None
            and type(seat_wind) is not bool and type(round_wind) is not bool
            and type(honba) is int and 0 <= honba < 1000 and type(riichi_sticks) is int
            and 0 <= riichi_sticks < 1000 and type(kita) is int and 0 <= kita <= 4):
        sw = _FAST_WIND.get(seat_wind)
        rw = _FAST_WIND.get(round_wind)
        if sw is not None and rw is not None:
            flags = (F_TSUMO if tsumo else 0) | (F_RIICHI if riichi else 0) \
                | (F_DOUBLE_RIICHI if double_riichi else 0) | (F_IPPATSU if ippatsu else 0) \
                | (F_RINSHAN if rinshan else 0) | (F_CHANKAN if chankan else 0) \
                | (F_HAITEI if haitei else 0) | (F_HOUTEI if houtei else 0) \
                | (F_TENHOU if tenhou else 0) | (F_CHIIHOU if chiihou else 0) \
                | (F_RENHOU if renhou else 0)
            melds = [(m.kind, m.tiles[0], m.red, m.from_rel or 0) for m in hand.melds] \
                if hand.melds else ()
            red = hand.red
            # None when an indicator is not a plain kind id: the validating path below
            res = _score_plain(hand._packed, melds, red[0] + red[1] + red[2], win_tile, flags,
                               sw, rw, 0 if tsumo else players - 1, dora, ura, honba,
                               riichi_sticks, params, kita)
    if res is None:
        a = prepare(hand, win_tile, tsumo=tsumo, seat_wind=seat_wind, round_wind=round_wind,
                    dealer=dealer, dora=dora, ura=ura, riichi=riichi, double_riichi=double_riichi,
                    ippatsu=ippatsu, rinshan=rinshan, chankan=chankan, haitei=haitei,
                    houtei=houtei, tenhou=tenhou, chiihou=chiihou, renhou=renhou, honba=honba,
                    riichi_sticks=riichi_sticks, winner=winner, from_who=from_who,
                    pao_seat=pao_seat, kita=kita, players=players)
        res = _score_raw(a["counts"], a["melds"], a["red"], a["win_tile"], a["flags"],
                         a["seat_wind"], a["round_wind"], a["from_rel"], a["pao_rel"], a["dora"],
                         a["ura"], a["honba"], a["riichi_sticks"], params, a["winner"], a["kita"])
    if res.status_code < 0:
        if res.status_code == BAD_COUNT:
            _raise_copies(hand, dora, ura, kita)
        detail = _sanma_detail(hand, dora, ura) if res.status_code == NOT_IN_SANMA else ""
        why = explain(res.status_code, hand, win_tile, tsumo=tsumo, kita=kita,
                      seat_wind=_seat_wind_of(seat_wind, dealer, winner, players),
                      riichi=riichi, double_riichi=double_riichi, ippatsu=ippatsu,
                      rinshan=rinshan, chankan=chankan, haitei=haitei, houtei=houtei,
                      tenhou=tenhou, chiihou=chiihou, renhou=renhou)
        if why:
            raise InvalidHandError(f"hand {hand}: {why}", reason=reason_of(res.status_code),
                                   text=str(hand))
        raise_for_status(res, f"hand {hand}{detail}")
    return res


def _seat_wind_of(seat_wind: Any, dealer: Any, winner: Any, players: int) -> int:
    """The seat wind (0 dealer) that :func:`prepare` derives, for a message only."""
    try:
        return int(prepare("11z", "1z", seat_wind=seat_wind, dealer=dealer, winner=winner,
                           players=players)["seat_wind"])
    except InvalidHandError:
        return 0


def score_counts(counts: Any, win_tile: int, *, melds: Iterable[tuple[int, int, int, int]] = (),
                 red: int = 0, flags: int = 0, seat_wind: int = 0, round_wind: int = 0,
                 from_rel: int = 3, pao_rel: int = -1, dora: Sequence[int] = (),
                 ura: Sequence[int] = (), honba: int = 0, riichi_sticks: int = 0,
                 rules: RuleSet | None = None, winner: int = 0, kita: int = 0) -> ScoreResult:
    """Low-level scoring from 34 closed counts and melds ``(kind, lowest tile, red, from_rel)``
    (kind: 0 chi, 1 pon, 2 open kan, 3 closed kan, 4 added kan); seats relative to the winner.
    Errors are not raised: check ``result.status``."""
    return _sc.score_raw(counts, list(melds), red, win_tile, flags, seat_wind, round_wind,
                         from_rel, pao_rel, dora, ura, honba, riichi_sticks,
                         (rules or DEFAULT_RULES).scoring_params, winner, kita)


__all__ = [
    "LIMIT_NAMES",
    "YAKU_NAMES",
    "FuEntry",
    "ScoreResult",
    "Terms",
    "Yaku",
    "explain",
    "prepare",
    "score",
    "score_counts",
    "situation_flags",
]

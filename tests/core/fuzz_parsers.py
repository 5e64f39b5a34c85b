"""atheris fuzz harness for the text parsers (run by hand, not collected by pytest).

    .venv/bin/python tests/core/fuzz_parsers.py -atheris_runs=200000
    MJCORE_DEBUG=1 make debug-build && \
        .venv/bin/python tests/core/fuzz_parsers.py -max_total_time=60

Every input must either parse or raise InvalidHandError; a parsed hand must round-trip through
its text form, and ``Hand.parse`` (with the notation's fast path) must give what the parser
alone gives, hand or error. Anything else (another exception, a wrong round trip, a
disagreement) is a finding.
"""
from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout

with atheris.instrument_imports():
    from mjcore import notation
    from mjcore.errors import InvalidHandError
    from mjcore.hand import Hand, Meld, parse_counts
    from mjcore.riichi.dora import count_dora, dora_from_indicator
    from mjcore.tiles import kinds_from_136, parse_tile, parse_tiles


def _parser_alone(text: str) -> Hand | InvalidHandError:
    try:
        return Hand(*notation.parse_tokens(text, (1, 1, 1), fast=False))
    except InvalidHandError as err:
        return err


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    choice = fdp.ConsumeIntInRange(0, 6)
    text = fdp.ConsumeUnicodeNoSurrogates(64)
    try:
        if choice == 0:
            alone = _parser_alone(text)
            try:
                hand = Hand.parse(text)
            except InvalidHandError as err:
                assert isinstance(alone, InvalidHandError), (text, alone)
                assert (str(err), err.reason, err.position) == \
                    (str(alone), alone.reason, alone.position), text
                raise
            assert alone == hand and str(alone) == str(hand), text
            assert Hand.parse(str(hand)) == hand, (text, str(hand))
            assert Hand.parse(hand.format(letter_first=True)) == hand, text
            assert parse_counts(text) == (list(hand.counts), hand.n_melds), text
        elif choice == 1:
            parse_tiles(text)
        elif choice == 2:
            parse_tile(text)
        elif choice == 3:
            meld = Meld.parse(text)
            assert Meld.parse(str(meld)) == meld, text
        elif choice == 4:
            counts, n_melds = parse_counts(text)
            assert len(counts) == 34 and 0 <= n_melds <= 4
        elif choice == 5:
            dora_from_indicator(text)
            count_dora("123m", text, text)
        else:
            ids = [fdp.ConsumeIntInRange(-2, 140) for _ in range(fdp.ConsumeIntInRange(0, 20))]
            kinds_from_136(ids)
            Hand.from_136(ids)
    except InvalidHandError:
        pass


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

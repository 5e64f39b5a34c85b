"""The HPACK decoder (service/front/hpack.h through service/front/_hpack.pyx) against RFC 7541
and against the `hpack` package as an independent oracle.

`python tests/service/front/test_hpack.py --tables` prints the Huffman tables embedded in hpack.h.
"""
from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import hpack
import pytest
from hpack import InvalidTableIndex, InvalidTableSizeError, huffman_constants
from hpack.huffman import HuffmanEncoder
from hpack.struct import NeverIndexedHeaderTuple
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HEADER = Path(__file__).resolve().parents[3] / "service" / "front" / "hpack.h"


def _load_hpack_module() -> ModuleType:
    """Loads the built extension by path: importing it through `mjcore.service` would run the
    service package's __init__ (grpc and every other front), which this module does not need."""
    spec = importlib.util.find_spec("mjcore.service")
    assert spec is not None and spec.submodule_search_locations
    folder = Path(spec.submodule_search_locations[0]) / "front"
    built = sorted(folder.glob("_hpack.*.so")) + sorted(folder.glob("_hpack.*.pyd"))
    if not built:
        raise ImportError(f"no built _hpack in {folder}: run MJCORE_ONLY=_hpack make build")
    name = "mjcore.service.front._hpack"
    if name in sys.modules:
        return sys.modules[name]
    loader = importlib.machinery.ExtensionFileLoader(name, str(built[0]))
    module_spec = importlib.util.spec_from_file_location(name, built[0], loader=loader)
    assert module_spec is not None
    module = importlib.util.module_from_spec(module_spec)
    loader.exec_module(module)
    return module


_hpack = _load_hpack_module()
HeaderDecoder = _hpack.HeaderDecoder
HpackError = _hpack.HpackError
CODES = _hpack.ERROR_CODES

Headers = list[tuple[bytes, bytes]]


# --- the Huffman tables in hpack.h, regenerated from the RFC's code lengths -------------------

def huffman_tables_c() -> str:
    """C text of the decoding tables. The code is canonical (RFC 7541 Appendix B), so the code
    lengths determine everything: symbols sorted by (length, symbol), the first code and the
    first sorted position of each length, each length's left-aligned 32-bit upper limit, and an
    8-bit first-level table of (length << 8 | symbol) for codes of at most 8 bits."""
    lengths = huffman_constants.REQUEST_CODES_LENGTH
    codes = huffman_constants.REQUEST_CODES
    order = sorted(range(257), key=lambda s: (lengths[s], s))
    count = [0] * 31
    for symbol in order:
        count[lengths[symbol]] += 1
    first, base, limit = [0] * 31, [0] * 31, [0] * 31
    code = position = 0
    for n in range(1, 31):
        first[n], base[n] = code, position
        limit[n] = (code + count[n]) << (32 - n)
        code = (code + count[n]) << 1
        position += count[n]
    primary = [0] * 256
    for symbol in range(257):
        n = lengths[symbol]
        if n <= 8:
            for low in range(1 << (8 - n)):
                primary[(codes[symbol] << (8 - n)) | low] = (n << 8) | symbol

    def array(ctype: str, name: str, values: list[int], per_line: int, fmt: str) -> str:
        lines = [f"static const {ctype} {name}[{len(values)}] = {{"]
        for i in range(0, len(values), per_line):
            lines.append("    " + ", ".join(fmt.format(v) for v in values[i:i + per_line]) + ",")
        lines.append("};")
        return "\n".join(lines)

    return "\n".join([
        array("uint16_t", "hpack__huff_primary", primary, 12, "0x{:04x}"),
        array("uint16_t", "hpack__huff_sorted", order, 16, "{}"),
        array("uint32_t", "hpack__huff_first", first, 8, "0x{:x}u"),
        array("uint16_t", "hpack__huff_base", base, 16, "{}"),
        array("uint64_t", "hpack__huff_limit", limit, 4, "0x{:x}ull"),
    ])


def test_huffman_tables_match_rfc_code() -> None:
    text = HEADER.read_text()
    embedded = re.search(r"/\* BEGIN HUFFMAN TABLES \*/\n(.*)\n/\* END HUFFMAN TABLES \*/", text,
                         re.DOTALL)
    assert embedded is not None
    assert embedded.group(1) == huffman_tables_c()


# --- a plainly written encoder for crafting blocks --------------------------------------------

def enc_int(value: int, prefix_bits: int, flags: int = 0) -> bytes:
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([flags | value])
    out = [flags | limit]
    value -= limit
    while value >= 128:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    out.append(value)
    return bytes(out)


def huffman(data: bytes) -> bytes:
    return HuffmanEncoder(huffman_constants.REQUEST_CODES,
                          huffman_constants.REQUEST_CODES_LENGTH).encode(data)


def enc_str(data: bytes, use_huffman: bool = False) -> bytes:
    if use_huffman:
        coded = huffman(data)
        return enc_int(len(coded), 7, 0x80) + coded
    return enc_int(len(data), 7) + data


# representation kinds: (first-byte flags, prefix bits)
INCREMENTAL, WITHOUT, NEVER = (0x40, 6), (0x00, 4), (0x10, 4)


def literal(kind: tuple[int, int], name: bytes | int, value: bytes, use_huffman: bool = False
            ) -> bytes:
    flags, prefix = kind
    if isinstance(name, int):
        return enc_int(name, prefix, flags) + enc_str(value, use_huffman)
    return enc_int(0, prefix, flags) + enc_str(name, use_huffman) + enc_str(value, use_huffman)


def indexed(index: int) -> bytes:
    return enc_int(index, 7, 0x80)


def size_update(size: int) -> bytes:
    return enc_int(size, 5, 0x20)


def oracle(max_table_size: int = 4096) -> hpack.Decoder:
    decoder = hpack.Decoder(max_header_list_size=1 << 30)
    decoder.max_allowed_table_size = max_table_size
    decoder.header_table_size = max_table_size
    return decoder


def oracle_decode(decoder: hpack.Decoder, block: bytes) -> Headers:
    return [(bytes(n), bytes(v)) for n, v in decoder.decode(block, raw=True)]


def oracle_table(decoder: hpack.Decoder) -> Headers:
    return [(bytes(n), bytes(v)) for n, v in decoder.header_table.dynamic_entries]


def oracle_size(decoder: hpack.Decoder) -> int:
    return sum(len(n) + len(v) + 32 for n, v in decoder.header_table.dynamic_entries)


def error_code(decoder: Any, block: bytes) -> int:
    with pytest.raises(HpackError) as info:
        decoder.decode(block)
    assert isinstance(info.value, ValueError)
    error: Any = info.value
    assert error.name in CODES and CODES[error.name] == error.code
    return int(error.code)


# --- RFC 7541 -----------------------------------------------------------------------------------

def test_static_table_matches_rfc_appendix_a() -> None:
    table = hpack.table.HeaderTable.STATIC_TABLE
    assert len(table) == 61
    decoder = HeaderDecoder()
    for index, entry in enumerate(table, start=1):
        assert decoder.decode(indexed(index)) == [entry]
    assert error_code(decoder, indexed(62)) == CODES["HPACK_E_INDEX"]


def _hex(text: str) -> bytes:
    return bytes.fromhex("".join(text.split()))


GET_HTTP = [(b":method", b"GET"), (b":scheme", b"http"), (b":path", b"/"),
            (b":authority", b"www.example.com")]
GET_HTTPS = [(b":method", b"GET"), (b":scheme", b"https"), (b":path", b"/index.html"),
             (b":authority", b"www.example.com"), (b"custom-key", b"custom-value")]
REQUESTS = [  # C.3 / C.4: (headers, table size after)
    (GET_HTTP, 57),
    (GET_HTTP + [(b"cache-control", b"no-cache")], 110),
    (GET_HTTPS, 164),
]
DATE1, DATE2 = b"Mon, 21 Oct 2013 20:13:21 GMT", b"Mon, 21 Oct 2013 20:13:22 GMT"
LOCATION = (b"location", b"https://www.example.com")
RESPONSES = [  # C.5 / C.6, 256-octet table
    ([(b":status", b"302"), (b"cache-control", b"private"), (b"date", DATE1), LOCATION], 222),
    ([(b":status", b"307"), (b"cache-control", b"private"), (b"date", DATE1), LOCATION], 222),
    ([(b":status", b"200"), (b"cache-control", b"private"), (b"date", DATE2), LOCATION,
      (b"content-encoding", b"gzip"),
      (b"set-cookie", b"foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1")], 215),
]
APPENDIX_C = {
    "C.3": (4096, REQUESTS, [
        "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
        "8286 84be 5808 6e6f 2d63 6163 6865",
        "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
    ]),
    "C.4": (4096, REQUESTS, [
        "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
        "8286 84be 5886 a8eb 1064 9cbf",
        "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
    ]),
    "C.5": (256, RESPONSES, [
        ("4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133"
        " 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70"
        " 6c65 2e63 6f6d"),
        "4803 3330 37c1 c0bf",
        ("88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d"
        " 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049"
        " 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e"
        " 3d31"),
    ]),
    "C.6": (256, RESPONSES, [
        ("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6"
        " 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3"),
        "4883 640e ffc1 c0bf",
        ("88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab"
        " 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f"
        " 9587 3160 65c0 03ed 4ee5 b106 3d50 07"),
    ]),
}


@pytest.mark.parametrize("section", sorted(APPENDIX_C))
def test_rfc7541_appendix_c_sequences(section: str) -> None:
    max_size, expected, blocks = APPENDIX_C[section]
    decoder, reference = HeaderDecoder(max_size), oracle(max_size)
    for block_hex, (headers, table_size) in zip(blocks, expected, strict=True):
        block = _hex(block_hex)
        assert decoder.decode(block) == headers == oracle_decode(reference, block)
        assert decoder.table_size == table_size
        assert decoder.dynamic_entries() == oracle_table(reference)


@pytest.mark.parametrize(("block_hex", "headers", "table"), [
    ("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
     [(b"custom-key", b"custom-header")], [(b"custom-key", b"custom-header")]),  # C.2.1
    ("040c 2f73 616d 706c 652f 7061 7468", [(b":path", b"/sample/path")], []),  # C.2.2
    ("1008 7061 7373 776f 7264 0673 6563 7265 74", [(b"password", b"secret")], []),  # C.2.3
    ("82", [(b":method", b"GET")], []),  # C.2.4
])
def test_rfc7541_appendix_c2_single_fields(block_hex: str, headers: Headers, table: Headers
                                           ) -> None:
    decoder = HeaderDecoder()
    assert decoder.decode(_hex(block_hex)) == headers
    assert decoder.dynamic_entries() == table


# --- against the hpack package --------------------------------------------------------------

names = st.one_of(
    st.sampled_from([n for n, _ in hpack.table.HeaderTable.STATIC_TABLE]),
    st.sampled_from([b"x-custom", b"grpc-timeout", b"te", b"x-a", b""]),
    st.binary(min_size=0, max_size=40),
)
values = st.one_of(st.sampled_from([b"", b"GET", b"trailers", b"application/grpc"]),
                   st.binary(min_size=0, max_size=120))
header_lists = st.lists(st.tuples(names, values, st.booleans()), min_size=0, max_size=12)
blocks_spec = st.lists(
    st.tuples(header_lists, st.booleans(), st.one_of(st.none(), st.integers(0, 600))),
    min_size=1, max_size=8)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks_spec, st.sampled_from([0, 64, 256, 600, 4096]))
def test_matches_hpack_encoder_and_decoder(spec, max_table_size: int) -> None:
    """Blocks from hpack.Encoder (Huffman or not, never-indexed fields, table size changes that
    it signals as size updates) decode as hpack.Decoder decodes them, with equal tables."""
    encoder = hpack.Encoder()
    encoder.header_table_size = max_table_size
    decoder, reference = HeaderDecoder(max_table_size), oracle(max_table_size)
    for headers, use_huffman, new_size in spec:
        if new_size is not None:
            encoder.header_table_size = min(new_size, max_table_size)
        fields = [NeverIndexedHeaderTuple(n, v) if sensitive else (n, v)
                  for n, v, sensitive in headers]
        block = encoder.encode(fields, huffman=use_huffman)
        expected = oracle_decode(reference, block)
        assert expected == [(n, v) for n, v, _ in headers]
        assert decoder.decode(block) == expected
        assert decoder.table_size == oracle_size(reference)
        assert decoder.max_table_size == reference.header_table_size
        assert decoder.dynamic_entries() == oracle_table(reference)


representation = st.one_of(
    st.builds(indexed, st.integers(1, 75)),
    st.builds(literal, st.sampled_from([INCREMENTAL, WITHOUT, NEVER]),
              st.one_of(st.integers(1, 75), names), values, st.booleans()),
)
crafted_block = st.tuples(st.lists(st.integers(0, 300), max_size=2),
                          st.lists(representation, max_size=10))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(crafted_block, min_size=1, max_size=8))
def test_every_representation_matches_hpack_decoder(blocks) -> None:
    """All three literal kinds with indexed or literal names, indexes that may point past the
    table, size updates: success and failure agree with hpack.Decoder, as do tables."""
    decoder, reference = HeaderDecoder(256), oracle(256)
    for updates, fields in blocks:
        block = b"".join(size_update(s) for s in updates) + b"".join(fields)
        try:
            expected = oracle_decode(reference, block)
        except (InvalidTableIndex, InvalidTableSizeError):
            with pytest.raises(HpackError) as info:
                decoder.decode(block)
            assert info.value.name in ("HPACK_E_INDEX", "HPACK_E_TABLE_SIZE")
            return
        assert decoder.decode(block) == expected
        assert decoder.dynamic_entries() == oracle_table(reference)
        assert decoder.table_size == oracle_size(reference)


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=0, max_size=200))
def test_huffman_strings_of_any_bytes(data: bytes) -> None:
    decoder = HeaderDecoder()
    block = literal(WITHOUT, 0, b"", False)[:1] + enc_str(b"n", True) + enc_str(data, True)
    assert decoder.decode(block) == [(b"n", data)]


def test_huffman_every_symbol_and_padding() -> None:
    decoder = HeaderDecoder()
    for symbol in range(256):
        for repeat in range(1, 9):  # every padding length
            data = bytes([symbol]) * repeat
            assert decoder.decode(literal(WITHOUT, 1, data, True)) == [(b":authority", data)]


# --- the dynamic table's edge cases -------------------------------------------------------------

def test_entry_exactly_table_size_is_kept_and_larger_empties_table() -> None:
    decoder = HeaderDecoder(100)
    decoder.decode(literal(INCREMENTAL, b"a", b"b"))
    exact = (b"n" * 30, b"v" * 38)  # 30 + 38 + 32 = 100
    decoder.decode(literal(INCREMENTAL, *exact))
    assert decoder.dynamic_entries() == [exact] and decoder.table_size == 100
    assert decoder.decode(literal(INCREMENTAL, b"n" * 30, b"v" * 39)) == [(b"n" * 30, b"v" * 39)]
    assert decoder.dynamic_entries() == [] and decoder.table_size == 0
    assert error_code(decoder, indexed(62)) == CODES["HPACK_E_INDEX"]


def test_new_entry_may_name_the_entry_it_evicts() -> None:
    """RFC 7541 4.4: the referenced name must survive the eviction of its entry."""
    decoder = HeaderDecoder(100)
    first = (b"n" * 30, b"v" * 30)
    decoder.decode(literal(INCREMENTAL, *first))
    assert decoder.decode(literal(INCREMENTAL, 62, b"w" * 30)) == [(b"n" * 30, b"w" * 30)]
    assert decoder.dynamic_entries() == [(b"n" * 30, b"w" * 30)]
    # the same with Huffman, and with the buffer compacted or grown in between
    for i in range(200):
        value = bytes([65 + i % 26]) * (i % 37)
        block = literal(INCREMENTAL, 62, value, i % 2 == 1)
        assert decoder.decode(block) == [(b"n" * 30, value)]
        assert decoder.dynamic_entries() == [(b"n" * 30, value)]


@pytest.mark.parametrize("max_table_size", [150, 700, 4096])
def test_names_from_the_table_survive_compaction_and_growth(max_table_size: int) -> None:
    """Many inserts whose names point at live or just-evicted entries, while the table buffer
    is compacted and grown, against hpack.Decoder."""
    rng = random.Random(max_table_size)
    decoder, reference = HeaderDecoder(max_table_size), oracle(max_table_size)
    for _ in range(1500):
        size = len(reference.header_table.dynamic_entries)
        value = bytes(rng.randrange(97, 123) for _ in range(rng.randrange(0, 90)))
        if size and rng.random() < 0.7:
            name: bytes | int = 62 + rng.randrange(size)
        else:
            name = bytes(rng.randrange(97, 123) for _ in range(rng.randrange(0, 40)))
        block = literal(INCREMENTAL, name, value, rng.random() < 0.5)
        assert decoder.decode(block) == oracle_decode(reference, block)
        assert decoder.dynamic_entries() == oracle_table(reference)
        if reference.header_table.dynamic_entries:
            block = indexed(62 + rng.randrange(len(reference.header_table.dynamic_entries)))
            assert decoder.decode(block) == oracle_decode(reference, block)


def test_name_of_oldest_entry_while_buffer_grows() -> None:
    """The oldest entry sits at the start of the buffer that growth frees."""
    decoder, reference = HeaderDecoder(4096), oracle(4096)
    block = literal(INCREMENTAL, b"n" * 30, b"")
    for i in range(60):
        assert decoder.decode(block) == oracle_decode(reference, block)
        assert decoder.dynamic_entries() == oracle_table(reference)
        oldest = 61 + len(reference.header_table.dynamic_entries)
        block = literal(INCREMENTAL, oldest, b"v" * (i * 5))


def test_empty_entries_and_many_small_entries() -> None:
    decoder, reference = HeaderDecoder(4096), oracle(4096)
    block = literal(INCREMENTAL, b"", b"") * 3 + indexed(62) + indexed(64)
    assert decoder.decode(block) == oracle_decode(reference, block) == [(b"", b"")] * 5
    for i in range(400):  # the ring of entries grows, wraps and evicts
        block = literal(INCREMENTAL, b"k%d" % i, b"v" * (i % 50)) + indexed(62 + i % 3)
        assert decoder.decode(block) == oracle_decode(reference, block)
    assert decoder.dynamic_entries() == oracle_table(reference)


def test_size_updates() -> None:
    decoder = HeaderDecoder(4096)
    decoder.decode(literal(INCREMENTAL, b"a", b"b") + literal(INCREMENTAL, b"c", b"d"))
    decoder.decode(size_update(34))  # keeps only the newest
    assert decoder.dynamic_entries() == [(b"c", b"d")] and decoder.max_table_size == 34
    decoder.decode(size_update(0) + size_update(4096) + literal(INCREMENTAL, b"e", b"f"))
    assert decoder.dynamic_entries() == [(b"e", b"f")] and decoder.max_table_size == 4096


# --- malformed blocks -------------------------------------------------------------------------

@pytest.mark.parametrize(("block", "code"), [
    (b"\x40", "HPACK_E_TRUNCATED"),  # literal, name length missing
    (b"\x40\x05ab", "HPACK_E_TRUNCATED"),  # name shorter than its length
    (b"\x00\x01a", "HPACK_E_TRUNCATED"),  # value missing
    (b"\x04\x81", "HPACK_E_TRUNCATED"),  # Huffman value shorter than its length
    (b"\xff", "HPACK_E_TRUNCATED"),  # index ends before its continuation
    (b"\xff\x80\x80", "HPACK_E_TRUNCATED"),
    (b"\x3f", "HPACK_E_TRUNCATED"),  # size update ends before its continuation
    (b"\xff\xff\xff\xff\xff\x0f", "HPACK_E_INTEGER"),  # 127 + 2^32 - 1
    (b"\xff\x80\x80\x80\x80\x80\x00", "HPACK_E_INTEGER"),  # 6 continuation bytes
    (b"\x00\x7f\xff\xff\xff\xff\x07", "HPACK_E_INTEGER"),  # string length 2^31 + 126
    (b"\xff\x80\xff\xff\xff\x07", "HPACK_E_INDEX"),  # index 2^31 - 1: a valid integer
    (b"\x80", "HPACK_E_INDEX"),
    (b"\xbe", "HPACK_E_INDEX"),  # 62 with an empty dynamic table
    (b"\x7e\x01a", "HPACK_E_INDEX"),  # literal naming entry 62
    (b"\x0f\x2f\x01a", "HPACK_E_INDEX"),  # literal naming entry 62 (4-bit prefix)
    (b"\x00\x01n\x84\xff\xff\xff\xfc", "HPACK_E_HUFFMAN"),  # EOS (30 ones) in a string
    (b"\x00\x01n\x82\x1f\xff", "HPACK_E_HUFFMAN"),  # 'a' then 11 bits of padding
    (b"\x00\x01n\x81\x18", "HPACK_E_HUFFMAN"),  # 'a' then padding 000
    (b"\x00\x01n\x81\xfe", "HPACK_E_HUFFMAN"),  # 7 bits of padding with a zero
    (b"\x00\x01n\x83" + huffman(b"abc") + b"\xff", "HPACK_E_HUFFMAN"),  # 8 bits of padding
    (b"\x82\x20", "HPACK_E_TABLE_SIZE"),  # size update after a field
    (b"\x3f\xe2\x1f", "HPACK_E_TABLE_SIZE"),  # 4097 > 4096
])
def test_malformed_block_error_codes(block: bytes, code: str) -> None:
    decoder = HeaderDecoder(4096)
    assert error_code(decoder, block) == CODES[code]
    assert error_code(decoder, indexed(2)) == CODES["HPACK_E_UNUSABLE"]


def test_valid_neighbours_of_malformed_blocks() -> None:
    decoder = HeaderDecoder(4096)
    assert decoder.decode(b"\x00\x01n\x81\x1f") == [(b"n", b"a")]  # 'a' + 3 bits of ones
    assert decoder.decode(b"\x00\x01n\x80") == [(b"n", b"")]  # empty Huffman string
    assert decoder.decode(b"\x3f\xe1\x1f") == []  # size update to exactly 4096
    assert decoder.decode(size_update(0) + size_update(4096)) == []
    # index 15 with 5 continuation bytes, the most accepted
    assert decoder.decode(b"\x0f\x80\x80\x80\x80\x00\x01x") == [(b"accept-charset", b"x")]


def test_error_reports_offset_of_failing_field() -> None:
    with pytest.raises(HpackError) as info:
        HeaderDecoder().decode(indexed(2) + indexed(3) + b"\x00\x01n\x81\x18")
    assert info.value.offset == 2 and "HPACK_E_HUFFMAN" in str(info.value)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300), st.sampled_from([0, 100, 4096]))
def test_random_bytes_decode_or_raise(data: bytes, max_table_size: int) -> None:
    decoder = HeaderDecoder(max_table_size)
    decoder.decode(literal(INCREMENTAL, b"x-primed", b"value"))
    try:
        result = decoder.decode(data)
    except HpackError:
        return
    assert all(isinstance(n, bytes) and isinstance(v, bytes) for n, v in result)


@settings(max_examples=300, deadline=None)
@given(header_lists, st.booleans(), st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)),
                                             min_size=1, max_size=4))
def test_mutated_blocks_decode_or_raise(headers, use_huffman: bool, edits) -> None:
    block = bytearray(hpack.Encoder().encode([(n, v) for n, v, _ in headers],
                                             huffman=use_huffman))
    for position, byte in edits:
        if block:
            block[position % len(block)] = byte
    for data in (bytes(block), bytes(block[: len(block) // 2])):
        with contextlib.suppress(HpackError):
            HeaderDecoder().decode(data)


@pytest.mark.skipif(not sys.platform.startswith("linux") or "asan" in os.environ.get(
    "LD_PRELOAD", ""), reason="RLIMIT_AS test: Linux, not under AddressSanitizer")
def test_out_of_memory_is_reported() -> None:
    """HPACK_E_NOMEM: a 40 MB literal to index into a 2^31 - 1 table under a tight RLIMIT_AS."""
    script = f"""
import resource, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_hpack import HeaderDecoder, HpackError, literal, INCREMENTAL
decoder = HeaderDecoder(2**31 - 1)
block = literal(INCREMENTAL, b"n", b"v" * 40_000_000)
size = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (size + 60_000_000, resource.RLIM_INFINITY))
try:
    decoder.decode(block)
except HpackError as exc:
    print(exc.name)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=False, timeout=60)
    assert result.stdout.strip() == "HPACK_E_NOMEM", result.stderr


def test_bench_decode_runs() -> None:
    block = hpack.Encoder().encode([(":method", "POST"), (":path", "/a")], huffman=True)
    assert _hpack.bench_decode(block, 10, fresh=True) > 0
    assert _hpack.bench_decode(block, 10, setup=[block]) > 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--tables"]:
        print(huffman_tables_c())

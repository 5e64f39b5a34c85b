"""32 clients at once, mixing unary and streaming calls: every answer equals the library's."""
from __future__ import annotations

import threading

import numpy as np

import mjcore
from mjcore import batch
from mjcore.client import Client
from mjcore.hand import Hand
from mjcore.riichi.batch_scoring import pack
from mjcore.riichi.batch_scoring import score as score_batch
from mjcore.service import ServerConfig
from mjcore.tiles import format_counts

from .service_helpers import random_counts, start
from .test_bulk import _score_rows

N_CLIENTS = 32


def test_32_concurrent_clients_match_the_library():
    server, port = start(ServerConfig(port=0, workers=16, max_batch=4096))
    failures: list[str] = []
    barrier = threading.Barrier(N_CLIENTS)

    def worker(i: int) -> None:
        try:
            counts = random_counts(3000, 13 + i % 2, 1000 + i)
            if i % 4 == 3:
                counts[17, 0] = 5                     # a bad row in some clients' batches
            texts = [format_counts(c) for c in random_counts(12, 13, 2000 + i)]
            rows = _score_rows(300, 3000 + i)
            arrays = pack(rows)
            with Client(f"127.0.0.1:{port}", batch_size=512 + 64 * i,
                        encoding=("nibble", "packed", "counts")[i % 3], streams=1 + i % 3) as c:
                barrier.wait(30)
                want = batch.shanten(counts)
                got = c.shanten(counts)
                assert np.array_equal(got.status, want.status)
                assert np.array_equal(got.shanten, want.shanten)
                if counts.sum(axis=1)[0] == 13:
                    assert np.array_equal(c.waits(counts[want.ok]).mask,
                                          batch.waits(counts[want.ok]).mask)
                else:
                    assert np.array_equal(c.is_agari(counts[want.ok]).agari,
                                          batch.is_agari(counts[want.ok]).agari)
                for text in texts:
                    got_a = c.analyze(text)
                    hand = Hand.parse(text)
                    assert got_a.shanten.standard == mjcore.shanten(hand).standard
                    assert got_a.waits is not None
                    assert got_a.waits.tiles == mjcore.waits(hand).tiles
                    assert got_a.ukeire.options == mjcore.ukeire(hand).options
                row = rows[i % len(rows)]
                got_s = c.score(row["hand"], row["win_tile"], **{
                    k: v for k, v in row.items() if k not in ("hand", "win_tile")})
                want_s = mjcore.score(row["hand"], row["win_tile"], **{
                    k: v for k, v in row.items() if k not in ("hand", "win_tile")})
                assert (got_s.points, got_s.han, got_s.fu) == (want_s.points, want_s.han,
                                                               want_s.fu)
                ws = score_batch(**arrays)
                counts_s = arrays.pop("counts")
                got_b = c.score_batch(counts_s, arrays.pop("win_tile"), **arrays)
                assert np.array_equal(got_b.points, ws.points)
                assert np.array_equal(got_b.deltas, ws.deltas)
        except Exception as exc:  # noqa: BLE001  (reported by the main thread)
            failures.append(f"client {i}: {exc!r}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(N_CLIENTS)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        server.stop(0).wait()
    assert not failures, failures
    assert server.servicer.active == 0

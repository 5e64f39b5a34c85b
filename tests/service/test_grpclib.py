"""An independent gRPC stack (grpclib, pure Python, no grpcio) calls the service.

The client code is generated at test time from proto/mjcore/v1/*.proto alone, into a temporary
directory, and runs in a subprocess that never imports grpcio or mjcore.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mjcore
from mjcore import batch
from mjcore.service import ServerConfig

from .service_helpers import TOKEN, random_counts, start

pytest.importorskip("grpclib")
ROOT = Path(__file__).resolve().parents[2]

CLIENT = r'''
import asyncio, json, sys
from grpclib.client import Channel
from grpclib.exceptions import GRPCError
from grpclib.health.v1 import health_pb2, health_grpc
from mjcore.v1 import analysis_service_pb2 as pb, analysis_service_grpc as pb_grpc
from mjcore.v1 import scoring_pb2 as sp, types_pb2

async def main(port, token, counts_hex):
    meta = {"authorization": "Bearer " + token}
    out = {}
    async with Channel("127.0.0.1", port) as channel:
        health = health_grpc.HealthStub(channel)
        out["health"] = (await health.Check(health_pb2.HealthCheckRequest())).status
        stub = pb_grpc.HandAnalysisServiceStub(channel)
        try:
            await stub.ListRulePresets(pb.ListRulePresetsRequest())
        except GRPCError as err:
            out["no_token"] = err.status.name
        r = await stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="123m456p789s1122z"),
                                   metadata=meta)
        out["analyze"] = [r.shanten.shanten, [t.tile for t in r.waits.tiles],
                          len(r.ukeire.options)]
        try:
            await stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="11111m"), metadata=meta)
        except GRPCError as err:
            out["bad_hand"] = err.status.name
        r = await stub.Score(sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                                             win_method=sp.WIN_METHOD_RON), metadata=meta)
        out["score"] = [r.han, r.fu, r.points]
        r = await stub.Score(sp.ScoreRequest(
            hand="123p456p789s11z555z", win_tile="5z", win_method=sp.WIN_METHOD_TSUMO,
            kita_count=2, rules=sp.RuleSelection(preset="tenhou_sanma")), metadata=meta)
        out["sanma"] = [r.han, r.dora_count, r.points, list(r.deltas)]
        try:
            await stub.Score(sp.ScoreRequest(hand="123m456p789s11122z", win_tile="2z",
                                             win_method=sp.WIN_METHOD_RON, seat_wind=9),
                             metadata=meta)
        except GRPCError as err:
            out["bad_enum"] = [err.status.name, err.message]
        presets = await stub.ListRulePresets(pb.ListRulePresetsRequest(), metadata=meta)
        out["presets"] = [p.name for p in presets.presets]
        data = bytes.fromhex(counts_hex)
        half = len(data) // 68 * 34
        shanten = []
        async with stub.StreamShanten.open(metadata=meta) as stream:
            for chunk in (data[:half], data[half:]):
                await stream.send_message(pb.StreamShantenRequest(hands=types_pb2.PackedHands(
                    encoding=types_pb2.HAND_ENCODING_COUNTS_U8, data=chunk)))
            await stream.end()
            async for response in stream:
                shanten.append([response.batch, list(response.shanten)])
        out["stream"] = shanten
    out["grpcio_loaded"] = "grpc" in sys.modules or "grpc._cython" in sys.modules
    out["mjcore_loaded"] = any(m == "mjcore" and hasattr(sys.modules[m], "shanten")
                               for m in sys.modules)
    print(json.dumps(out))

asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3]))
'''


def _generate(out: Path) -> None:
    plugin = out / "protoc-gen-grpclib_python"
    plugin.write_text(f"#!{sys.executable}\nfrom grpclib.plugin.main import main\nmain()\n")
    plugin.chmod(0o755)
    from grpc_tools import protoc

    protos = sorted(str(p.relative_to(ROOT / "proto"))
                    for p in (ROOT / "proto" / "mjcore" / "v1").glob("*.proto"))
    args = ["protoc", f"-I{ROOT / 'proto'}", f"--python_out={out}",
            f"--plugin=protoc-gen-grpclib_python={plugin}", f"--grpclib_python_out={out}",
            *protos]
    assert protoc.main(args) == 0
    for pkg in (out / "mjcore", out / "mjcore" / "v1"):
        (pkg / "__init__.py").write_text("")
    assert (out / "mjcore" / "v1" / "analysis_service_grpc.py").exists()


def test_grpclib_client_generated_from_the_protos(tmp_path):
    _generate(tmp_path)
    (tmp_path / "client.py").write_text(CLIENT)
    server, port = start(ServerConfig(port=0, token=TOKEN))
    counts = random_counts(300, 13, 42)
    try:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        r = subprocess.run([sys.executable, str(tmp_path / "client.py"), str(port), TOKEN,
                            counts.tobytes().hex()], cwd=tmp_path, check=False,
                           capture_output=True, text=True, timeout=60, env=env)
    finally:
        server.stop(0).wait()
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["grpcio_loaded"] is False and out["mjcore_loaded"] is False
    assert out["health"] == 1                       # SERVING
    assert out["no_token"] == "UNAUTHENTICATED"
    assert out["bad_hand"] == "INVALID_ARGUMENT"
    w = mjcore.waits("123m456p789s1122z")
    assert out["analyze"] == [0, [mjcore.tile_name(x.tile) for x in w.tiles],
                              len(mjcore.ukeire("123m456p789s1122z").options)]
    s = mjcore.score("123m456p789s11122z", "2z")
    assert out["score"] == [s.han, s.fu, s.points]
    s = mjcore.score("123p456p789s11z555z", "5z", tsumo=True, kita=2, rules="tenhou_sanma")
    assert out["sanma"] == [s.han, s.dora, s.points, list(s.deltas)] and s.dora == 2
    assert out["bad_enum"][0] == "INVALID_ARGUMENT" and "seat_wind" in out["bad_enum"][1]
    assert out["presets"] == ["tenhou", "ema", "wrc", "tenhou_sanma"]
    assert [b for b, _ in out["stream"]] == [0, 1]
    got = np.array([v for _, vals in out["stream"] for v in vals], dtype=np.uint8).view(np.int8)
    assert np.array_equal(got, batch.shanten(counts).shanten)

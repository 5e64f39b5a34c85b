"""Bearer token, TLS and mutual TLS."""
from __future__ import annotations

import grpc
import numpy as np
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from mjcore import batch
from mjcore.client import Client, ServiceError
from mjcore.service import ServerConfig
from mjcore.wire.v1 import analysis_service_pb2 as pb
from mjcore.wire.v1 import analysis_service_pb2_grpc as pb_grpc
from mjcore.wire.v1 import types_pb2

from .service_helpers import TOKEN, random_counts, start


@pytest.fixture(scope="module")
def token_server():
    server, port = start(ServerConfig(port=0, token=TOKEN))
    yield port
    server.stop(0).wait()


def _shanten_request():
    return pb.StreamShantenRequest(hands=types_pb2.PackedHands(
        encoding=types_pb2.HAND_ENCODING_COUNTS_U8, data=random_counts(4, 13, 1).tobytes()))


@pytest.mark.parametrize("metadata", [None, (("authorization", "Bearer wrong"),),
                                      (("authorization", TOKEN),),
                                      (("authorization", f"bearer {TOKEN}x"),)])
def test_token_required_for_every_rpc(token_server, metadata):
    with grpc.insecure_channel(f"127.0.0.1:{token_server}") as ch:
        stub = pb_grpc.HandAnalysisServiceStub(ch)
        calls = [lambda: stub.ListRulePresets(pb.ListRulePresetsRequest(), metadata=metadata),
                 lambda: stub.AnalyzeHand(pb.AnalyzeHandRequest(hand="123m"), metadata=metadata),
                 lambda: list(stub.StreamShanten(iter([_shanten_request()]), metadata=metadata)),
                 lambda: list(stub.StreamScore(iter([]), metadata=metadata))]
        for call in calls:
            with pytest.raises(grpc.RpcError) as exc:
                call()
            assert exc.value.code() == grpc.StatusCode.UNAUTHENTICATED


def _reflection(channel, version: str, request):
    """One reflection exchange on ``grpc.reflection.<version>`` (the messages of v1 and
    v1alpha are the same on the wire)."""
    from grpc_reflection.v1alpha import reflection_pb2

    call = channel.stream_stream(
        f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    (response,) = list(call(iter([request]), timeout=10))
    return response


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_reflection_is_open_without_token_in_both_versions(token_server, version):
    from google.protobuf import descriptor_pb2
    from grpc_reflection.v1alpha import reflection_pb2

    with grpc.insecure_channel(f"127.0.0.1:{token_server}") as ch:
        r = _reflection(ch, version, reflection_pb2.ServerReflectionRequest(list_services=""))
        names = {s.name for s in r.list_services_response.service}
        assert names == {"mjcore.v1.HandAnalysisService", "grpc.health.v1.Health",
                         "grpc.reflection.v1.ServerReflection",
                         "grpc.reflection.v1alpha.ServerReflection"}
        for symbol, file in (("mjcore.v1.HandAnalysisService", "mjcore/v1/analysis_service.proto"),
                             ("grpc.reflection.v1.ServerReflection",
                              "grpc/reflection/v1/reflection.proto")):
            r = _reflection(ch, version, reflection_pb2.ServerReflectionRequest(
                file_containing_symbol=symbol))
            files = {f.name: f for f in (descriptor_pb2.FileDescriptorProto.FromString(b)
                                         for b in r.file_descriptor_response.file_descriptor_proto)}
            assert file in files
        v1 = files["grpc/reflection/v1/reflection.proto"]
        assert v1.package == "grpc.reflection.v1"
        assert {m.input_type for s in v1.service for m in s.method} == \
            {".grpc.reflection.v1.ServerReflectionRequest"}
        # the token still guards the analysis service
        with pytest.raises(grpc.RpcError) as exc:
            pb_grpc.HandAnalysisServiceStub(ch).ListRulePresets(pb.ListRulePresetsRequest())
        assert exc.value.code() == grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize("value", [f"Bearer {TOKEN}", f"bearer {TOKEN}", f"BEARER {TOKEN}",
                                   f"bEaReR   {TOKEN}"])
def test_bearer_scheme_is_case_insensitive(token_server, value):
    with grpc.insecure_channel(f"127.0.0.1:{token_server}") as ch:
        r = pb_grpc.HandAnalysisServiceStub(ch).ListRulePresets(
            pb.ListRulePresetsRequest(), metadata=(("authorization", value),), timeout=10)
        assert r.default_preset == "tenhou"


def test_health_is_open_without_token(token_server):
    with grpc.insecure_channel(f"127.0.0.1:{token_server}") as ch:
        r = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest())
        assert r.status == health_pb2.HealthCheckResponse.SERVING
        r = health_pb2_grpc.HealthStub(ch).Check(
            health_pb2.HealthCheckRequest(service="mjcore.v1.HandAnalysisService"))
        assert r.status == health_pb2.HealthCheckResponse.SERVING


def test_client_with_token(token_server):
    counts = random_counts(50, 13, 2)
    with Client(f"127.0.0.1:{token_server}", token=TOKEN) as c:
        assert c.rule_presets().default_preset == "tenhou"
        assert len(c.shanten(counts)) == 50
    with Client(f"127.0.0.1:{token_server}", token="nope") as c:
        with pytest.raises(ServiceError) as err:
            c.shanten(counts)
        assert err.value.code == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(ServiceError) as err:
            c.check()
        assert (err.value.code, err.value.reason) == (grpc.StatusCode.UNAUTHENTICATED,
                                                      "unauthenticated")
        assert c.health() == "SERVING"


@pytest.fixture(scope="module")
def tls_server(certs):
    server, port = start(ServerConfig(port=0, tls_cert=certs["server"],
                                      tls_key=certs["server.key"]))
    yield port
    server.stop(0).wait()


@pytest.fixture(scope="module")
def mtls_server(certs):
    server, port = start(ServerConfig(port=0, tls_cert=certs["server"],
                                      tls_key=certs["server.key"], client_ca=certs["ca"],
                                      token=TOKEN))
    yield port
    server.stop(0).wait()


def test_tls(tls_server, certs):
    counts = random_counts(20, 13, 3)
    with Client(f"localhost:{tls_server}", root_certificates=certs["ca"]) as c:
        assert len(c.shanten(counts)) == 20
        assert c.health() == "SERVING"
    with Client(f"127.0.0.1:{tls_server}", root_certificates=certs["ca"]) as c:
        assert c.rule_presets().presets   # the certificate names IP 127.0.0.1 too


def test_tls_rejects_untrusted_server_and_plaintext(tls_server, certs):
    with Client(f"localhost:{tls_server}", root_certificates=certs["other"], timeout=2,
                retries=0) as c:
        with pytest.raises(ServiceError) as err:
            c.rule_presets()
        assert err.value.code == grpc.StatusCode.UNAVAILABLE
    with Client(f"127.0.0.1:{tls_server}", timeout=2, retries=0) as c, \
            pytest.raises(ServiceError):
        c.rule_presets()


def test_mutual_tls(mtls_server, certs):
    good = {"root_certificates": certs["ca"], "client_cert": certs["client"],
                "client_key": certs["client.key"], "timeout": 5, "retries": 0}
    with Client(f"localhost:{mtls_server}", token=TOKEN, **good) as c:
        counts = random_counts(5, 13, 4)
        assert np.array_equal(c.shanten(counts).shanten, batch.shanten(counts).shanten)
    with Client(f"localhost:{mtls_server}", **good) as c:      # certificate but no token
        with pytest.raises(ServiceError) as err:
            c.rule_presets()
        assert err.value.code == grpc.StatusCode.UNAUTHENTICATED
    with Client(f"localhost:{mtls_server}", token=TOKEN, root_certificates=certs["ca"],
                timeout=3, retries=0) as c:                       # no client certificate
        with pytest.raises(ServiceError) as err:
            c.rule_presets()
        assert err.value.code == grpc.StatusCode.UNAVAILABLE


def test_config_validation(certs):
    with pytest.raises(ValueError):
        ServerConfig(tls_cert=certs["server"])
    with pytest.raises(ValueError):
        ServerConfig(client_ca=certs["ca"])
    with pytest.raises(ValueError):
        ServerConfig(token="")
    with pytest.raises(ValueError):
        ServerConfig(port=70000)
    with pytest.raises(ValueError):
        ServerConfig(max_batch=0)

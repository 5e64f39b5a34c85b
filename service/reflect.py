"""Server reflection under both names clients ask for: ``grpc.reflection.v1`` (grpcurl and
newer clients try it first) and ``grpc.reflection.v1alpha``.

grpcio-reflection ships the v1alpha service only. v1 has the same messages, field numbers and
method under another package, so one servicer answers both; v1's file descriptor is derived
from v1alpha's (package and type names renamed) so that reflection can describe itself.
"""
from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import _async as aio_reflection
from grpc_reflection.v1alpha import reflection_pb2

ALPHA = "grpc.reflection.v1alpha"
V1 = "grpc.reflection.v1"
V1_FILE = "grpc/reflection/v1/reflection.proto"
METHOD = "ServerReflectionInfo"
SERVICE_NAMES = (f"{V1}.ServerReflection", f"{ALPHA}.ServerReflection")


def _add_v1_descriptor() -> None:
    """Put v1's file into the default pool (where the servicer looks symbols up), once."""
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(V1_FILE)
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name, proto.package = V1_FILE, V1
    proto.ClearField("options")
    old, new = f".{ALPHA}.", f".{V1}."
    for message in proto.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = field.type_name.replace(old, new)
    for service in proto.service:
        for method in service.method:
            method.input_type = method.input_type.replace(old, new)
            method.output_type = method.output_type.replace(old, new)
    pool.Add(proto)


def add_reflection(service_names: tuple[str, ...], server: Any) -> None:
    """Serve reflection of ``service_names`` (and of reflection itself) on ``server``."""
    _add_v1_descriptor()
    servicer = aio_reflection.ReflectionServicer(service_names + SERVICE_NAMES)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)
    server.add_generic_rpc_handlers(tuple(
        grpc.method_handlers_generic_handler(name, {METHOD: handler})
        for name in SERVICE_NAMES))

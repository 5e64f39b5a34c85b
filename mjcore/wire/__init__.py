"""The wire contract of the mjcore gRPC API, imported by the client (``mjcore.client``) and the
service (``mjcore.service``) alike; neither imports the other.

- ``mjcore.wire.v1``: the code generated from ``proto/mjcore/v1/*.proto``
  (``scripts/gen_proto.py``);
- ``mjcore.wire.layout``: the per-row arrays of the bulk batches (names, dtypes, shapes);
- ``mjcore.wire.packing``: hands packed into ``PackedHands`` and back;
- ``mjcore.wire.convert``: the library's values to messages and back;
- ``mjcore.wire.status``: the ``google.rpc.ErrorInfo`` of a failed call.

It needs protobuf, which the extras ``mjcore[client]`` and ``mjcore[service]`` install; the
analysis library (``import mjcore``) does not.
"""
from __future__ import annotations

try:
    import google.protobuf  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "mjcore.wire needs protobuf, which the analysis library does not install: "
        "pip install 'mjcore[client]' (or 'mjcore[service]' to run the server)") from err

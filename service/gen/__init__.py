"""Another name for ``mjcore.wire.v1``, the generated code of the API, for service modules and
tests not yet moved to it: ``mjcore.service.gen.mjcore.v1`` is that same package (one copy of
the code, one descriptor pool entry). New code imports ``mjcore.wire.v1``."""
import sys
import types

from mjcore.wire import v1
from mjcore.wire.v1 import (
    analysis_service_pb2,
    analysis_service_pb2_grpc,
    scoring_pb2,
    scoring_pb2_grpc,
    types_pb2,
    types_pb2_grpc,
)

mjcore = types.ModuleType(f"{__name__}.mjcore", "Alias package; see the module above.")
mjcore.v1 = v1
sys.modules[mjcore.__name__] = mjcore
sys.modules[f"{mjcore.__name__}.v1"] = v1
for _module in (analysis_service_pb2, analysis_service_pb2_grpc, scoring_pb2, scoring_pb2_grpc,
                types_pb2, types_pb2_grpc):
    sys.modules[f"{mjcore.__name__}.v1.{_module.__name__.rsplit('.', 1)[1]}"] = _module

"""The mjcore gRPC service (installed as ``mjcore.service``; the source lives in ``service/``).

``build_server(ServerConfig(port=0))`` returns ``(server, port)`` for in-process use;
``serve(config)`` runs until SIGTERM/SIGINT. The API is ``proto/mjcore/v1/*.proto``; its
generated Python code is committed in ``gen/`` (``python scripts/gen_proto.py`` refreshes it).
"""
from .config import ServerConfig, read_token_file
from .server import AnalysisServer, build, build_server, serve

__all__ = ["AnalysisServer", "ServerConfig", "build", "build_server", "read_token_file", "serve"]

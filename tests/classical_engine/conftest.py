"""Until the command-line tests move to tests/cli, test_cli.py here takes the unpacked Bradfield
archive from tests/classical/engine."""
from tests.classical.engine.conftest import bradfield_dir  # noqa: F401

"""The README's Python example runs as written."""
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert blocks
    namespace: dict = {}
    for code in blocks:      # the blocks continue one another, like a session
        exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 (our own README)
    assert namespace["r"].points == 12000

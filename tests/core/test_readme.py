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


def test_the_names_the_readme_leads_with_are_in_dir():
    import numpy as np

    import mjcore

    for name in ("score", "decompose", "RuleSet", "batch", "Hand", "shanten", "ukeire"):
        assert name in dir(mjcore) and name in mjcore.__all__, name
    namespace: dict = {}
    exec("from mjcore import *", namespace)  # noqa: S102
    assert {"score", "decompose", "RuleSet", "batch"} <= set(namespace)
    result = mjcore.batch.shanten(np.zeros((1, 34), dtype=np.uint8), forms=True)
    assert {"shanten", "forms", "status", "errors"} <= set(dir(result))

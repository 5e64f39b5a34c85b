"""Worker processes that never outlive the command that started them."""
from __future__ import annotations

import os
import signal
import sys
from typing import Any


def end_with_parent(parent: int) -> None:
    """A pool worker's initializer (``parent``: the pid of the command that starts the pool):
    on Linux the kernel kills this process when its parent dies, however it dies (``kill
    PID``, a crash, SIGKILL); a parent already gone ends it now."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)      # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:                      # it died before the call above
        os._exit(1)


def pool_context() -> Any:
    """The multiprocessing context of mjcore's process pools: spawn on Linux (each worker a
    child of the command, so :func:`end_with_parent` applies; no forkserver left behind),
    forkserver or the default elsewhere."""
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    if sys.platform.startswith("linux"):
        return mp.get_context("spawn")
    return mp.get_context("forkserver") if "forkserver" in methods else mp.get_context()

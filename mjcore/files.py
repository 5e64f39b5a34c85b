"""Writing output files safely: complete or absent, never through a link, never over a file
mjcore was not asked to replace, with the user's umask.

A file is written under a hidden temporary name in its own folder (created exclusively and
not following links) and given its name only when complete, so an interrupted run leaves no
cut file under a record's name. Folders made inside an output folder must be real folders.
"""
from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from .errors import OutputError

_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | \
    getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
TEMP_SUFFIX = ".tmp"            # a temporary's name: .NAME.XXXXXXXX.tmp (no record suffix)


def temp_name(path: str) -> str:
    """A fresh hidden temporary name beside ``path``."""
    directory, base = os.path.split(path)
    return os.path.join(directory, f".{base}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


@contextmanager
def new_file(path: str, mode: str = "w", *, replace: bool = False) -> Iterator[IO[Any]]:
    """A file to write that appears as ``path`` only when the block ends without an error.

    Without ``replace`` an existing ``path`` (a file, a link, anything) is an OutputError and
    is left as it is; with it the name is replaced (a link there is replaced, not followed).
    The file gets mode 0666 less the umask, as ``open`` would give it."""
    tmp = temp_name(path)
    fd = os.open(tmp, _NEW, 0o666)
    try:
        with (os.fdopen(fd, mode) if "b" in mode else
              os.fdopen(fd, mode, encoding="utf-8")) as f:
            yield f
        place(tmp, path, replace=replace)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def place(tmp: str, path: str, *, replace: bool = False) -> None:
    """Give the complete file ``tmp`` the name ``path`` (see :func:`new_file`)."""
    if replace:
        os.replace(tmp, path)
        return
    try:
        os.link(tmp, path, follow_symlinks=False)      # fails when the name is taken
    except FileExistsError:
        raise OutputError(f"{path} exists; not overwritten", path=path) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(path):                       # no hard links here: check, rename
            raise OutputError(f"{path} exists; not overwritten", path=path) from None
        os.rename(tmp, path)
        return
    os.unlink(tmp)


def real_folder(path: str) -> str:
    """``path`` made a folder when missing; an OutputError when it is a link or not a
    folder (an output's own subfolders are never followed elsewhere)."""
    try:
        os.mkdir(path)
    except FileExistsError:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            raise OutputError(f"{path} is a symbolic link; mjcore writes only into real "
                              "folders it made or was given", path=path) from None
        if not stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{path} exists and is not a folder", path=path) from None
    return path

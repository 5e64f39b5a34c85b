"""Writing output files safely: complete or absent, never through a link, never over a file
mjcore was not asked to replace, with the user's umask; and the one walk over input files,
folders and archives that every command reading records uses.

A file is written under a hidden temporary name in its own folder (created exclusively and
not following links) and given its name only when complete, so an interrupted run leaves no
cut file under a record's name. Folders made inside an output folder must be real folders.
"""
from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from .errors import InputSkipped as InputSkipped  # declared there, re-exported
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


# ---- reading inputs ----------------------------------------------------------------------

TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2")


def is_tar_name(name: str) -> bool:
    """True for the names of tar archives (plain or compressed)."""
    return name.endswith(TAR_SUFFIXES)


def shown_name(name: str) -> str:
    """``name`` as printable UTF-8 text (bytes that are not UTF-8 as ``\\xNN``)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def walk_inputs(paths: Iterable[str | os.PathLike[str]], wanted: Callable[[str], bool], *,
                max_bytes: int, max_archive_bytes: int | None = None,
                order: Callable[[str], Any] | None = None
                ) -> Iterator[tuple[str, bytes | InputSkipped, int]]:
    """(name, bytes or why not, input bytes consumed so far) of every input under ``paths``:
    files given, files under folders (recursively, sorted) whose name ``wanted`` accepts, and
    the members ``wanted`` accepts of tar archives (read in one forward pass; a member is
    skipped without being copied). Only regular files are opened (a FIFO never blocks); a
    file or member over ``max_bytes``, an archive whose wanted members pass
    ``max_archive_bytes`` in all, a name that is not UTF-8 or a file that cannot be read is
    an InputSkipped in place of the bytes, and the walk goes on. ``order``: the sort key of
    the names in a folder (default: the names)."""
    done = 0
    for p in paths:
        path = os.fspath(p)
        if os.path.isdir(path):
            errors: list[OSError] = []
            for root, dirs, files in os.walk(path, onerror=errors.append):
                dirs.sort(key=order)
                for fn in sorted(files, key=order):
                    if wanted(fn) or is_tar_name(fn):
                        for item in _walk_file(os.path.join(root, fn), max_bytes,
                                               max_archive_bytes, wanted, done):
                            done = item[2]
                            yield item
            for exc in errors:
                yield shown_name(exc.filename or path), InputSkipped(
                    f"{shown_name(exc.filename or path)}: cannot read the folder "
                    f"({exc.strerror or exc})", reason="unreadable"), done
        elif not os.path.lexists(path):
            yield shown_name(path), InputSkipped(f"{shown_name(path)}: no such file or folder",
                                                 reason="missing"), done
        else:
            for item in _walk_file(path, max_bytes, max_archive_bytes, wanted, done):
                done = item[2]
                yield item


def _walk_file(path: str, max_bytes: int, max_archive: int | None, wanted: Callable[[str], bool],
               done: int) -> Iterator[tuple[str, bytes | InputSkipped, int]]:
    import tarfile

    name = shown_name(path)
    if not _utf8(path):
        yield name, InputSkipped(f"{name}: the file name is not UTF-8", reason="bad_name"), done
        return
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) |
                     getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        yield name, InputSkipped(f"{name}: cannot read it ({exc.strerror or exc})",
                                 reason="unreadable"), done
        return
    with os.fdopen(fd, "rb") as raw:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            yield name, InputSkipped(f"{name}: not a regular file ({_kind(st.st_mode)}); "
                                     "skipped", reason="not_a_file"), done
            return
        try:
            if is_tar_name(path) or tarfile.is_tarfile(raw):
                raw.seek(0)
                yield from _walk_tar(name, raw, st.st_size, max_bytes, max_archive, wanted,
                                     done)
                return
            raw.seek(0)
            if st.st_size > max_bytes:
                yield name, _too_large(name, st.st_size, max_bytes), done + st.st_size
                return
            data = raw.read(max_bytes + 1)
        except (OSError, EOFError, tarfile.TarError) as exc:
            yield name, InputSkipped(f"{name}: cannot read it ({exc or type(exc).__name__})",
                                     reason="unreadable"), done + st.st_size
            return
    yield name, data if len(data) <= max_bytes else _too_large(name, len(data), max_bytes), \
        done + st.st_size


def _walk_tar(name: str, raw: IO[bytes], size: int, max_bytes: int, max_archive: int | None,
              wanted: Callable[[str], bool], done: int
              ) -> Iterator[tuple[str, bytes | InputSkipped, int]]:
    import tarfile

    total = 0
    try:
        # random-access mode reading forward: a member not wanted is skipped by seeking
        # (decompressing in large blocks), not copied block by block as the stream mode does
        with tarfile.open(fileobj=raw, mode="r:*") as tar:
            for member in tar:
                if not (member.isfile() and wanted(member.name)):
                    continue
                where = f"{name}:{shown_name(member.name)}"
                if not _utf8(member.name):
                    yield where, InputSkipped(f"{where}: the member name is not UTF-8",
                                              reason="bad_name"), done + raw.tell()
                    continue
                if member.size > max_bytes:
                    yield where, _too_large(where, member.size, max_bytes), done + raw.tell()
                    continue
                total += member.size
                if max_archive is not None and total > max_archive:
                    yield name, InputSkipped(
                        f"{name}: its wanted members pass {max_archive} bytes in all; the "
                        "rest of the archive is not read", reason="too_large"), done + size
                    return
                fh = tar.extractfile(member)
                if fh is not None:
                    yield where, fh.read(), done + raw.tell()
    except (OSError, EOFError, tarfile.TarError) as exc:
        why = " ".join(str(exc).split()) or type(exc).__name__      # one line
        yield name, InputSkipped(f"{name}: cannot open or read the archive ({why})",
                                 reason="unreadable"), done + size
        return


def _too_large(name: str, size: int, limit: int) -> InputSkipped:
    return InputSkipped(f"{name}: {size} bytes, more than the {limit} bytes an input may "
                        "have", reason="too_large")


def _kind(mode: int) -> str:
    for test, what in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return what
    return "not a file"

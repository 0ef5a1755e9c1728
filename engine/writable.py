"""Writing files safely: whether a command can write where it is asked to, checked before the
long work (a search, a run's pictures), so that a path in the way is said at once; and a write
of several files that lands whole or not at all (:class:`AllOrNothing`)."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
import unicodedata
from collections.abc import Iterable, Mapping
from itertools import takewhile
from pathlib import Path


def check_writable(folder: Path, files: Iterable[Path] = ()) -> None:
    """Refuse what would stop the writing halfway: something other than a folder where
    ``folder`` (or a folder above it, if it is not there yet) must be, something other than
    a plain file where one of ``files`` goes, or a place that may not be written. The
    ``OSError`` names the path (``filename``) and says why in plain words (``strerror``)."""
    place = first_existing(folder)
    if not place.is_dir():
        why = "it is a file, not a folder" if place.is_file() else "it is not a folder"
        raise OSError(errno.ENOTDIR, why, str(place))
    if not os.access(place, os.W_OK | os.X_OK):
        raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(place))
    _try_a_file_in(place)
    for path in files:
        if not (path.exists() or path.is_symlink()):
            continue
        if not path.is_file():
            why = "it is a folder, not a file" if path.is_dir() else "it is not a plain file"
            raise OSError(errno.EISDIR if path.is_dir() else errno.EINVAL, why, str(path))
        if not os.access(path, os.W_OK):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(path))


def _try_a_file_in(folder: Path) -> None:
    """Make a file in ``folder`` and take it away: root passes every access check, and some
    places refuse a new file all the same (``/proc``, a read-only mount seen through a
    writable one). Every command that writes files checks its places so, before its work."""
    try:
        handle, name = tempfile.mkstemp(prefix=".riftchart-", dir=folder)
    except OSError as error:
        # /proc says ENOENT of a folder that is there: say what it means
        cause = ("its file system takes no new files" if error.errno == errno.ENOENT
                 else error.strerror)
        why = f"a file cannot be made there ({cause})"
        raise OSError(error.errno, why, str(folder)) from None
    try:
        os.close(handle)
    finally:  # never left behind, even where a file, once made, cannot be taken away
        with contextlib.suppress(OSError):
            os.unlink(name)


def first_existing(path: Path) -> Path:
    """``path`` or the nearest folder above it that is there (a dangling link counts)."""
    for candidate in (path, *path.parents):
        if candidate.exists() or candidate.is_symlink():
            return candidate
    return Path(path.anchor or ".")


class AllOrNothing:
    """A write of several files that lands whole or not at all, as far as a file system lets
    it: each file is written beside its place under a temporary name, and only when all are
    written does :meth:`commit` move them into place. :meth:`undo` takes back the temporary
    files and the folders it made, and never anything that was there already."""

    def __init__(self) -> None:
        self._folders: list[Path] = []  # in the order made: the outermost first
        self._staged: list[tuple[Path, Path]] = []  # (temporary, final), in the order given
        self._moved = 0  # how many of the staged files are in place
        self._new: list[Path] = []  # the files moved in where there was none
        self._links: list[tuple[Path, str | bytes]] = []  # links to write through, and what

    def folder(self, path: Path) -> None:
        there = first_existing(path)
        missing = list(takewhile(lambda candidate: candidate != there, (path, *path.parents)))
        for candidate in reversed(missing):  # the outermost first
            candidate.mkdir()
            self._folders.append(candidate)

    def file(self, path: Path, content: str | bytes) -> None:
        """Write ``content`` (text, or bytes as they are) for ``path``, under a temporary name
        until :meth:`commit`."""
        if path.is_symlink():
            # a link is the user's choice of where the file lives: replacing it with a file of
            # ours would undo that, so it is written through, in place, at commit
            self._links.append((path, content))
            return
        try:
            temporary = _temporary_beside(path)
            # noted before writing: a write that fails halfway leaves the file too
            self._staged.append((temporary, path))
            _write(temporary, content)
            if path.exists():
                # a file replaced keeps its permissions (a page shared on purpose stays so)
                shutil.copymode(path, temporary)
        except OSError as error:
            raise _about(error, path) from error

    def commit(self) -> None:
        """Write through the links, then move every file into place, in the order given."""
        for link, content in self._links:
            # before any file is moved: a write can still fail (a full disk), and until now
            # nothing that was there has changed; a link's file cut off halfway cannot be
            # restored, though
            try:
                _write(link, content)
            except OSError as error:
                raise _about(error, link) from error
        for temporary, path in self._staged:
            if not (path.exists() or path.is_symlink()):
                self._new.append(path)  # noted first: Ctrl-C may come right after the move
            try:
                # a rename within one folder: the file is the old one or the new one, whole
                os.replace(temporary, path)
            except OSError as error:
                raise _about(error, path) from error
            self._moved += 1

    def undo(self) -> None:
        # what is inside a folder before the folder; a folder someone has put something in
        # since stays, as rmdir only takes empty ones
        for path in [temporary for temporary, _ in self._staged[self._moved:]] + self._new:
            with contextlib.suppress(OSError):
                path.unlink()
        for folder in reversed(self._folders):
            with contextlib.suppress(OSError):
                folder.rmdir()


def write_whole(folder: Path, files: Mapping[Path, str | bytes]) -> None:
    """Make ``folder`` if it is missing and write ``files`` (path -> content) in it, in the order
    given, all or none (:class:`AllOrNothing`): on any failure, Ctrl-C too, what this call made
    goes and what was there stays; an ``OSError`` names the user's path. The places are
    checked first (:func:`check_writable`), so that what is in the way is said in plain words."""
    check_writable(folder, files)
    made = AllOrNothing()
    try:
        made.folder(folder)
        for path, text in files.items():
            made.file(path, text)
        made.commit()
    except BaseException:
        made.undo()
        raise


def _temporary_beside(path: Path) -> Path:
    """A new, empty file of ours beside ``path``: ``.NAME.partial`` in the same folder, so
    that moving it into place is a rename on one file system. Made only if no such name is
    there (no link is followed, nothing is overwritten): if ``.NAME.partial`` is taken (a run
    killed outright leaves its own), ``.NAME.2.partial`` and on are tried."""
    n = 1
    while True:
        suffix = ".partial" if n == 1 else f".{n}.partial"
        candidate = path.with_name(f".{path.name}{suffix}")
        try:
            # 0o666 less the umask: the mode that a plain write of a new file gets
            os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            n += 1
            continue
        return candidate


def _about(error: OSError, path: Path) -> OSError:
    """``error`` as the user's path's: a failed write (ENOSPC) names no file, and the
    temporary file's name is ours, not one the user knows."""
    return OSError(error.errno, error.strerror or str(error), str(path))


def same_file_key(name: str) -> str:
    """``name`` as macOS and Windows compare file names: ignoring case, and (macOS) ignoring
    how a letter is composed (``Ä`` as one code point or as ``A`` and a combining mark): two
    names with one key are one file there."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


def _write(path: Path, content: str | bytes) -> None:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        write_text(path, content)


def write_text(path: Path, text: str) -> None:
    """``text`` written to ``path`` as UTF-8 with ``\\n`` line ends: the same bytes on every
    platform (the text files riftchart writes all go through here)."""
    path.write_text(text, encoding="utf-8", newline="\n")

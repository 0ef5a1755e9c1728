"""Whether a command can write where it is asked to: checked before the long work (a search, a
run's pictures), so that a path in the way is said at once and nothing is left half made."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
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
    for path in files:
        if not (path.exists() or path.is_symlink()):
            continue
        if not path.is_file():
            why = "it is a folder, not a file" if path.is_dir() else "it is not a plain file"
            raise OSError(errno.EISDIR if path.is_dir() else errno.EINVAL, why, str(path))
        if not os.access(path, os.W_OK):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(path))


def first_existing(path: Path) -> Path:
    """``path`` or the nearest folder above it that is there (a dangling link counts)."""
    for candidate in (path, *path.parents):
        if candidate.exists() or candidate.is_symlink():
            return candidate
    return Path(path.anchor or ".")

"""riftchart's output streams: what cannot be written never raises (D30, D32).

A reader that goes away (``| head``), a full disk, or a stream the process was started
without (``>&-``) each end that stream's output quietly; the command says so in one line where
it can, and its exit code says what happened. Files a command writes (diagrams, exports) fail
the same way, with advice (``writing``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

from .wording import one_line

T = TypeVar("T")


class Output:
    """A text stream that never raises for what cannot be written (D30, D32).

    It wraps ``stream`` (``None`` for a stream the process was started without, as with
    ``>&-``). A write or flush that fails is remembered, and the stream's later output is
    dropped: ``gone`` when the reader went away (a broken pipe, not an error), ``failure``
    (the ``OSError``) otherwise. Other attributes are the wrapped stream's.
    """

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.gone = False
        self.failure: OSError | None = None
        self.silenced = False  # dropped on purpose, after another stream failed
        self.reported = False  # the failure has been said on the other stream

    @classmethod
    def of(cls, stream: TextIO | Output | None) -> Output:
        return stream if isinstance(stream, Output) else cls(stream)

    @property
    def lost(self) -> bool:
        return self.gone or self.silenced or self.failure is not None

    def write(self, text: str) -> int:
        if not self.lost:
            self._attempt(lambda stream: stream.write(text))
        return len(text)

    def flush(self) -> None:
        if not self.lost:
            self._attempt(lambda stream: stream.flush())

    def isatty(self) -> bool:
        try:
            return self.stream is not None and not self.lost and self.stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, name: str) -> Any:
        if self.stream is None:
            raise AttributeError(name)
        return getattr(self.stream, name)

    def _attempt(self, action: Callable[[TextIO], Any]) -> None:
        if self.stream is None:
            self.failure = OSError(errno.EBADF, os.strerror(errno.EBADF))
            return
        try:
            action(self.stream)
            return
        except BrokenPipeError:
            self.gone = True
        except OSError as error:
            self.failure = error
        except ValueError:  # a stream closed from inside the process
            self.failure = OSError(errno.EBADF, os.strerror(errno.EBADF))
        _release(self.stream)


def output_lost(out: Output, err: Output, command: str) -> bool:
    """Whether ``out`` could not be written (a reader that went away is not that). The first
    time, one line on ``err`` says so; from then on ``err`` is silent too (D30). A reader that
    went away silences ``err`` too, without a word."""
    if out.gone:
        err.silenced = True
    if out.failure is None:
        return False
    if not out.reported:
        out.reported = True
        err.write(f"riftchart {command}: cannot write the output: "
                  f"{out.failure.strerror or out.failure}\n")
        err.flush()
        err.silenced = True
    return True


def _release(stream: TextIO) -> None:
    """After a failed write to the process's own stdout or stderr, point its descriptor at
    the null device, so that Python's flush at exit does not fail (and complain) again."""
    if not any(stream is own for own in (sys.stdout, sys.stderr, sys.__stdout__,
                                          sys.__stderr__)):
        return
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)


def reader_gone() -> None:
    """The reader of stdout has gone: its descriptor points at the null device from now on, so
    that Python's flush at exit does not complain again."""
    if sys.stdout is not None:
        _release(sys.stdout)


def writing(write: Callable[[], T], err: TextIO | Output, *, command: str, what: str,
            folder: str | os.PathLike, no_dot: str) -> T | None:
    """``write()``; if it cannot write its files, one line on ``err`` and None (exit code 2):
    ``riftchart COMMAND: cannot write WHAT PATH: why`` for an ``OSError``, PATH being the file
    the error names, or else ``folder`` (a full disk names no file), or
    ``riftchart COMMAND: NO_DOT`` (the advice) when Graphviz's ``dot`` is missing."""
    import graphviz

    try:
        return write()
    except OSError as error:
        path = folder if error.filename is None else error.filename
        err.write(one_line(f"riftchart {command}: cannot write {what}{os.fsdecode(path)}: "
                           f"{error.strerror or error}") + "\n")
    except graphviz.ExecutableNotFound:
        err.write(f"riftchart {command}: {no_dot}\n")
    return None

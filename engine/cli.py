"""The `riftchart` command's entry point. It loads the engine only once it runs, so that
Ctrl-C while the engine loads (most of a second) is one line and exit code 130, as it is
later (:mod:`engine.commands` has the commands); for that, ``import engine`` loads nothing
until a name of the API (or the version) is asked for."""

from __future__ import annotations

import sys
from collections.abc import Sequence

INTERRUPTED = 130  # the exit code after Ctrl-C, as shells report a process SIGINT stopped


def main(argv: Sequence[str] | None = None) -> int:
    """The command; its exit code (see :func:`engine.commands.main`)."""
    try:
        from . import commands
    except KeyboardInterrupt:
        sys.stderr.write("riftchart: interrupted\n")
        return INTERRUPTED
    return commands.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())

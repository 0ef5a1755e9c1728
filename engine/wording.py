"""How the trace, reports and messages word small things: counts, one-line text."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``1 point``, ``2 points``: a count and its noun, as the trace and reports say it."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def one_line(text: str) -> str:
    """``text`` with every line break (as ``str.splitlines`` sees them) turned into a space."""
    return " ".join(text.splitlines()) if text else text

"""How the trace, reports and messages word small things: counts, places, one-line text."""

from __future__ import annotations

import re


def counted(n: int, noun: str) -> str:
    """``1 point``, ``2 points``: a count and its noun, as the trace and reports say it."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def place_name(player: str, to: str) -> str:
    """A destination as the trace says it: ``P1's base``, or the battlefield's id."""
    return f"{player}'s base" if to == "base" else to


def one_line(text: str) -> str:
    """``text`` as one line a terminal shows as it is: every line break (as
    ``str.splitlines`` sees them) becomes a space, and every other control character its
    escape (``\\x1b``), so a name or id in a scenario cannot move the cursor, clear the screen
    or retitle the window."""
    return escaped_controls(" ".join(text.splitlines())) if text else text


def escaped_controls(text: str, backslash: str = "\\") -> str:
    """``text`` with every control character (C0, DEL, C1) written as its code, ``\\x1b``;
    ``backslash`` is what a code begins with (two of them in a DOT string, which reads one)."""
    return _CONTROL.sub(lambda m: f"{backslash}x{ord(m.group()):02x}", text)


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

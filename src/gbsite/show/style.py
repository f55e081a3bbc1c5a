"""How text is styled for a terminal: ANSI escapes or nothing, and the width prose is wrapped
at. Kept apart from show's text so that `gbsite lookup` can make ids bold without importing
the page machinery (the record, YAML, captions: about 45 ms, which doubled a lookup)."""

from __future__ import annotations

from gbsite.lean_typing import NamedTuple

WIDTH = 100  # wrap prose at this width, or the terminal's if narrower


class Style(NamedTuple):  # not a dataclass: dataclasses imports inspect, ~5 ms of a lookup
    """ANSI escapes, or nothing: `plain` for a pipe, a file or NO_COLOR."""

    color: bool
    width: int = WIDTH

    def bold(self, text: str) -> str:
        return f"\033[1m{text}\033[0m" if self.color else text

    def good(self, text: str) -> str:
        return f"\033[32m{text}\033[0m" if self.color else text

    def bad(self, text: str) -> str:
        return f"\033[33m{text}\033[0m" if self.color else text

    def dim(self, text: str) -> str:
        return f"\033[2m{text}\033[0m" if self.color else text

    def code(self, text: str) -> str:
        """A code span in prose: cyan on a terminal."""
        return f"\033[36m{text}\033[0m" if self.color else text

    def program(self, code: str) -> list[str]:
        """A program's lines, highlighted by Pygments for a terminal (full weight: code is
        what the reader copies), as they are otherwise."""
        code = code.rstrip("\n")
        if not self.color:
            return code.split("\n")
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import PythonLexer

        return highlight(code, PythonLexer(), TerminalFormatter()).rstrip("\n").split("\n")


PLAIN = Style(color=False)


def columns() -> int | None:
    """The width text is read at: COLUMNS, else the terminal's that standard output, error or
    input is (`gbsite show X | less` reads at the terminal's width); None when none is known."""
    import os
    import sys

    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    for stream in (sys.stdout, sys.stderr, sys.stdin):
        try:
            return os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            continue
    return None


def terminal_style(stream: object) -> Style:
    """Colour when `stream` is a terminal and NO_COLOR (https://no-color.org) is unset or
    empty; the width the text is read at (columns()), up to WIDTH."""
    import os

    known = columns()
    width = max(min(WIDTH, known - 1), 40) if known else WIDTH
    isatty = getattr(stream, "isatty", None)
    if not (callable(isatty) and isatty()):
        return Style(color=False, width=width)
    color = not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    return Style(color=bool(color), width=width)

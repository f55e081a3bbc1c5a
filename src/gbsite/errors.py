"""Errors a user can cause, reported as ``path:line: message`` with no traceback."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

from gbsite.lean_typing import NamedTuple


class Problem(NamedTuple):
    """One thing wrong with the input, located as precisely as we can. (A NamedTuple, not a
    dataclass: every command imports this module, and `dataclasses` costs `gbsite lookup` a
    tenth of its time.)"""

    message: str
    path: Path | None = None
    line: int | None = None

    def __str__(self) -> str:
        # One line whatever the message quotes (a value read from a file, what a program
        # raised): a line break in it would let the rest pass for a line of gbsite's own.
        if self.path is None:
            return one_line(self.message)
        where = one_line(display_path(self.path))
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {one_line(self.message)}"

    def github(self, level: str = "error") -> str:
        """A GitHub Actions workflow command: the problem annotated on its line in a PR.

        Escaped as GitHub's runner unescapes: in the message `%`, CR and LF; in a property
        (the file name) also `:` and `,`. So no file name or message can end the command early
        and start another (`::add-mask::`, `::stop-commands::`...)."""
        where = ""
        if self.path is not None:
            where = f" file={github_property(display_path(self.path))}"
            where += f",line={self.line}" if self.line else ""
        return f"::{level}{where}::{github_data(self.message)}"

    def as_dict(self) -> dict[str, object]:
        return {
            "path": display_path(self.path) if self.path else None,
            "line": self.line,
            "message": self.message,
        }


# What a terminal must not be given raw: the control characters but tab and the newline (a
# terminal acts on ESC sequences: OSC 52 writes the clipboard, OSC 8 hides a link, CSI 2J clears
# the screen; a lone C1 CSI does so too), the characters that end a line in an editor or a CI
# log (\r, \v, \f, the C1 NEL, U+2028/U+2029), and the bidi controls (U+061C, U+200E/U+200F,
# U+202A-U+202E, U+2066-U+2069), which reorder what follows so that code reads other than it runs.
# The one definition: one_line() adds the newline, printable() and json_printable() use it as is.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"


@functools.cache
def _unprintable(lines: bool) -> re.Pattern[str]:
    """The characters to escape, but the newline when `lines`. Compiled when first needed: the
    non-ASCII ranges make it ~0.5 ms each, a command's start (a lookup takes ~50 ms). A text
    str.isprintable() passes never needs it: each of them is a control, format or line or
    paragraph separator character, which it refuses (tests/unit/test_errors.py holds that)."""
    return re.compile(f"[{_CONTROLS}]" if lines else f"[\n{_CONTROLS}]")


def _clean(text: str, lines: bool) -> bool:
    """Whether `text` holds none of the characters to escape, known without the pattern: true
    of nearly every text a command prints."""
    if lines and ("\n" in text or "\t" in text):
        text = text.replace("\n", "").replace("\t", "")
    return text.isprintable()


def _escaped(char: re.Match[str]) -> str:
    return repr(char.group())[1:-1]  # `\x1b`, `\u202e`: the reader sees something is there


def one_line(text: str) -> str:
    """`text` with every control character shown as an escape (`\\n`, `\\x1b`, `\\u202e`): one
    line."""
    if _clean(text, lines=False):
        return text
    return _unprintable(False).sub(_escaped, text)


def printable(text: str) -> str:
    """`text` as one_line() shows it, but its lines kept: for what a command prints that quotes
    a page, the registry or a log on several lines (a page's code, its prose)."""
    if _clean(text, lines=True):
        return text
    return _unprintable(True).sub(_escaped, text)


def json_printable(dumped: str) -> str:
    """Text json.dumps wrote, with what it leaves raw of _CONTROLS (DEL, C1, U+2028/U+2029 and
    the bidi controls; with ensure_ascii=False all of them) written as JSON's `\\uXXXX`. Such a
    character can only be inside a string there, so the JSON means the same: a tool reads the
    very text, and a terminal showing the JSON is not reordered or sent a C1 sequence."""
    if _clean(dumped, lines=True):
        return dumped
    return _unprintable(True).sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)


def github_data(text: str) -> str:
    """A workflow command's message, escaped (GitHub's toolkit: escapeData), its other control
    and bidi characters as printable() shows them (the command may be printed on a terminal)."""
    return printable(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """A workflow command's property value, escaped (GitHub's toolkit: escapeProperty)."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


def display_path(path: Path) -> str:
    """Paths relative to the working directory when possible, as editors and CI logs expect."""
    # The folder resolved, not the file: a symbolic link is named as itself, not as its target
    # (or a loop that cannot be resolved).
    try:
        return str((path.parent.resolve() / path.name).relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):
        return str(path)


class GbsiteError(Exception):
    """Raised for bad input; the CLI prints each problem on one line and exits 2."""

    def __init__(self, problems: Iterable[Problem] | Problem | str) -> None:
        if isinstance(problems, str):
            problems = [Problem(problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def at(cls, path: Path | None, line: int | None, message: str) -> GbsiteError:
        return cls(Problem(message, path, line))


# How `gbsite` exits (cli.py): 0 ok, 1 problems found (a command's own status), 2 bad input,
# 3 a bug, 130 interrupted.
EXIT_OK = 0
EXIT_ERROR = 2  # a GbsiteError, or a usage error (usage.py)
EXIT_BUG = 3  # an error gbsite did not expect: a bug, reported in one line (see --traceback)
EXIT_INTERRUPTED = 130

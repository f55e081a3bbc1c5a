"""Errors a user can cause, reported as ``path:line: message`` with no traceback."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple


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


# Characters that end a line in a terminal, an editor or a CI log (\r, \n, \v, \f, the C1 NEL,
# U+2028/U+2029), and the other control characters (a terminal acts on ESC sequences).
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` with every control character shown as an escape (`\\n`, `\\x1b`): one line."""
    if _UNPRINTABLE.search(text) is None:
        return text
    return _UNPRINTABLE.sub(lambda m: repr(m.group())[1:-1], text)


def github_data(text: str) -> str:
    """A workflow command's message, escaped (GitHub's toolkit: escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


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

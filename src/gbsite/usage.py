"""Usage errors in one line: a misspelt command or option gets a suggestion, an option that
would do nothing is refused.

argparse's own errors come out as gbsite's other errors do (one line, exit 2, no usage block),
and parse() fills in the defaults an option left unset once the check for ignored options has
seen it as not given. Only the standard library is imported here (the CLI starts fast)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from gbsite.lean_typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, NoReturn


def terminal_columns() -> int:
    """The width shutil.get_terminal_size() gives: $COLUMNS if a positive number, else the
    terminal's of standard output, else 80. Asked here because `import shutil` brings its
    archive modules (bz2, lzma, zlib), ~2.5 ms of a `gbsite lookup` that archives nothing."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, at the width argparse would choose (it asks shutil for it)."""

    def __init__(self, prog: str, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("width") is None and len(args) < 3:
            kwargs["width"] = terminal_columns() - 2  # as argparse: two columns to spare
        super().__init__(prog, *args, **kwargs)


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line as gbsite's other errors (no usage block) and a
    suggestion for a misspelt choice (`gbsite biuld`: did you mean 'build'?), which Python
    3.11's argparse does not make."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)  # sub-commands' parsers too
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        import re

        from gbsite.errors import EXIT_ERROR, one_line

        found = re.match(r"argument .*?: invalid choice: '(.*?)' \(choose from (.*)\)$", message)
        if found:
            choices = re.findall(r"'([^']*)'", found.group(2))
            message += _did_you_mean(found.group(1), choices)
        self.exit(EXIT_ERROR, one_line(f"{self.prog}: {message} (see {self.prog} --help)") + "\n")


def _did_you_mean(word: str, candidates: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def _downloads(args: argparse.Namespace) -> bool:
    """Whether `import` or `release add` downloads: from a URL, or a wheel with pip."""
    source: str | None = args.source
    return source is None or source.startswith(("http://", "https://"))


# Options that do nothing without another: (command, dest, what the user gave, what it needs).
# A command's option that would be silently ignored is an error instead.
_NEEDS: tuple[tuple[str, str, str, Callable[[argparse.Namespace], bool], str], ...] = (
    *(
        ("check", dest, given, lambda a: bool(a.examples), "without --examples")
        for dest, given in (
            ("ids", "ids (GBxxxx)"),
            ("torch", "--torch"),
            ("python", "--python"),
            ("backend", "--backend"),
            ("accept", "--accept"),
            ("jobs", "--jobs"),
            ("timeout", "--timeout"),
            ("changed", "--changed"),
            ("fresh", "--fresh"),
            ("outcomes", "--outcomes"),
        )
    ),
    (
        "check",
        "record",
        "--record",
        lambda a: not a.examples,
        "with --examples (it checks the "
        "record without running anything: run it without --examples)",
    ),
    ("check", "torch_index", "--torch-index", lambda a: bool(a.torch), "without --torch"),
    (
        "coverage",
        "list",
        "--list",
        lambda a: a.format == "text",
        "with --format json (which lists every id)",
    ),
    (
        "lookup",
        "file",
        "FILE",
        lambda a: not a.words,
        "with --words (give a FILE or words, not both)",
    ),
    (
        "lookup",
        "max_bytes",
        "--max-bytes",
        lambda a: not a.words,
        "with --words (it limits what is read from FILE or stdin)",
    ),
    (
        "lookup",
        "limit",
        "--limit",
        lambda a: not a.show,
        "with --show (which prints the first match's page)",
    ),
    ("ci merge", "ref", "--ref", lambda a: bool(a.summary), "without --summary"),
    *(
        (
            command,
            "download_timeout",
            "--download-timeout",
            _downloads,
            "with a file (it limits a download: a URL, or a wheel pip fetches)",
        )
        for command in ("import", "release add")
    ),
)
# The defaults of options that the table above must see as not given (None).
_DEFAULTS: dict[str, Callable[[], object]] = {
    "jobs": lambda: os.cpu_count() or 1,
    "timeout": lambda: 180.0,
    "limit": lambda: 10,
    "max_bytes": lambda: 1.0,
    "download_timeout": lambda: 900.0,
}


def _unused(args: argparse.Namespace) -> str | None:
    """Why an option given does nothing with the others given, or None."""
    name = " ".join(
        filter(None, (args.command, getattr(args, "action", None), getattr(args, "job", None)))
    )
    for command, dest, given, ok, why in _NEEDS:
        if command == name and getattr(args, dest, None) not in (None, False, []) and not ok(args):
            verb = "do" if given.startswith("ids") else "does"
            return f"{given} {verb} nothing {why}"
    return None


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse, with a suggestion for a misspelt option and an error for one that would be
    ignored; then fill in the defaults left None for that check."""
    args, extra = parser.parse_known_args(argv)
    command: argparse.ArgumentParser = getattr(args, "command_parser", parser)
    if extra:
        word = extra[0]
        message = f"unrecognized arguments: {' '.join(extra)}"
        if word.split("=", 1)[0] in parser._option_string_actions:
            where = command.prog.removeprefix(parser.prog + " ")
            message += (
                f"; {word.split('=', 1)[0]} goes before the command: "
                f"{parser.prog} {' '.join(extra)} {where} ..."
            )
        elif word.startswith("-"):
            options = [o for o in command._option_string_actions if o.startswith("--")]
            message += _did_you_mean(word.split("=", 1)[0], options)
        command.error(message)
    why = _unused(args)
    if why is not None:
        command.error(why)
    for dest, default in _DEFAULTS.items():
        if hasattr(args, dest) and getattr(args, dest) is None:
            setattr(args, dest, default())
    return args

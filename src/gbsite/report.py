"""Problems printed the three ways a command reports them: text for a reader, json for a
tool, github for GitHub Actions (each problem annotated on its line in a pull request)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TextIO

from gbsite.errors import Problem, json_printable, one_line, printable


def report(
    problems: Sequence[Problem],
    format: str = "text",
    *,
    data: object = None,
    details: Callable[[Problem], str] | None = None,
    footer: Sequence[str] = (),
    footer_file: TextIO | None = None,
    file: TextIO | None = None,
    program: str | None = None,
) -> None:
    """Print `problems` as `format`.

    text: `path:line: message` a line each, with `details(problem)` (what a program printed)
    indented under it; github: one workflow command each; then, for both, the `footer` lines
    (notes, a summary), on `footer_file` if given. json: `data` (a mapping gets the problems
    under "problems"; anything else is printed as it is), no footer. `program`: prefix for
    problems with no file, as a Unix tool prefixes its own errors (`gbsite: ...`).
    """
    out = file or sys.stdout  # looked up now: tests and callers redirect sys.stdout
    if format == "json":
        if isinstance(data, Mapping) or data is None:
            data = {**(data or {}), "problems": [p.as_dict() for p in problems]}
        print_json(data, file=out)
        return
    if format == "github":
        _annotate(problems, out)
        problems = ()
    for problem in problems:
        print(f"{program}: {problem}" if program and problem.path is None else problem, file=out)
        detail = details(problem).strip() if details else ""
        if detail:  # indented, a line each: no line of it can pass for one of gbsite's own
            print("\n".join("    " + _inert(ln) for ln in detail.splitlines()), file=out)
    for line in footer:
        say(line, file=footer_file or out)


# GitHub shows 10 annotations of a kind per step and drops the rest: past that, the problems
# are listed in a folded group of the log, with one annotation that says how many.
GITHUB_ANNOTATIONS = 10


def _annotate(problems: Sequence[Problem], out: TextIO) -> None:
    shown = problems if len(problems) <= GITHUB_ANNOTATIONS else problems[: GITHUB_ANNOTATIONS - 1]
    for problem in shown:
        print(problem.github(), file=out)
    rest = problems[len(shown) :]
    if not rest:
        return
    print(
        f"::error::{len(rest)} more problem(s), listed in the step's log under "
        f'"{len(rest)} more problem(s)" (GitHub shows {GITHUB_ANNOTATIONS} annotations a step)',
        file=out,
    )
    print(f"::group::{len(rest)} more problem(s)", file=out)
    for problem in rest:
        print(_inert(one_line(str(problem))), file=out)
    print("::endgroup::", file=out)


def say(text: str, *, file: TextIO | None = None, flush: bool = False) -> None:
    """Print one line of gbsite's own (a progress line, a summary) that may quote what it read
    or what a program did: control characters escaped, so that it stays one line and cannot
    start another (a forged `::error` workflow command in CI's log)."""
    print(one_line(text), file=file or sys.stdout, flush=flush)


def write(text: str, *, file: TextIO | None = None, flush: bool = False) -> None:
    """Print text on several lines that quotes a page, the registry, a log or a torch tree: its
    lines kept, every other control character and bidi control escaped (errors.printable), so
    that what a contributor wrote cannot act on the reader's terminal or reorder the code."""
    print(printable(text), file=file or sys.stdout, flush=flush)


def print_json(data: object, *, ensure_ascii: bool = True, file: TextIO | None = None) -> None:
    """`data` as indented JSON, with what json leaves raw that a terminal acts on or reorders
    by (DEL; with ensure_ascii=False also C1 and the bidi controls, while 日本 stays 日本)
    written as `\\uXXXX` (errors.json_printable): the same JSON to a tool, inert on a screen."""
    text = json.dumps(data, indent=2, ensure_ascii=ensure_ascii)
    print(json_printable(text), file=file or sys.stdout)


def _inert(line: str) -> str:
    """A line a program printed, shown so that no CI log reads it as a workflow command
    (GitHub's runner ignores the spaces before `::` and `##[`): such a line gets a backslash."""
    line = one_line(line)
    return "\\" + line if line.lstrip().startswith(("::", "##[")) else line

"""Problems printed the three ways a command reports them: text for a reader, json for a
tool, github for GitHub Actions (each problem annotated on its line in a pull request); and
GitHub's job summaries, whose values (CI's files, a diff's file names) are escaped here alone."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from gbsite.errors import GbsiteError, Problem, json_printable, one_line, printable
from gbsite.lean_typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TextIO


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


# ---- GitHub's job summary ($GITHUB_STEP_SUMMARY): Markdown with HTML, from untrusted values ---

# GitHub drops a step's summary over 1 MiB whole: each summary keeps well below that.
SUMMARY_BYTES = 512 * 1024

# What Markdown (GitHub's, with tables, math and autolinks) reads as syntax within a line:
# backslash-escaped (a value never starts a line, so `-`, `+` and `=` are left alone). `<`, `>`,
# `&` and `"` become entities instead: no tag, and no entity of the value's own, survives.
_MD_PUNCTUATION = frozenset("\\`*_{}[]()#!|~:$@.")
_HTML_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def _flat(text: str, limit: int | None) -> str:
    """One line (every kind of line break a space, other controls visible escapes), at most
    `limit` characters, cut before any escaping so that no escape is cut in half."""
    flat = one_line(" ".join(text.split()))
    if limit is not None and len(flat) > limit:
        flat = flat[: max(limit - 1, 0)] + "…"
    return flat


def md(text: str, limit: int | None = None) -> str:
    """A value (a file name, a title, what a program printed) as literal text on one line of a
    summary, in a table cell or not: no heading, image, link, tag or cell break of its own."""
    return "".join(
        _HTML_ENTITIES.get(c) or ("\\" + c if c in _MD_PUNCTUATION else c)
        for c in _flat(text, limit)
    )


def md_code(text: str, limit: int | None = None) -> str:
    """A value as a code span: HTML and Markdown are literal inside one; its fence is longer
    than any run of backticks in it, and `|` is escaped as a table cell needs (GitHub shows
    `|`)."""
    flat = _flat(text, limit)
    fence = "`" * (max((len(run) for run in re.findall("`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    cell = flat.replace("|", "\\|")
    return f"{fence}{pad}{cell}{pad}{fence}"


def md_block(text: str, indent: str = "") -> list[str]:
    """Lines of a fenced code block holding `text` (what a program printed) literally: its
    fence longer than any run of backticks in it, so no line of it can close the block."""
    body = printable(text).splitlines()
    longest = max((len(run) for ln in body for run in re.findall("`+", ln)), default=0)
    fence = "`" * max(3, longest + 1)
    return [indent + fence, *(indent + ln for ln in body), indent + fence]


def md_url(url: str) -> str:
    """A URL for a Markdown link's destination: an http(s) URL with whatever could end the
    destination or the line percent-encoded; anything else is no link (empty)."""
    from urllib.parse import quote

    if not re.fullmatch(r"https?://[^\s]+", url):
        return ""
    return quote(url, safe="/:?#[]@!$&'*+,;=%~-._")


class Summary:
    """A job summary built a line at a time under a byte budget: lines past it are counted,
    never cut in the middle of a table row, a list or a code block."""

    def __init__(self, limit: int = SUMMARY_BYTES, reserve: int = 2048) -> None:
        # `reserve`: room kept for the notes of what was left out and for the closing lines.
        self.lines: list[str] = []
        self.budget = limit - reserve
        self.size = 0

    def add(self, *lines: str) -> None:
        """Lines of gbsite's own (headings, notes): always kept."""
        for line in lines:
            self.lines.append(line)
            self.size += len(line.encode("utf-8")) + 1

    def fits(self, lines: Sequence[str]) -> bool:
        return self.size + sum(len(ln.encode("utf-8")) + 1 for ln in lines) <= self.budget

    def items(self, items: Iterable[Sequence[str]], what: str) -> int:
        """Each item's lines (a table row, a list item with its code block) while they fit;
        then a line saying how many `what` were not shown. How many were left out."""
        left = 0
        for item in items:
            if left == 0 and self.fits(item):
                self.add(*item)
            else:
                left += 1
        if left:
            # A blank line first: the note ends a table rather than becoming one of its rows.
            self.add(
                "",
                f"*{left} more {what} not shown: GitHub drops a job's summary over 1 MiB.*",
            )
        return left

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def capped(text: str, limit: int = SUMMARY_BYTES) -> str:
    """A last guard for a summary built without Summary: cut at a line when over `limit`
    bytes, saying how many lines were left out."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    kept = data[: limit - 200].decode("utf-8", "ignore").rsplit("\n", 1)[0]
    left = text.count("\n") - kept.count("\n")
    return kept + f"\n\n*{left} more line(s) left out: GitHub drops a summary over 1 MiB.*\n"


def append_summary(path: Path, text: str) -> None:
    """Append to the step's summary file (GitHub gives each step one), within the limit."""
    try:
        with path.open("a", encoding="utf-8") as f:
            f.write(capped(text))
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot write the summary: {exc.strerror}") from None

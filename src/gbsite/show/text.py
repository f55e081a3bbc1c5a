"""`gbsite show` as text for a terminal: plain when the output is a file or a pipe, with bold
headings and coloured outcomes when it is a terminal (unless NO_COLOR is set)."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from gbsite.examples.annotations import FIX, REPRO, WRONG
from gbsite.examples.captions import WRONG_TITLE
from gbsite.examples.vocabulary import State
from gbsite.show.page import Example, Shown

WIDTH = 100  # wrap prose at this width, or the terminal's if narrower


@dataclass(frozen=True, slots=True)
class Style:
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


PLAIN = Style(color=False)


def terminal_style(stream: object) -> Style:
    """Colour when `stream` is a terminal and NO_COLOR (https://no-color.org) is unset or
    empty; the terminal's width, up to WIDTH."""
    import os
    import shutil

    isatty = getattr(stream, "isatty", None)
    if not (callable(isatty) and isatty()):
        return PLAIN
    width = min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns - 1)
    color = not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    return Style(color=color, width=max(width, 40))


def render(page: Shown, style: Style = PLAIN) -> str:
    out: list[str] = []
    s = style
    out.append(s.bold(f"{page.id}: {page.gb_type}"))
    life = f"{page.status}, added in {page.added}"
    if page.removed:
        life = f"removed in {page.removed} (added in {page.added})"
    out.append(f"{life}; newest import {page.newest}")
    if page.categories:
        out.append(f"category: {', '.join(page.categories)}")
    out.append(f"page: {page.url}")
    out.append("")
    out.append(s.bold("State of the page by torch release"))
    for st in page.states:
        state = st.state if st.state is not None else "not in this release's registry"
        shown = s.good(state) if st.state in (State.VERIFIED, State.FIXED) else state
        out.append(f"  {st.release:<10} {shown}")
    if page.declared is not None:
        d = page.declared
        out += ["", s.bold(f"Declared {d.status}")]
        out += _wrap(d.reason, s.width, "  ")
        if d.source:
            out.append(f"  raised in {d.source}" + (f": {d.function}" if d.function else ""))
        if d.needs:
            out.append(f"  needs: {d.needs}")
        if d.replaced_by:
            out.append(f"  replaced by {d.replaced_by}")
    if page.why_title:
        out += ["", s.bold(page.why_title)]
        out += _markdown(page.why, s.width, "  ")
    repros = [e for e in page.examples if e.kind == REPRO]
    fixes = [e for e in page.examples if e.kind == FIX]
    for n, example in enumerate(repros, 1):
        title = "Example" if len(repros) == 1 else f"Example {n}"
        out += ["", s.bold(f"{title}: breaks with {page.id}"), *_example(example, s)]
    for n, example in enumerate(fixes, 1):
        title = "Fix" if len(fixes) == 1 else f"Fix {n}"
        out += ["", s.bold(f"{title}: runs without a graph break"), *_example(example, s)]
    for example in (e for e in page.examples if e.kind == WRONG):
        what = f"{WRONG_TITLE}: another value than plain PyTorch, without a graph break"
        out += ["", s.bold(what), *_example(example, s)]
    if not page.examples and page.declared is None:
        out += ["", "No example on this page yet: write one (README: Writing a page)."]
    out += ["", s.bold("PyTorch's registry")]
    out += _wrap(f"Explanation: {page.explanation}", s.width, "  ")
    if page.context.strip():
        out += _wrap(f"Context: {page.context}", s.width, "  ")
    if page.hints:
        out.append("  Hints:")
        for hint in page.hints:
            out += _wrap(hint, s.width, "    - ", "      ")
    out += ["", f"More on the page: {page.url}", f"Edit it in {page.doc}"]
    return "\n".join(out) + "\n"


def _example(example: Example, s: Style) -> list[str]:
    out: list[str] = []
    if example.lead:
        out += [*_markdown(example.lead, s.width, "  "), ""]
    if example.needs:
        out.append(f"  needs {example.needs}: shown, not run")
    else:
        parts = []
        for release, outcome in example.outcomes:
            said = outcome.describe() if outcome else "not run yet"
            kept = outcome == example.promise
            parts.append((s.good if kept else s.bad)(f"{release} {said}"))
        out.append("  torch " + " · ".join(parts))
    if example.since:
        out.append(f"  written for torch {example.since} and later")
    out.append("")
    out += [s.dim(f"    {line}") if line else "" for line in example.code.rstrip("\n").split("\n")]
    if example.after:
        out += ["", *_markdown(example.after, s.width, "  ")]
    return out


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"^(\s*(?:[-*+]|\d+[.)]|>(?: \[!\w+\])?)\s+)")


def _markdown(text: str, width: int, indent: str) -> list[str]:
    """Markdown as a terminal shows it: paragraphs and list items wrapped, code and tables
    kept as they are, all indented."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            out.append(indent + line)
        elif fenced or line.startswith(("|", "    ", "\t")) or not line.strip():
            out.append((indent + line).rstrip())
        else:
            item = _ITEM.match(line)
            lead = item.group(1) if item else ""
            # A quote's wrapped lines stay in the quote; a list item's hang under its text.
            rest = "> " if lead.lstrip().startswith(">") else " " * len(lead)
            out += _wrap(line[len(lead) :], width, indent + lead, indent + rest)
    return out


def _wrap(text: str, width: int, first: str, rest: str | None = None) -> list[str]:
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=first if rest is None else rest,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]

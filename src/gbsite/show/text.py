"""`gbsite show` as text for a terminal: plain when the output is a file or a pipe, with bold
headings, coloured outcomes and highlighted code when it is a terminal (unless NO_COLOR is
set). Contributors' Markdown is printed as text: `**bold**` bold (or plain), code spans
without their backticks, links as `text (url)`; prose is wrapped to the terminal's width, or
to COLUMNS when the output is piped."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import fields, replace
from typing import TypeVar, cast

from gbsite.errors import printable
from gbsite.examples.annotations import FIX, REPRO, WRONG
from gbsite.examples.captions import WRONG_TITLE
from gbsite.examples.vocabulary import State
from gbsite.show import page as shown_page
from gbsite.show.page import Example, Shown
from gbsite.show.style import PLAIN as PLAIN
from gbsite.show.style import WIDTH as WIDTH
from gbsite.show.style import Style as Style
from gbsite.show.style import columns as columns
from gbsite.show.style import terminal_style as terminal_style

_T = TypeVar("_T")


def visible(value: _T) -> _T:
    """Every text of a page (its strings, in its tuples and parts) with the control and bidi
    characters escaped (errors.printable): a page and the registry are written by others, and
    the escapes Style adds are added after, so they are the only ones printed."""
    if isinstance(value, str):
        return cast(_T, printable(value))
    if isinstance(value, tuple):
        return cast(_T, tuple(visible(v) for v in value))
    if isinstance(value, (Shown, Example, shown_page.State, shown_page.Declared)):
        return cast(
            _T, replace(value, **{f.name: visible(getattr(value, f.name)) for f in fields(value)})
        )
    return value  # an Outcome, None, a number: gbsite's own


def render(page: Shown, style: Style = PLAIN) -> str:
    page = visible(page)
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
        out += _markdown(page.why, s, "  ")
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
        out += ["", "No example on this page yet: write one (CONTRIBUTING.md: Writing a page)."]
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
        out += [*_markdown(example.lead, s, "  "), ""]
    if example.needs:
        out.append(f"  needs {example.needs}: shown, not run")
    else:
        parts = []
        for release, outcome in example.outcomes:
            said = outcome.describe() if outcome else "not run yet"
            kept = outcome == example.promise
            run = release.replace("/", " with ")  # 2.15.0/inductor: 2.15.0 with inductor
            parts.append((s.good if kept else s.bad)(f"{run} {said}"))
        out.append("  torch " + " · ".join(parts))
    if example.since:
        out.append(f"  written for torch {example.since} and later")
    out.append("")
    out += [f"    {line}" if line else "" for line in s.program(example.run)]
    if example.after:
        out += ["", *_markdown(example.after, s, "  ")]
    return out


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"^(\s*(?:[-*+]|\d+[.)]|>)\s+)")
_ALERT = re.compile(r"^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*", re.I)


def _markdown(text: str, s: Style, indent: str) -> list[str]:
    """Markdown as a terminal shows it: paragraphs and list items as text (inline markup
    rendered, inline()) and wrapped, code and tables kept as they are, all indented."""
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
            quote = lead.lstrip().startswith(">")
            body = line[len(lead) :]
            if quote and (alert := _ALERT.match(body)):  # GitHub's `> [!NOTE]`: "Note:"
                body = f"**{alert.group(1).capitalize()}:** {body[alert.end() :]}".rstrip()
            # A quote's wrapped lines stay in the quote; a list item's hang under its text.
            rest = "> " if quote else " " * len(lead)
            out += _wrap_words(inline(body, s), s.width, indent + lead, indent + rest)
    return out


def inline(text: str, s: Style) -> list[tuple[str, str]]:
    """Inline Markdown as words: (plain text, as printed) for each, from markdown-it's inline
    tokens. Bold is bold (or plain), code spans lose their backticks (cyan on a terminal),
    a link is its text and its URL in parentheses, raw HTML stays as written."""
    from markdown_it import MarkdownIt

    words: list[tuple[str, str]] = []
    run: list[tuple[str, str]] = []  # (plain, printed) pieces of the word being built
    bold = False
    href: list[str] = []

    def add(piece: str, styled: Callable[[str], str]) -> None:
        # Escaped again once parsed: markdown-it turns `&#x202e;` or `&rlm;` into the character.
        parts = printable(piece).split(" ")
        for n, part in enumerate(parts):
            if n:
                end()
            if part:
                run.append((part, styled(part)))

    def end() -> None:
        if run:
            words.append(("".join(p for p, _ in run), "".join(q for _, q in run)))
            run.clear()

    def plain(piece: str) -> str:
        return s.bold(piece) if bold else piece

    tokens = MarkdownIt("commonmark").parseInline(text)
    for token in (tokens[0].children or []) if tokens else []:
        if token.type == "strong_open":
            bold = True
        elif token.type == "strong_close":
            bold = False
        elif token.type == "code_inline":
            add(token.content, s.code)
        elif token.type in ("softbreak", "hardbreak"):
            end()
        elif token.type == "link_open":
            href.append(str(token.attrGet("href") or ""))
        elif token.type == "link_close":
            target = href.pop() if href else ""
            if target and not (run and run[-1][0] == target):
                add(f" ({target})", plain)
        elif token.type == "image":
            add(token.content or "image", plain)
        elif token.type in ("text", "html_inline"):
            add(token.content, plain)
    end()
    return words


def _wrap_words(words: list[tuple[str, str]], width: int, first: str, rest: str) -> list[str]:
    """Words filled into lines of at most `width` characters (as printed, escapes aside), a
    word longer than a line on a line of its own."""
    lines: list[str] = []
    line, size = first, len(first)
    fresh = True
    for plain, printed in words:
        if not fresh and size + 1 + len(plain) > width:
            lines.append(line)
            line, size, fresh = rest, len(rest), True
        line += printed if fresh else " " + printed
        size += len(plain) + (0 if fresh else 1)
        fresh = False
    lines.append(line.rstrip() if fresh else line)
    return lines


def _wrap(text: str, width: int, first: str, rest: str | None = None) -> list[str]:
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=first if rest is None else rest,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]

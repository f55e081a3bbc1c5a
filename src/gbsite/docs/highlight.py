"""Code highlighting with Pygments, at build time: HTML for code blocks, CSS for both themes."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from html import escape

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(nowrap=True)


_CLASS = re.compile(r'<span class="([\w-]+)"')
_RULE = re.compile(r"^\.highlight \.([\w-]+) \{(.*?)\}", re.M)


def used_classes(html: Iterable[str]) -> set[str]:
    """Token classes that occur in highlighted code, so the stylesheet carries only those."""
    return {cls for fragment in html for cls in _CLASS.findall(fragment)}


def highlight_css(classes: set[str]) -> str:
    """Pygments rules for the given token classes, light and dark, as compact CSS.

    Every token type of both styles would be 10 KB on every page; the code contributors write
    uses a few dozen classes, about 2 KB.
    """
    if not classes:
        return ""
    parts = []
    for style, wrap in (
        ("default", "{}"),
        ("github-dark", "@media(prefers-color-scheme:dark){{{}}}"),
    ):
        # Pygments' stubs leave get_style_defs untyped; it returns the CSS as a str.
        defs: str = HtmlFormatter(style=style).get_style_defs(".highlight")  # type: ignore[no-untyped-call]
        rules = [
            f".highlight .{cls}{{{body.strip().replace('; ', ';')}}}"
            for cls, body in _RULE.findall(defs)
            if cls in classes
        ]
        parts.append(wrap.format("".join(rules)))
    return "\n".join(parts) + "\n"


def highlight_code(code: str, language: str, marked: tuple[int, ...] = ()) -> str:
    """Code as highlighted HTML; `marked`: 1-based lines wrapped in `<span class="hll">`."""
    lexer = _lexer(language.lower()) if language else None
    if lexer is None:
        return escape(code)
    formatter = HtmlFormatter(nowrap=True, hl_lines=list(marked)) if marked else _FORMATTER
    return highlight(code, lexer, formatter)


@functools.cache
def _lexer(language: str) -> Lexer | None:
    """One lexer per language: finding one by name searches every lexer Pygments has (~60 µs),
    and a lexer keeps no state between the code it highlights."""
    try:
        return get_lexer_by_name(language)
    except ClassNotFound:
        return None

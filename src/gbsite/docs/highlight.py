"""Code highlighting with Pygments, at build time: HTML for code blocks, CSS for both themes."""

from __future__ import annotations

import copy
import functools
import hashlib
import re
from collections.abc import Callable, Iterable
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
        return escape(code, quote=False)  # text in <code>: as nh3 writes it, quotes as they are
    formatter = _FORMATTER
    if marked:
        # A copy with other marked lines: a new HtmlFormatter builds its whole style table
        # again (0.15-0.24 ms, against ~0.003 ms for the copy; ~1,080 blocks have marks).
        formatter = copy.copy(_FORMATTER)
        formatter.hl_lines = set(marked)
    return highlight(code, lexer, formatter)


Highlight = Callable[[str, str, tuple[int, ...]], str]  # highlight_code, or a Highlighter


def key_of(code: str, language: str, marked: tuple[int, ...] = ()) -> str:
    """What identifies a highlighting: the code, its language and its marked lines."""
    data = f"{language}\0{','.join(map(str, marked))}\0{code}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:32]


class Highlighter:
    """highlight_code that reuses what it highlighted before: `kept` (an earlier build's, from
    the cache folder: site/highlights.py), and what it highlighted since (`new`). Pygments is
    about half the work of rendering the pages (3.4 s of rendering in one process, 1.7 s with
    every block kept), and the code of unchanged pages is the same from one build to the next.
    `used`: the keys asked for."""

    def __init__(self, kept: dict[str, str] | None = None) -> None:
        self.kept: dict[str, str] = kept or {}
        self.new: dict[str, str] = {}
        self.used: set[str] = set()

    def __call__(self, code: str, language: str, marked: tuple[int, ...] = ()) -> str:
        key = key_of(code, language, marked)
        self.used.add(key)
        found = self.kept.get(key)
        if found is None:
            found = self.new.get(key)
        if found is None:
            found = self.new[key] = highlight_code(code, language, marked)
        return found


@functools.cache
def _lexer(language: str) -> Lexer | None:
    """One lexer per language: finding one by name searches every lexer Pygments has (~60 µs),
    and a lexer keeps no state between the code it highlights. Its rules are tried only where
    they can match (narrowed.py): the same tokens, 3.5 times faster."""
    from gbsite.docs.narrowed import narrowed

    try:
        return narrowed(get_lexer_by_name(language))
    except ClassNotFound:
        return None

"""Code highlighting with Pygments, at build time: HTML for code blocks, CSS for both themes."""

from __future__ import annotations

from html import escape

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(nowrap=True)


def highlight_css() -> str:
    """Pygments rules for light and dark themes, scoped to `.highlight`."""
    # Pygments' stubs leave get_style_defs untyped; it returns the CSS as a str.
    light: str = HtmlFormatter(style="default").get_style_defs(".highlight")  # type: ignore[no-untyped-call]
    dark: str = HtmlFormatter(style="github-dark").get_style_defs(".highlight")  # type: ignore[no-untyped-call]
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"


def highlight_code(code: str, language: str) -> str:
    if language:
        try:
            lexer = get_lexer_by_name(language)
        except ClassNotFound:
            pass
        else:
            return highlight(code, lexer, _FORMATTER)
    return escape(code)

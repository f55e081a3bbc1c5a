"""Registry text is plain text with `backtick` code spans, nothing else.

`__torch_function__`, `{placeholders}`, `<{type_name}>` and `*` must appear exactly as written, so
we never run registry text through a Markdown parser: we split off the code spans ourselves
(CommonMark's rule: a run of n backticks closes at the next run of exactly n) and escape the
rest for the target, HTML for the site or Markdown for the docs files GitHub renders.
"""

from __future__ import annotations

import functools
import re
from html import escape

_BACKTICKS = re.compile(r"`+")


def split_code(text: str) -> list[tuple[bool, str]]:
    """[(is_code, piece)]; code pieces keep their backtick delimiters."""
    out: list[tuple[bool, str]] = []
    pos = 0  # start of the pending plain text
    search = 0
    while True:
        opening = _BACKTICKS.search(text, search)
        if opening is None:
            break
        run = opening.group()
        closing = None
        for candidate in _BACKTICKS.finditer(text, opening.end()):
            if candidate.group() == run:
                closing = candidate
                break
        if closing is None:
            search = opening.end()  # an unmatched run is literal text
            continue
        if opening.start() > pos:
            out.append((False, text[pos : opening.start()]))
        out.append((True, text[opening.start() : closing.end()]))
        pos = search = closing.end()
    if pos < len(text):
        out.append((False, text[pos:]))
    return out


def _code_content(piece: str) -> str:
    run = len(piece) - len(piece.lstrip("`"))
    inner = piece[run:-run]
    # CommonMark strips one space from each side when both are present (for "`` `x` ``").
    if len(inner) > 2 and inner[0] == " " and inner[-1] == " " and inner.strip(" "):
        inner = inner[1:-1]
    return inner


# A text shows on its entry page, the index and release pages: with the committed registry, a
# build asks for 1,868 texts 5,195 times. Bounded, for serve's long runs.
@functools.lru_cache(maxsize=1 << 15)
def to_html(text: str) -> str:
    """Escaped HTML; code spans as <code>; newlines as <br> (hints embed them as line breaks)."""
    parts = []
    for is_code, piece in split_code(text):
        if is_code:
            parts.append(f"<code>{escape(_code_content(piece), quote=False)}</code>")
        else:
            parts.append(escape(piece, quote=False))
    return "<br>\n".join("".join(parts).split("\n"))


# Characters that can start Markdown/GFM syntax anywhere in a line.
_MD_INLINE = re.compile(r"([\\*_\[\]<>|~&$])")
# Syntax that only counts at the start of a line: headings, lists, quotes, setext underlines.
_MD_LINE_START = re.compile(r"^(\s*)([#+\-=>])")
_MD_ORDERED = re.compile(r"^(\s*\d+)([.)])")
# Indented four columns or more, a line that starts a paragraph is a code block, where escapes
# are literal. A paragraph drops a line's indentation anyway, so it is dropped here.
_MD_CODE_INDENT = re.compile(r"^(?: {0,3}\t| {4})[ \t]*")


def to_markdown(text: str) -> str:
    """GitHub-flavoured Markdown that renders as the literal text, code spans kept as code.

    Lines are joined with a backslash hard break, never trailing spaces: editors strip those,
    and the generated part of a docs file must survive an editor untouched.
    """
    pieces = []
    for is_code, piece in split_code(text):
        if is_code:
            # A line break inside a code span renders as a space; writing it as a space keeps
            # our hard-break backslash out of the code, where it would be literal.
            pieces.append(piece.replace("\n", " "))
        else:
            pieces.append(_MD_INLINE.sub(r"\\\1", piece).replace("`", "\\`"))
    lines = [_MD_CODE_INDENT.sub("", ln.rstrip()) for ln in "".join(pieces).split("\n")]
    lines = [_MD_ORDERED.sub(r"\1\\\2", _MD_LINE_START.sub(r"\1\\\2", ln)) for ln in lines]
    while lines and not lines[-1]:
        lines.pop()
    return "\\\n".join(lines) if len(lines) > 1 else (lines[0] if lines else "")

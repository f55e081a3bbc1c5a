"""Links from one docs file to another, as contributors write them on GitHub.

In `docs/gb/gb0755.md` a contributor writes `[GB9493](gb9493.md)`: GitHub resolves it beside
the file. On the site the same link must lead to that id's page (`gb9493.html`, urls.py), so the
renderer rewrites it (markdown.py), and `gbsite check` reports one whose target has no page.

Recognised: a link whose target GitHub resolves to a docs file: `gbXXXX.md`, `./gbXXXX.md`,
`../gb/gbXXXX.md`, `/docs/gb/gbXXXX.md` (from the repository's root) and the like, the file
name in any case, with an optional `#fragment`; in a Markdown link (inline, reference or in a
table) or an `<a href="...">` of raw HTML. Other links are left as written. Both the renderer
and the check find links with `found()` and `found_in_html()`, on tokens of the same parser, so
what the check accepts is what the site links.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gbsite.errors import Problem, display_path

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

    from gbsite.docs.files import Doc

_TARGET = re.compile(r"docs/gb/gb([0-9]{4})\.md", re.I)  # a resolved path (target())
# An <a> tag's href in raw HTML (attribute values quoted, as GitHub's sanitizer keeps them).
_HTML_HREF = re.compile(r"""(<a\b[^>]*?\bhref[ \t\n]*=[ \t\n]*)(["'])([^"'<>]*)\2""", re.I)
# Cheap test of a whole block before parsing it: most blocks link to no docs file.
_MAYBE = re.compile(r"gb[0-9]{4}\.md", re.I)


def parser() -> MarkdownIt:
    """The Markdown parser blocks are read with (the renderer adds its rules to it)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.gfm import gfm_plugin

    md = MarkdownIt("commonmark", {"html": True, "typographer": False})
    md.use(gfm_plugin)
    return md


def target(href: str) -> tuple[str, str] | None:
    """(GBxxxx, fragment) of a link to a docs file, resolved as GitHub resolves it in
    `docs/gb/` (relative to that folder, or to the repository's root when it starts with
    `/`); None for any other link."""
    import posixpath

    path, _, fragment = href.partition("#")
    if not _MAYBE.search(path) or "\\" in path or ":" in path or path.startswith("//"):
        return None
    base = "" if path.startswith("/") else "docs/gb"
    resolved = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
    match = _TARGET.fullmatch(resolved)
    if match is None:
        return None
    return f"GB{match.group(1)}", fragment


def found(tokens: Sequence[Token]) -> Iterator[tuple[Token, str, str, int]]:
    """(link_open token, GBxxxx, fragment, line) of each link to a docs file; `line` counts
    from 0 at the first line of the parsed text."""
    for token in tokens:
        if token.type != "inline" or not token.children or token.map is None:
            continue
        line = token.map[0]
        # Counted by line breaks; a code span that wraps loses its break in the tokens, so
        # after one the line may be short by one, still inside the right paragraph.
        for child in token.children:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type in ("text", "html_inline"):
                line += child.content.count("\n")
            elif child.type == "link_open":
                hit = target(str(child.attrGet("href") or ""))
                if hit is not None:
                    yield child, hit[0], hit[1], line


def found_in_html(tokens: Sequence[Token]) -> Iterator[tuple[Token, str, int]]:
    """(html token, GBxxxx, line) of each `<a href>` to a docs file in raw HTML (a block, or
    inline); `line` counts from 0 at the first line of the parsed text."""
    for token in tokens:
        if token.type == "html_block" and token.map is not None:
            places = [(token, token.map[0])]
        elif token.type == "inline" and token.children and token.map is not None:
            places = [(c, token.map[0]) for c in token.children if c.type == "html_inline"]
        else:
            continue
        for html, line in places:
            for match in _HTML_HREF.finditer(html.content):
                hit = target(match.group(3))
                if hit is not None:
                    yield html, hit[0], line + html.content.count("\n", 0, match.start())


def rewrite_html(html: str, link: Callable[[str, str], str | None]) -> str:
    """`html` with each `<a href>` to a docs file pointing at `link(GBxxxx, fragment)`
    (None: left as written)."""

    def one(match: re.Match[str]) -> str:
        hit = target(match.group(3))
        new = link(*hit) if hit else None
        if new is None:
            return match.group()
        return f"{match.group(1)}{match.group(2)}{new}{match.group(2)}"

    return _HTML_HREF.sub(one, html)


def repository_path(href: str) -> str | None:
    """The repository file a relative link of a docs file points to, as GitHub resolves it
    beside `docs/gb/` (`../../README.md#x` -> `README.md#x`), when it leaves `docs/gb/`
    and stays inside the repository; None for anything else (a URL, a fragment, a path on
    the site, a file beside the docs files)."""
    import posixpath

    if not href.startswith("../") or "\\" in href:
        return None
    path, hash_, fragment = href.partition("#")
    resolved = posixpath.normpath(posixpath.join("docs/gb", path))
    if resolved.startswith("../") or resolved in (".", "..") or resolved.startswith("docs/gb/"):
        return None
    return resolved + hash_ + fragment


_parser: MarkdownIt | None = None


def broken(doc: Doc, known: Collection[str]) -> list[tuple[str, int]]:
    """(GBxxxx, file line) of each link in `doc`'s block to an id with no page on the site."""
    global _parser
    if not _MAYBE.search(doc.block):
        return []
    if _parser is None:
        _parser = parser()
    tokens = _parser.parse(doc.block)
    hits = [(gb_id, line) for _t, gb_id, _f, line in found(tokens)]
    hits += [(gb_id, line) for _t, gb_id, line in found_in_html(tokens)]
    return sorted((gb_id, doc.block_lines[0] + line) for gb_id, line in hits if gb_id not in known)


def problem(doc: Doc, gb_id: str, line: int, docs_dir: Path) -> Problem:
    """A broken link, naming the file it targets."""
    path = docs_dir / f"{gb_id.lower()}.md"
    if path.is_file():  # an orphan: GitHub shows it, the site does not
        why = f"{gb_id} is not in the registry, so the site has no page for it"
    else:
        why = f"{display_path(path)} does not exist ({gb_id} is not in the registry)"
    return Problem(f"link to {path.name}: {why}; check the id", doc.path, line)

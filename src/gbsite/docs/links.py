"""Links from one docs file to another, as contributors write them on GitHub.

In `docs/gb/gb0755.md` a contributor writes `[GB9493](gb9493.md)`: GitHub resolves it beside
the file. On the site the same link must lead to that id's page (`gb9493.html`, urls.py), so the
renderer rewrites it (markdown.py), and `gbsite check` reports one whose target has no page.

Recognised: a Markdown link (inline, reference or in a table) whose whole target is
`gbXXXX.md` or `./gbXXXX.md`, in any case, with an optional `#fragment`. Other links, and links
in raw HTML, are left as written. Both the renderer and the check find links with `found()`, on
tokens of the same parser, so what the check accepts is what the site links.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gbsite.errors import Problem, display_path

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

    from gbsite.docs.files import Doc

_TARGET = re.compile(r"(?:\./)?gb([0-9]{4})\.md(?:#(.*))?", re.I | re.S)
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
    """(GBxxxx, fragment) of a link to a docs file; None for any other link."""
    match = _TARGET.fullmatch(href)
    if match is None:
        return None
    return f"GB{match.group(1)}", match.group(2) or ""


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
    return [
        (gb_id, doc.block_lines[0] + line)
        for _token, gb_id, _fragment, line in found(_parser.parse(doc.block))
        if gb_id not in known
    ]


def problem(doc: Doc, gb_id: str, line: int, docs_dir: Path) -> Problem:
    """A broken link, naming the file it targets."""
    path = docs_dir / f"{gb_id.lower()}.md"
    if path.is_file():  # an orphan: GitHub shows it, the site does not
        why = f"{gb_id} is not in the registry, so the site has no page for it"
    else:
        why = f"{display_path(path)} does not exist ({gb_id} is not in the registry)"
    return Problem(f"link to {path.name}: {why}; check the id", doc.path, line)

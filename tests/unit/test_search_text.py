"""search/index.py's plain_markdown: a docs block as the words the search index holds. Checked
against the rules written as plainly as they read (each a regular expression over the text), on
every block of docs/gb/ and on made-up text full of the characters they act on. And index_tail:
the blocks' words of every entry as one JSON list."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO
from gbsite.docs import files as docs
from gbsite.search.index import plain_markdown


def as_written(source: str, limit: int = 4000) -> str:
    """Fence lines, link targets (an image's too), HTML tags and runs of markup out."""
    text = re.sub(r"(?m)^ {0,3}(`{3,}|~{3,}).*$", " ", source)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[*`#>|~]+", " ", re.sub(r"<[^>]+>", " ", text))
    return " ".join(html.unescape(text).split())[:limit]


@pytest.mark.repo_data
def test_every_docs_block_gives_the_same_words() -> None:
    blocks = [docs.read(path).block for path in sorted((REPO / "docs" / "gb").glob("gb*.md"))]
    assert sum(1 for b in blocks if "](" in b and "```" in b) > 10  # links and fences to act on
    for block in blocks:
        assert plain_markdown(block) == as_written(block)


# Pieces of Markdown the rules act on, and the spaces and text around them.
PIECES = st.sampled_from(
    [
        "`",
        "```",
        "~~~",
        "~",
        "[",
        "]",
        "(",
        ")",
        "![",
        "](",
        "![a](b)",
        "[a](b)",
        "<b>",
        "<",
        ">",
        "*",
        "**",
        "#",
        "|",
        "&amp;",
        "&lt",
        "&#35;",
        "&",
        ";",
        "x",
        "é",
        "word",
        "\n",
        "   ",
        " ",
        "\t",
        "\u00a0",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=60).map("".join), st.sampled_from([4000, 12, 0]))
def test_made_up_markdown_gives_the_same_words(source: str, limit: int) -> None:
    assert plain_markdown(source, limit) == as_written(source, limit)


def test_what_it_keeps_and_drops() -> None:
    source = (
        "## Fix\n\nSee ![a graph](x.png) and [`torch.cond`](https://x/y).\n"
        "```python\ny = f(x)\n```\n<b>a &amp; b</b> **c**"
    )
    assert plain_markdown(source) == "Fix See a graph and torch.cond . y = f(x) a & b c"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(), max_size=8), st.lists(st.text(), max_size=8))
def test_the_index_tail_is_its_info_as_one_json_list(first: list[str], then: list[str]) -> None:
    """index_tail writes each text's JSON, kept per text, joined: what json.dumps writes for the
    list, also when the same texts come again in another order (serve's next save)."""
    import json

    from gbsite.search import index, rules

    for info in (first, then, then[::-1] + first):
        expected = json.dumps(
            {"info": info, "rules": rules.as_json()}, separators=(",", ":")
        ).removeprefix("{")
        assert index.index_tail(info) == f",{expected};\n"

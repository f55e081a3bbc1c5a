"""Property tests: any block survives sync; registry text renders literally in HTML and Markdown."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from conftest import REPO
from gbsite import config, templating
from gbsite.docs import files as docs
from gbsite.docs import sync
from gbsite.registry import plaintext
from gbsite.registry import store as registry
from gbsite.registry.views import EntryView, entry_views

# Any text a contributor might type, except the marker comments themselves.
block_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=300).filter(
    lambda s: not re.search(r"(?i)ADDITIONAL\s+INFORMATION\s+(START|END)", s)
)


@pytest.fixture(scope="module")
def renderer() -> tuple[config.Config, EntryView, object]:
    cfg = config.load(REPO)
    reg = registry.load(cfg.registry_dir)
    view = next(v for v in entry_views(reg) if v.id == "GB0236")
    env = templating.environment(cfg.templates_dir, html=False)
    return cfg, view, env


@pytest.mark.repo_data
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(block=block_text, crlf=st.booleans())
def test_any_block_survives_sync_and_sync_is_idempotent(renderer, block: str, crlf: bool) -> None:
    cfg, view, env = renderer
    if crlf:
        block = block.replace("\n", "\r\n")
    first = sync.render_doc(env, cfg, view, block)
    parsed = docs.parse(Path("x.md"), first)
    assert parsed.block == block
    assert docs.checksum_of(parsed.outside) == parsed.checksum
    assert sync.render_doc(env, cfg, view, parsed.block) == first  # idempotent


@pytest.mark.repo_data
def test_generated_part_has_no_trailing_whitespace() -> None:
    # Editors strip trailing white space; if we wrote any, an untouched file would look edited.
    for path in sorted((REPO / "docs" / "gb").glob("gb*.md")):
        d = docs.read(path)
        outside = d.text.replace(d.block, "")
        assert not re.search(r"[ \t]$", outside, re.M), path.name


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def text_of(fragment: str) -> str:
    parser = _Text()
    parser.feed(fragment)
    return "".join(parser.parts)


def squash(s: str) -> str:
    return " ".join(s.split())


def example_each(values: list[str]):  # type: ignore[no-untyped-def]
    def wrap(fn):  # type: ignore[no-untyped-def]
        for value in values:
            fn = example(value)(fn)
        return fn

    return wrap


# Registry-like text: printable ASCII with Markdown's special characters over-represented.
registry_text = st.text(
    st.one_of(
        st.sampled_from("`*_{}[]<>#|~&$!\\-+=.()\n 1"),
        st.characters(min_codepoint=32, max_codepoint=126),
    ),
    max_size=60,
)


CODE_SPAN_EDGES = [
    "``a`b``",
    "`a``b`",
    "``` `` ```",
    "`a` `b`",
    "``",
    "`\n`",
    "x `a\nb` y",
    "`` ` ``",
    "\\`a`",
    "`a\\`b`",
]
# A line indented four columns or more would start a code block, where escapes show.
INDENTED = ["    <", "\t*a*", "  \t[b]", "a\n\n     `c` <d>", "    # e"]


@settings(max_examples=500, deadline=None)
@given(registry_text)
@example_each(CODE_SPAN_EDGES + INDENTED)
def test_markdown_escaping_renders_the_literal_text(text: str) -> None:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    rendered = md.render(plaintext.to_markdown(text))
    assert "<em>" not in rendered and "<strong>" not in rendered and "<a " not in rendered
    assert "<h" not in rendered.replace("<hr", "") or "#" not in text
    # Code spans lose their backticks; everything else must read exactly as the registry says.
    expected = "".join(
        plaintext._code_content(piece) if is_code else piece
        for is_code, piece in plaintext.split_code(text)
    )
    assert squash(text_of(rendered)) == squash(expected)


@settings(max_examples=500, deadline=None)
@given(registry_text)
@example_each(CODE_SPAN_EDGES)
def test_html_rendering_is_literal_and_escaped(text: str) -> None:
    rendered = plaintext.to_html(text)
    assert "<" not in re.sub(r"</?code>|<br>", "", rendered)
    expected = "".join(
        plaintext._code_content(piece) if is_code else piece
        for is_code, piece in plaintext.split_code(text)
    )
    assert html.unescape(re.sub(r"</?code>", "", rendered).replace("<br>\n", "\n")) == expected


@pytest.mark.parametrize(
    ("gb_id", "field", "literal"),
    [
        ("GB0000", "gb_type", "All __torch_function__ overrides"),
        ("GB0236", "context", "Encountered input of type <{type_name}>."),
        ("GB0208", "gb_type", "torch.* op returned non-Tensor"),
        ("GB0025", "context", "with args {args}, kwargs {kwargs}"),
    ],
)
def test_real_entries_render_literally_in_both_targets(
    history_registry: Path, gb_id: str, field: str, literal: str
) -> None:
    reg = registry.load(history_registry)  # texts no later import changes
    value = getattr(reg.entries[gb_id].current, field)
    md = MarkdownIt("commonmark").render(plaintext.to_markdown(value))
    assert literal in text_of(md)
    assert literal in text_of(plaintext.to_html(value))

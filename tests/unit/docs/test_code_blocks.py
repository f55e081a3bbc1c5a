"""Fenced code on a page: highlighted, escaped, and kept apart from the sanitizer's work."""

from __future__ import annotations

from pathlib import Path

import pytest

from gbsite.docs import files as docs
from gbsite.docs.blocks import BlockRenderer
from gbsite.docs.fences import Fence
from gbsite.docs.highlight import highlight_code
from gbsite.docs.markdown import sanitize
from gbsite.examples.annotations import scan

REPO = Path(__file__).resolve().parents[3]
HOSTILE = '</code></pre><script>alert(1)</script><img src="//evil.example/x.png" onerror="y()">'


@pytest.fixture(scope="module")
def render() -> BlockRenderer:
    return BlockRenderer(["GB0029"])


@pytest.mark.parametrize("info", ["python", "text", "no-such-language", ""])
def test_code_that_looks_like_html_is_shown_as_text(render: BlockRenderer, info: str) -> None:
    html = render("GB0001", f"```{info}\nx = '{HOSTILE}'\n```\n").html
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<pre") == 1 and html.count("</pre>") == 1


def test_fences_inside_lists_details_and_html_keep_their_code(render: BlockRenderer) -> None:
    block = (
        "- step one:\n\n  ```python\n  a = 1\n  ```\n\n"
        "<details><summary>More</summary>\n\n```python\nb = 2\n```\n\n</details>\n\n"
        '<div class="note">\n\n```python\nc = 3\n```\n\n</div>\n'
    )
    html = render("GB0001", block).html
    for name, value in (("a", "1"), ("b", "2"), ("c", "3")):
        assert f'<span class="n">{name}</span> <span class="o">=</span> ' in html
        assert f'<span class="mi">{value}</span>' in html
    assert html.count('<pre tabindex="0" class="highlight">') == 3
    assert "gbcode" not in html  # every stand-in was put back


def test_text_like_a_stand_in_stays_as_written(render: BlockRenderer) -> None:
    html = render("GB0001", "gbcode00000000000000000000000000000000n0x\n\n```python\nx\n```\n").html
    assert "gbcode00000000000000000000000000000000n0x" in html


@pytest.mark.repo_data
def test_nh3_gives_back_the_highlighted_code_of_every_committed_fence() -> None:
    """What lets the renderer set highlighted code aside while nh3 sanitizes the rest: nh3
    would leave it as it is (with marked lines too). A Pygments or nh3 release that changes this
    fails here."""
    checked = 0
    for path in sorted((REPO / "docs" / "gb").glob("gb*.md")):
        for fence, _ in scan(docs.read(path)).fences:
            language = Fence(fence.content, fence.info).language
            lines = fence.content.count("\n")
            code = highlight_code(fence.content, language, (1, lines) if lines else ())
            html = f'<pre class="highlight"><code class="language-{language}">{code}</code></pre>'
            assert sanitize(html) == html, (path, fence.info)
            checked += 1
    assert checked > 0

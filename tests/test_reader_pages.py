"""The reader's page, on the site built from the committed registry, docs and record: the answer
on the first screen, examples shown as they were run, one state said once, and nothing of the
maintainers' on the reader's path. What is checked is read from the built pages (each page's
state, each example's kind), so a new id, a new page or a new release changes no expectation.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest

from conftest import Project, committed

pytestmark = pytest.mark.repo_data

# The first fix's code must start within one screen on a desktop and two on a phone, with a
# line of it visible (a line of code is about 20 px; 48 leaves room for the box's padding).
DESKTOP, PHONE, A_LINE = (1280, 900), (390, 844), 48
FIRST_PERSON = re.compile(r"\b(?:I|we|We|our|Our|us|Us)\b(?!/)")  # not the I of I/O


class EntryPage(HTMLParser):
    """What the tests read of a built entry page: its state, its h2 headings, the prose a reader
    sees (the header, the status note and the contributor's sections, without code and without
    the collapsed section for maintainers), and each annotated example's kind and code."""

    VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "wbr", "source"})

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.state = ""
        self.h2: list[str] = []
        self.prose: list[str] = []
        self.examples: list[tuple[str, str]] = []  # (kind, code as the page shows it)
        self.pre_yaml: list[str] = []
        # Each open element: its tag, its attributes, and whether it makes its text the
        # reader's and whether it hides it from the prose.
        self._stack: list[tuple[str, dict[str, str], bool, bool]] = []
        self._text: dict[int, list[str]] = {}  # open element (stack depth) -> its text
        # How many open elements make their text the reader's, and hide it: counted as they
        # open and close, not looked for in the stack at each piece of text.
        self._reader = self._hidden = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "article":
            self.state = a.get("data-state", "")
        if tag in self.VOID:
            return
        classes = a.get("class", "").split()
        reader = a.get("id") == "additional-information" or bool(
            {"status-note", "entry-head"} & set(classes)
        )
        hidden = tag in ("pre", "code") or a.get("id") == "maintainers"
        self._stack.append((tag, a, reader, hidden))
        self._reader += reader
        self._hidden += hidden
        if tag in ("h2", "pre"):
            self._text[len(self._stack)] = []

    def handle_endtag(self, tag: str) -> None:
        while self._stack:
            depth = len(self._stack)
            open_tag, _attrs, reader, hidden = self._stack.pop()
            self._reader -= reader
            self._hidden -= hidden
            text = "".join(self._text.pop(depth, []))
            if open_tag == "h2":
                self.h2.append(" ".join(text.replace("#", "").split()))
            if open_tag == "pre":
                figure = next(
                    (a for t, a, *_ in reversed(self._stack) if t == "figure" and "data-kind" in a),
                    None,
                )
                if figure is not None:
                    self.examples.append((figure["data-kind"], text))
                if re.search(r"^status: (internal|unraised|environment)", text, re.M):
                    self.pre_yaml.append(text)
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        for depth in self._text:
            self._text[depth].append(data)
        if self._reader and not self._hidden:
            self.prose.append(data)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.prose).split())


@pytest.fixture(scope="module")
def pages(built_site: Project) -> dict[str, EntryPage]:
    return {
        path.stem.upper(): EntryPage(path.read_text(encoding="utf-8"))
        for path in sorted((built_site.site / "gb").glob("gb*.html"))
    }


@pytest.mark.slow
def test_every_shown_example_holds_the_call_it_was_run_with(pages: dict[str, EntryPage]) -> None:
    """What a page shows, and Copy copies, is the program that ran: pasted into a file, a repro
    breaks. The checker compiles the name itself unless the block does (compile=none)."""
    shown = [(gb_id, kind, code) for gb_id, p in pages.items() for kind, code in p.examples]
    assert sum(kind in ("gb-repro", "gb-fix") for _, kind, _ in shown) > 0
    missing = [
        f"{gb_id} {kind}"
        for gb_id, kind, code in shown
        if kind in ("gb-repro", "gb-fix")
        and not re.search(r"\btorch\.compile\(|\bexport\(|\bcompile\(", code)
    ]
    assert missing == []


@pytest.mark.slow
def test_one_state_said_once_and_no_status_yaml(pages: dict[str, EntryPage]) -> None:
    states = {p.state for p in pages.values()}
    assert {"verified", "internal"} <= states
    user_error = next(c for c in committed().categories if c.key == "user-error").summary
    for gb_id, page in pages.items():
        assert page.pre_yaml == [], f"{gb_id} shows its status block as YAML"
        if page.state in ("internal", "unraised"):
            # "Your code probably fails without torch.compile too" contradicts "no user program
            # reaches it".
            assert user_error not in page.text, gb_id
        assert len(page.h2) == len(set(page.h2)), f"{gb_id}: a heading twice: {page.h2}"


@pytest.mark.slow
def test_no_reader_visible_text_tells_the_pages_history(pages: dict[str, EntryPage]) -> None:
    """The probe, what was tried and the first person belong to the collapsed section for
    maintainers."""
    found = []
    for gb_id, page in pages.items():
        text = page.text
        for match in [*FIRST_PERSON.finditer(text), *re.finditer(r"\bprobe\b", text, re.I)]:
            found.append(f"{gb_id}: …{text[max(0, match.start() - 40) : match.end() + 20]}…")
    assert found == []


@pytest.mark.slow
def test_the_index_gives_each_pages_state(built_site: Project, pages: dict[str, EntryPage]) -> None:
    index = (built_site.site / "index.html").read_text(encoding="utf-8")
    rows = dict(re.findall(r'<tr id="(GB\d{4})"[^>]*\bdata-state="([a-z]+)"', index))
    assert rows.keys() == pages.keys()
    assert {gb_id: p.state for gb_id, p in pages.items()} == rows
    for state in set(rows.values()):
        assert f'<option value="{state}">' in index  # the filter offers it


# Where each page's first fix starts, measured in frames (a frame is a viewport of its own: the
# same media queries and layout as the page opened in a tab, as the self-check below asserts).
# Each page loads once, in a frame of the first size, which is then resized to each other size
# and measured again: a load costs ~45 ms here, a relayout a few. Two frames load at once. The
# frames are laid out but not painted (hidden): the same tops, in about a sixth less time.
FIRST_FIX = 'figure[data-kind="gb-fix"] pre'  # the first fix's code on a page
FIRST_FIX_TOPS = """async ([urls, sizes, selector]) => {
  const tops = sizes.map(() => ({}));
  let next = 0;
  async function lane() {
    const frame = document.createElement('iframe');
    frame.style.cssText = 'position:fixed;top:0;left:0;border:0;visibility:hidden';
    const resize = ([width, height]) =>
      Object.assign(frame.style, {width: `${width}px`, height: `${height}px`});
    document.body.appendChild(frame);
    while (next < urls.length) {
      const url = urls[next++];
      resize(sizes[0]);
      await new Promise(loaded => { frame.onload = loaded; frame.src = url; });
      sizes.forEach((size, i) => {
        resize(size);
        const code = frame.contentDocument.querySelector(selector);
        tops[i][url] = code ? code.getBoundingClientRect().top + frame.contentWindow.scrollY : null;
      });
    }
    frame.remove();
  }
  await Promise.all([lane(), lane()]);
  return tops;
}"""

Size = tuple[int, int]


def first_fix_tops(
    browser: Any, base_url: str, ids: list[str], sizes: list[Size]
) -> dict[Size, dict[str, float | None]]:
    """Each id's first fix's top in px from the top of its page, for each viewport size."""
    urls = {f"{base_url}gb/{gb_id.lower()}.html": gb_id for gb_id in ids}
    context = browser.new_context(viewport={"width": sizes[0][0], "height": sizes[0][1]})
    try:
        page = context.new_page()
        page.goto(base_url + "404.html")
        measured = page.evaluate(FIRST_FIX_TOPS, [list(urls), sizes, FIRST_FIX])
    finally:
        context.close()
    first = next(iter(urls))
    for (width, height), tops in zip(sizes, measured, strict=True):
        # The frames measure what a tab measures: one page opened on its own, compared.
        context = browser.new_context(viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            page.goto(first)
            alone = page.evaluate(
                "s => document.querySelector(s).getBoundingClientRect().top + window.scrollY",
                FIRST_FIX,
            )
        finally:
            context.close()
        assert alone == tops[first], ((width, height), alone, tops[first])
    return {
        size: {urls[url]: top for url, top in tops.items()}
        for size, tops in zip(sizes, measured, strict=True)
    }


@pytest.mark.browser
def test_the_first_fix_is_on_the_first_screen(
    browser: Any, base_url: str, pages: dict[str, EntryPage]
) -> None:
    """On every verified page, the first fix's code starts within the first screen of a desktop
    and the first two of a phone."""
    verified = [gb_id for gb_id, p in pages.items() if p.state == "verified"]
    assert verified
    screens = {DESKTOP: 1, PHONE: 2}
    late: list[str] = []
    for (width, height), tops in first_fix_tops(browser, base_url, verified, list(screens)).items():
        assert set(tops) == set(verified)
        for gb_id, top in tops.items():
            if top is None or top + A_LINE > screens[width, height] * height:
                late.append(f"{gb_id} at {width}x{height}: {top}")
    assert late == []


def test_the_page_reader_sees_what_a_reader_sees() -> None:
    """The parser the tests above rely on: prose outside code and the maintainers' section,
    examples with their kind, status YAML in code, repeated headings."""
    page = EntryPage(
        '<article data-state="internal"><header class="entry-head"><h1>GB0001 x</h1></header>'
        '<div id="additional-information"><section><h2>Why<a href="#w">#</a></h2>'
        "<p>We tried <code>we</code> it.</p>"
        '<figure data-kind="gb-fix"><figcaption>Fix</figcaption><pre><code>fn = 1<br>'
        "</code></pre></figure><pre><code>status: internal\n</code></pre></section></div>"
        '<details id="maintainers"><summary>For maintainers</summary><p>our probe</p></details>'
        "<h2>Why</h2></article>"
    )
    assert page.state == "internal"
    assert page.text == "GB0001 x Why # We tried it. Fix"
    assert page.examples == [("gb-fix", "fn = 1")]
    assert page.pre_yaml == ["status: internal\n"]
    assert page.h2 == ["Why", "Why"]

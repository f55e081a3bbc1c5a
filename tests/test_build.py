"""`gbsite build` on the real registry: pages, rendering rules, determinism, failure safety.

Properties of the committed registry and docs are checked on a build of them (`built`); what
particular entries show (their texts, GB0060's removal in 2.14.0) on a build of the HISTORY
releases (`history_built`), which no later import changes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import markupsafe
import pytest

from conftest import (
    Project,
    committed,
    copy_project,
    example_releases,
    labels,
    make_project,
    page,
    sync_note,
)
from gbsite import urls
from gbsite.docs import files as docs

# Every test here builds a whole site (the module's `built` and `history_built`, shared by most,
# or one of its own: a change, a failure, a worker): seconds a build. Not in the fast lane.
pytestmark = pytest.mark.slow

BLOCK = """
### Why it breaks

A table with a line break in a cell:

| setting | effect |
| --- | --- |
| `fullgraph=True` | errors on the first break<br><br>one graph |

```python
import torch

@torch.compile
def fn(x):
    return x + 1
```

- [x] checked task
- [ ] open task

See https://pytorch.org/docs for more, and GB0029 for hooks (not GB9999).

> [!WARNING]
> Mind the gap.

![diagram](https://cdn.example/diagram.png)

<script>alert("x")</script>
<img src="https://tracker.example/pixel.png" onerror="alert(1)">
<a href="javascript:alert(1)">click</a> <a href="gb0029.html" onclick="steal()">ok</a>
<details><summary>More</summary>Hidden text.</details>
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Project:
    proj = make_project(tmp_path_factory.mktemp("built") / "proj", docs=True)
    path = proj.docs / "gb0025.md"
    path.write_text(docs.with_block(path.read_text(), BLOCK))
    result = proj.run("build")
    assert result.code == 0, result.err
    return proj


@pytest.fixture(scope="module")
def plain_built(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The committed project as it is, built once: tests that change it take a copy."""
    proj = make_project(tmp_path_factory.mktemp("plain-built") / "proj", docs=True)
    result = proj.run("build")
    assert result.code == 0, result.err
    return proj


@pytest.fixture(scope="module")
def history_built(tmp_path_factory: pytest.TempPathFactory, history_template: Project) -> Project:
    proj = copy_project(history_template, tmp_path_factory.mktemp("history-built") / "proj")
    path = proj.docs / "gb0025.md"
    path.write_text(docs.with_block(path.read_text(), BLOCK))
    result = proj.run("build")
    assert result.code == 0, result.err
    return proj


def html(proj: Project, rel: str) -> str:
    return (proj.site / rel).read_text(encoding="utf-8")


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src", "action") and value is not None:
                self.links.append((tag, name, value))


def links_of(text: str) -> list[tuple[str, str, str]]:
    parser = Links()
    parser.feed(text)
    return parser.links


@pytest.mark.repo_data
def test_every_id_has_a_page_and_the_url_contract_holds(built: Project) -> None:
    pages = sorted(p.name for p in (built.site / "gb").glob("*.html"))
    assert pages == [f"{gb_id.lower()}.html" for gb_id in committed().entries]
    assert all(re.fullmatch(r"gb\d{4}\.html", p) for p in pages)
    for rel in (
        "index.html",
        "dashboard.html",
        "404.html",
        "sitemap.xml",
        "registry.json",
        "releases/index.html",
        "assets/style.css",
    ):
        assert (built.site / rel).is_file(), rel
    for label in labels():  # a page for each imported snapshot
        assert (built.site / urls.release(label)).is_file(), label


def test_entry_page_title_heading_and_sections(history_built: Project) -> None:
    built = history_built
    page = html(built, "gb/gb0025.html")
    assert "<title>GB0025: Call to torch._dynamo.graph_break() · " in page
    assert (
        '<h1><span class="entry-id">GB0025</span> Call to <code>torch._dynamo.graph_break()</code>'
        "</h1>"
    ) in page
    assert 'id="explanation"' in page and 'id="hints"' in page and 'id="lifecycle"' in page
    assert "User-inserted graph break. Message: {graph_break_msg}" in page
    assert (
        'href="https://github.com/meta-pytorch/compile-graph-break-site/edit/main/docs/gb/'
        'gb0025.md"'
    ) in page
    assert 'rel="prev" href="gb0024.html"' in page and 'rel="next" href="gb0026.html"' in page


@pytest.mark.parametrize(
    ("gb_id", "literal"),
    [
        ("GB0000", "All __torch_function__ overrides returned NotImplemented"),
        ("GB0236", "Encountered input of type &lt;{type_name}&gt;."),
        ("GB0208", "torch.* op returned non-Tensor"),
        ("GB0025", "with args <code>{args}</code>, kwargs <code>{kwargs}</code>"),
    ],
)
def test_registry_text_is_plain_text(history_built: Project, gb_id: str, literal: str) -> None:
    built = history_built
    page = html(built, f"gb/{gb_id.lower()}.html")
    assert literal in page
    texts = re.findall(r'<(p|li) class="registry-text[^"]*">(.*?)</\1>', page, re.S)
    # The heading's type, after the id it starts with.
    texts += re.findall(r'<(h1)><span class="entry-id">GB\d{4}</span> (.*?)</h1>', page, re.S)
    assert texts
    for _tag, text in texts:  # only code spans and line breaks: never emphasis or links
        assert not re.search(r"<(?!/?code>|br>)", text), text


def test_empty_context_and_runtime_explanation(history_built: Project) -> None:
    built = history_built
    assert "(empty in the registry)" in html(built, "gb/gb0295.html")
    page = html(built, "gb/gb0049.html")  # explanation is `str(e)` in the registry
    assert "PyTorch works out this explanation when the break happens" in page


def test_split_hints_are_shown_as_one_sentence(history_built: Project) -> None:
    built = history_built
    page = html(built, "gb/gb0003.html")
    assert (
        "Call a generator from inside of a non-generator Python function and compile that "
        "function instead."
    ) in page
    page = html(built, "gb/gb0236.html")
    assert (
        "Use one of the following to register the type with pytree:<br>\n* <code>torch.utils."
        "_pytree.register_constant</code>"
    ) in page


def test_categories_as_labels_with_meaning(history_built: Project) -> None:
    built = history_built
    page = html(built, "gb/gb0000.html")
    assert 'class="label cat-user-error" href="../index.html?category=user-error"' in page
    assert "Your code probably fails without torch.compile too." in page


def test_removed_entry_keeps_its_page_with_a_notice(history_built: Project) -> None:
    built = history_built
    page = html(built, "gb/gb0060.html")
    assert "Removed in PyTorch 2.14.0." in page
    assert "PyTorch 2.14.0 and later no longer report GB0060" in page
    assert "2.8.0 to 2.13.0" in page


def test_history_shows_earlier_texts_with_their_releases(history_built: Project) -> None:
    built = history_built
    page = html(built, "gb/gb0001.html")
    assert 'id="history"' in page
    assert "regione" in page and "(2.8.0 to 2.13.0)" in page
    assert "Current text since" in page and "2.14.0" in page
    page = html(built, "gb/gb0056.html")
    assert "Dyanmo only supports mutating" in page  # upstream rewrote it in place; we kept it


def test_contributor_markdown_is_github_flavoured(history_built: Project) -> None:
    built = history_built
    page = html(built, "gb/gb0025.html")
    info = page.split('id="additional-information"')[1].split('id="context"')[0]
    # Contributor ids carry GitHub's prefix, so they never equal one of the layout's.
    # The block's top headings (###) are the page's sections (h2).
    assert '<h2 id="user-content-why-it-breaks">Why it breaks' in info
    assert 'href="#user-content-why-it-breaks"' in info
    assert "<td>errors on the first break<br><br>one graph</td>" in info
    assert (
        '<pre tabindex="0" class="highlight"><code class="language-python">'
        '<span class="kn">import</span>' in info
    )
    assert 'type="checkbox"' in info and "checked" in info and "disabled" in info
    assert '<a href="https://pytorch.org/docs">https://pytorch.org/docs</a>' in info
    assert '<a href="gb0029.html" class="gb-mention">GB0029</a>' in info
    assert "GB9999" in info and 'href="gb9999.html"' not in info
    assert 'class="markdown-alert markdown-alert-warning"' in info
    assert "<details><summary>More</summary>Hidden text.</details>" in info


def test_stylesheet_has_the_highlighting_the_code_uses(history_built: Project) -> None:
    built = history_built
    css = (built.site / "assets" / "style.css").read_text()
    page = html(built, "gb/gb0025.html")
    code = "".join(re.findall(r"<pre\b.*?</pre>", page, re.S))
    used = set(re.findall(r'<span class="([\w-]+)"', code))
    assert {"kn", "nf", "k"} <= used  # import, function name, keyword
    for cls in used:
        assert f".highlight .{cls}{{" in css, cls
    assert ".highlight .gh{" not in css  # a diff heading: no such code on the site
    assert "@media(prefers-color-scheme:dark){.highlight" in css
    assert "/*" not in css  # minified


def test_contributor_html_is_sanitized(history_built: Project) -> None:
    built = history_built
    info = html(built, "gb/gb0025.html").split('id="additional-information"')[1]
    info = info.split('id="context"')[0]
    assert "<script" not in info
    assert "onerror" not in info and "onclick" not in info
    assert "javascript:" not in info
    assert "tracker.example" not in info  # an image from another host is dropped
    assert '<a href="https://cdn.example/diagram.png">[image: diagram]</a>' in info


@pytest.mark.repo_data
def test_no_request_to_another_host(built: Project) -> None:
    """Only <a href> may point elsewhere; everything that loads must be relative."""
    for path in sorted(built.site.rglob("*")):
        if path.suffix not in (".html", ".css", ".js"):
            continue
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".html":
            for tag, attr, value in links_of(text):
                if tag == "a" or attr == "action":
                    continue
                assert not re.match(r"(?i)([a-z]+:)?//", value), (path, tag, value)
        assert not re.search(r"url\(\s*['\"]?(https?:)?//", text), path
        assert "@import" not in text


@pytest.mark.repo_data
def test_all_internal_links_resolve(built: Project) -> None:
    checked = 0
    for path in [
        built.site / "index.html",
        built.site / "dashboard.html",
        built.site / "releases" / "index.html",
        built.site / "releases" / "2.14.0.html",
        *sorted((built.site / "gb").glob("gb00[0-6]*.html")),
    ]:
        for tag, _attr, value in links_of(path.read_text()):
            if re.match(r"(?i)[a-z]+:|#|//", value):
                continue
            target = (path.parent / value.split("#")[0].split("?")[0]).resolve()
            assert target.is_file(), f"{path.relative_to(built.site)}: {tag} -> {value}"
            checked += 1
    assert checked > 1000


@pytest.mark.repo_data
def test_index_lists_every_entry_in_order(built: Project) -> None:
    page = html(built, "index.html")
    ids = re.findall(r'<tr id="(GB\d{4})"', page)
    assert ids == list(committed().entries)
    for entry in committed().entries.values():
        row = page.split(f'<tr id="{entry.id}"')[1].split("</tr>")[0]
        removed = f"Removed in {entry.removed}" in row
        assert ('data-status="removed"' in row) == removed == entry.is_removed, entry.id
    # Each row carries its page's state, as the page says it (the index filters by it).
    for gb_id in ids:
        row = page.split(f'<tr id="{gb_id}"')[1].split("</tr>")[0]
        state = re.search(r'data-state="([a-z]+)"', row)
        assert state is not None, gb_id
        entry = html(built, f"gb/{gb_id.lower()}.html")
        assert f'<article class="entry" data-gb-id="{gb_id}" data-state="{state[1]}">' in entry


def test_a_removed_entry_is_marked_in_the_index(history_built: Project) -> None:
    row = html(history_built, "index.html").split('<tr id="GB0060"')[1].split("</tr>")[0]
    assert 'data-status="removed"' in row and "Removed in 2.14.0" in row


@pytest.mark.repo_data
def test_dashboard_numbers_and_lists(built: Project) -> None:
    reg = committed()
    removed = sum(e.is_removed for e in reg.entries.values())
    newest = reg.sources[-1]
    page = html(built, "dashboard.html")
    assert f'<span class="number">{len(reg.entries)}</span> graph breaks' in page
    assert f'<span class="number">{len(reg.entries) - removed}</span> current' in page
    assert f'<span class="number">{removed}</span> removed' in page
    # A card that cannot vary is gone: pages with no text yet appear only when there are some.
    without = sum(1 for p in built.docs.glob("gb*.md") if not docs.read(p).has_content)
    assert ("with no page text yet" in page) == (without > 0)
    assert "with additional information" not in page
    assert "<svg viewBox=" in page and f"PyTorch {newest.label}: {newest.entries} ids" in page


def test_dashboard_lists(history_built: Project) -> None:
    page = html(history_built, "dashboard.html")
    assert '<span class="number">593</span> graph breaks' in page
    assert '<span class="number">592</span> current' in page
    assert '<span class="number">1</span> removed' in page
    assert "PyTorch 2.15.0: 592 ids" in page
    no_hints = page.split('id="list-no-hints"')[1].split("</details>")[0]
    assert "GB0208" in no_hints
    split = page.split('id="list-split-hints"')[1].split("</details>")[0]
    assert "GB0003" in split


def test_release_pages(history_built: Project) -> None:
    built = history_built
    page = html(built, "releases/2.14.0.html")
    removed = page.split('id="removed"')[1]
    assert "gb0060.html" in removed
    changed = page.split('id="changed"')[1].split('id="removed"')[0]
    assert "gb0001.html" in changed and "(hints)" in changed
    # An id added in a release is listed as added, never also as changed in it.
    added = page.split('id="added"')[1].split('id="changed"')[0]
    links = re.compile(r"gb\d{4}\.html")
    assert links.findall(added) and not set(links.findall(added)) & set(links.findall(changed))


@pytest.mark.repo_data
def test_sitemap_uses_absolute_urls(built: Project) -> None:
    root = ET.fromstring((built.site / "sitemap.xml").read_bytes())
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    urls = [loc.text or "" for loc in root.findall("s:url/s:loc", ns)]
    base = "https://meta-pytorch.github.io/compile-graph-break-site/"
    assert all(u.startswith(base) for u in urls)
    assert base + "gb/gb0025.html" in urls and len(urls) > len(committed().entries)


@pytest.mark.repo_data
def test_registry_json_for_tools(built: Project) -> None:
    data = json.loads((built.site / "registry.json").read_text())
    assert list(data["entries"]) == list(committed().entries)
    assert data["entries"]["GB0025"]["has_additional_information"] is True
    assert [s["label"] for s in data["sources"]] == labels()


def test_registry_json_of_the_history_releases(history_built: Project) -> None:
    data = json.loads((history_built.site / "registry.json").read_text())
    assert len(data["entries"]) == 593
    e = data["entries"]["GB0060"]
    assert e["status"] == "removed" and e["removed"] == "2.14.0" and e["url"] == "gb/gb0060.html"
    assert data["entries"]["GB0000"]["categories"] == ["user-error"]
    assert [s["label"] for s in data["sources"]][-1] == "2.15.0"


@pytest.mark.repo_data
def test_404_page_works_at_any_depth(built: Project) -> None:
    """Links are relative to a <base> its script sets (tests/test_browser_site.py follows them
    under several prefixes); the stylesheet is inline in case that fails."""
    page = html(built, "404.html")
    assert "meta-pytorch.github.io" not in page
    assert 'var prefix = "/compile-graph-break-site/";' in page
    assert page.index('createElement("base")') < page.index('<link rel="icon"')
    assert "<style>" in page and '<link rel="stylesheet"' not in page
    assert str(markupsafe.escape(sync_note())) in page


@pytest.mark.repo_data
def test_build_writes_nothing_outside_the_site(built: Project) -> None:
    before = {k: v for k, v in built.snapshot().items() if not k.startswith("site/")}
    assert built.run("build").code == 0
    after = {k: v for k, v in built.snapshot().items() if not k.startswith("site/")}
    assert after == before


@pytest.mark.repo_data
def test_same_inputs_give_identical_bytes(built: Project, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert built.run("build", "--out", str(again)).code == 0
    first = {
        p.relative_to(built.site): p.read_bytes() for p in built.site.rglob("*") if p.is_file()
    }
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first == second


@pytest.mark.repo_data
def test_rebuild_with_nothing_changed_writes_nothing(built: Project) -> None:
    stamps = {p: p.stat().st_mtime_ns for p in built.site.rglob("*") if p.is_file()}
    result = built.run("build")
    assert result.out.startswith("build: nothing changed since")
    result = built.run("build", "--force")  # a full build all the same: still nothing to write
    assert "(0 changed)" in result.out
    assert {p: p.stat().st_mtime_ns for p in built.site.rglob("*") if p.is_file()} == stamps


@pytest.mark.repo_data
@pytest.mark.parametrize(
    "change",
    [
        lambda p: (p.docs / "gb0001.md").write_text(
            (p.docs / "gb0001.md")
            .read_text()
            .replace(docs.END_MARKER, "new note\n" + docs.END_MARKER)
        ),
        lambda p: (p.root / "templates" / "404.html.j2").write_text(
            (p.root / "templates" / "404.html.j2").read_text() + "\n"
        ),
        lambda p: (p.root / "gbsite.toml").write_text(
            (p.root / "gbsite.toml").read_text().replace('branch = "main"', 'branch = "dev"')
        ),
        lambda p: (p.site / "gb" / "gb0002.html").unlink(),
        lambda p: (p.site / "index.html").write_text("truncated"),
    ],
    ids=["docs", "template", "config", "output deleted", "output damaged"],
)
def test_any_change_means_a_real_build(
    tmp_path: Path, plain_built: Project, change: object
) -> None:
    proj = copy_project(plain_built, tmp_path / "proj")
    assert proj.run("build").out.startswith("build: nothing changed")  # the copy is up to date
    change(proj)  # type: ignore[operator]
    result = proj.run("build")
    assert result.code == 0
    assert not result.out.startswith("build: nothing changed"), result.out
    assert proj.run("build").out.startswith("build: nothing changed")


@pytest.mark.repo_data
def test_source_date_epoch_dates_the_footer(
    built: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    out = tmp_path / "dated"
    assert built.run("build", "--out", str(out)).code == 0
    assert "Built 2026-01-01." in (out / "index.html").read_text()
    assert "Built " not in html(built, "index.html")


# ---- failures leave the previous site as it was ---------------------------------------------


@pytest.fixture
def site_project(tmp_path: Path, plain_built: Project) -> Project:
    return copy_project(plain_built, tmp_path / "proj")


def site_files(proj: Project) -> dict[str, bytes]:
    return {
        str(p.relative_to(proj.site)): p.read_bytes() for p in proj.site.rglob("*") if p.is_file()
    }


@pytest.mark.repo_data
def test_marker_error_fails_the_build_and_keeps_the_site(site_project: Project) -> None:
    before = site_files(site_project)
    doc = site_project.docs / "gb0025.md"
    doc.write_text(doc.read_text().replace(docs.END_MARKER, ""))
    result = site_project.run("build")
    assert result.code == 2
    assert "gb0025.md:" in result.err and "without an END marker" in result.err
    assert site_files(site_project) == before


@pytest.mark.repo_data
def test_template_error_names_template_and_line(site_project: Project) -> None:
    before = site_files(site_project)
    template = site_project.root / "templates" / "entry.html.j2"
    lines = template.read_text().split("\n")
    n = next(i for i, line in enumerate(lines) if "<h1>" in line)
    lines[n] = lines[n].replace("text.gb_type", "text.no_such_field")
    template.write_text("\n".join(lines))
    result = site_project.run("build")
    assert result.code == 2
    assert f"entry.html.j2:{n + 1}: template error:" in result.err
    assert "no_such_field" in result.err
    assert "Traceback" not in result.err
    assert site_files(site_project) == before


@pytest.mark.repo_data
def test_template_syntax_error(site_project: Project) -> None:
    template = site_project.root / "templates" / "index.html.j2"
    template.write_text(template.read_text().replace("{% endblock %}", "{% endblok %}", 1))
    result = site_project.run("build")
    assert result.code == 2
    assert "index.html.j2:" in result.err and "template error" in result.err


@pytest.mark.repo_data
def test_refuses_to_replace_a_folder_it_did_not_write(
    site_project: Project, tmp_path: Path
) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    result = site_project.run("build", "--out", str(precious))
    assert result.code == 2
    assert "was not written by gbsite build" in result.err
    assert (precious / "thesis.tex").read_text() == "years of work"
    result = site_project.run("build", "--out", str(site_project.root))
    assert result.code == 2 and "cannot be" in result.err


@pytest.mark.repo_data
@pytest.mark.parametrize(
    "edit",
    [
        "\n### A first contribution\n\nSee GB0029.\n",  # an empty block gets content
        "",  # a block with content is emptied
        "\n| a | b |\n|---|---|\n| `x` | y |\n",  # content changes
        "\n```python\nimport torch\n\n@torch.compile\ndef fn(x):\n    return x  # ok\n```\n",
        "\nSee [GB0029](gb0029.md#why) and [this one](gb9998.md).\n",
    ],
    ids=["added", "emptied", "changed", "code brings new highlight rules", "links to docs files"],
)
def test_incremental_rebuild_equals_a_full_build(tmp_path: Path, edit: str) -> None:
    """serve rebuilds only what a docs edit touches; the result must be the full build's."""
    from gbsite import config
    from gbsite.site import build, fingerprint
    from gbsite.site.cache import BuildCache

    proj = make_project(tmp_path / "proj", docs=True)
    doc = proj.docs / "gb0025.md"
    doc.write_text(docs.with_block(doc.read_text(), "\nAn earlier note.\n"))
    cache = BuildCache()
    cfg = config.load(proj.root)
    first = build.build(cfg, tmp_path / "site", skip_unchanged=False, cache=cache)

    doc.write_text(docs.with_block(doc.read_text(), edit))
    again = build.build(cfg, tmp_path / "site", skip_unchanged=False, cache=cache)
    incremental = again.outputs
    full = build.build(cfg, tmp_path / "full").outputs
    # Only what the edit touches was written: the page, and what lists or searches its block.
    touched = {"gb/gb0025.html", "gb/gb0025.json", "index.html", "dashboard.html"}
    touched |= {"registry.json", "assets/search-index.js", "assets/style.css", "404.html"}
    assert first.written == first.files
    assert 2 <= again.written <= len(touched | {fingerprint.MARKER})
    marker = fingerprint.MARKER
    assert set(incremental) == set(full)
    differing = [p for p in full if p != marker and incremental[p] != full[p]]
    assert differing == []
    on_disk = {
        str(p.relative_to(tmp_path / "site")) for p in (tmp_path / "site").rglob("*") if p.is_file()
    }
    assert on_disk == set(full)
    for rel in ("gb/gb0025.html", "index.html", "dashboard.html", "assets/search-index.js"):
        assert (tmp_path / "site" / rel).read_bytes() == full[rel], rel


def gbsite_process(proj: Project, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command in a process of its own: single-threaded, so it forks its workers. Its
    output goes to files: waiting on pipes would wait for every process holding them, and so
    for any worker the command left running (no_build_processes_left would never see one)."""
    command = [sys.executable, "-m", "gbsite", "--root", str(proj.root), *args]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        code = subprocess.run(command, stdout=out, stderr=err, timeout=120, check=False).returncode
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(command, code, out.read(), err.read())


@pytest.mark.repo_data
def test_parallel_build_equals_sequential(tmp_path: Path) -> None:
    """The forked build (two processes rendering and writing entry pages) writes what a build in
    one process does: first into an empty folder, then over its own site after an edit, where
    it rewrites only the changed files and hard-links the rest."""
    from gbsite import config
    from gbsite.site import build

    proj = make_project(tmp_path / "proj", docs=True)
    forked = tmp_path / "forked"

    def files() -> dict[str, bytes]:
        return {
            str(p.relative_to(forked)): p.read_bytes() for p in forked.rglob("*") if p.is_file()
        }

    def inodes() -> dict[str, int]:
        return {
            str(p.relative_to(forked)): p.stat().st_ino for p in forked.rglob("*") if p.is_file()
        }

    result = gbsite_process(proj, "build", "--out", str(forked))
    assert result.returncode == 0, result.stderr
    sequential = build.build(config.load(proj.root), tmp_path / "one", parallel=False).outputs
    assert files() == sequential

    before = inodes()
    doc = proj.docs / "gb0025.md"
    # A note added beside the page's examples: its coverage, so the dashboard, stays as it was.
    doc.write_text(
        doc.read_text().replace(docs.END_MARKER, "A new note about GB0170.\n" + docs.END_MARKER)
    )
    result = gbsite_process(proj, "build", "--out", str(forked))
    assert result.returncode == 0, result.stderr
    sequential = build.build(config.load(proj.root), tmp_path / "two", parallel=False).outputs
    assert files() == sequential
    after = inodes()
    new = {rel for rel in after if after[rel] != before.get(rel)}
    assert new == {"gb/gb0025.html", "assets/search-index.js", ".gbsite-output"}
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".forked")]


def test_the_site_wide_files_are_rendered_before_the_pages(
    history: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site-wide file (the search index, the index, the dashboard, registry.json) costs many
    pages' time: rendered first, so that the two processes sharing the rest end together; the
    stylesheet and the 404 page, which need every block's highlighting, last of all."""
    from gbsite import config
    from gbsite.site import build, render
    from gbsite.site.pages import FileKind

    order: list[FileKind] = []
    produce = render.produce

    def recorded(renderer: Any, row: Any, *args: Any) -> bytes:
        order.append(row.kind)
        return produce(renderer, row, *args)

    monkeypatch.setattr(render, "produce", recorded)
    build.build(config.load(history.root), tmp_path / "site", parallel=False)
    pages = {FileKind.ENTRY, FileKind.ENTRY_JSON}
    first = min(order.index(kind) for kind in pages)
    assert {FileKind.INDEX, FileKind.DASHBOARD, FileKind.DATA} <= set(order[:first])
    assert order[-2:] == [FileKind.STYLESHEET, FileKind.NOT_FOUND]
    assert set(order[first:-2]) == pages


def no_build_processes_left(proj: Project) -> bool:
    """Whether no process builds this project any more (pgrep: 0 found some, 1 found none)."""
    found = subprocess.run(
        ["pgrep", "-f", "--", f"--root {proj.root} build"], capture_output=True, text=True
    )
    assert found.returncode in (0, 1), found.stderr
    return found.returncode == 1


@pytest.mark.repo_data
@pytest.mark.parametrize(
    "template",
    ["entry.html.j2", "index.html.j2"],
    ids=["in the worker", "in the parent, worker running"],
)
def test_template_error_with_a_worker(site_project: Project, template: str) -> None:
    """Entry pages are rendered by a forked worker: its errors read like any other, and an
    error in the parent's share stops the worker: no process is left behind."""
    before = site_files(site_project)
    path = site_project.root / "templates" / template
    lines = path.read_text().split("\n")
    n = next(i for i, line in enumerate(lines) if "<h1>" in line)
    lines[n] = lines[n].replace("<h1>", "<h1>{{ page.no_such_thing.at_all }}{{ model.nope.x }}")
    path.write_text("\n".join(lines))
    result = gbsite_process(site_project, "build")
    assert result.returncode == 2
    assert f"{template}:{n + 1}: template error:" in result.stderr
    assert "Traceback" not in result.stderr
    assert site_files(site_project) == before
    assert not list(site_project.site.parent.glob(f".{site_project.site.name}.*"))
    assert no_build_processes_left(site_project)


@pytest.mark.repo_data
@pytest.mark.parametrize("broken", ["registry", "record"])
def test_load_error_with_the_worker_highlighting_ahead(
    site_project: Project, broken: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no highlighted code in the cache folder, a worker forked before the registry is
    loaded highlights the docs' code (site/ahead.py). An error of the load phase (the registry,
    the record of verified examples) is reported like any other and stops the worker: nothing
    is written and no process is left."""
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "empty"))
    before = site_files(site_project)
    if broken == "registry":
        path = site_project.root / "registry" / "gb" / "GB0025.yaml"
        path.write_text(path.read_text().replace("removed: null", "removed: [null"))
        expected = re.compile(rf"{re.escape(str(path))}:\d+: invalid YAML")
    else:
        path = site_project.docs.parent / "verified-examples.yaml"
        path.write_text("verified:\n- sha256: abc\n")
        expected = re.compile(rf"{re.escape(str(path))}(:\d+)?: not a record of examples")
    result = gbsite_process(site_project, "build")
    assert result.returncode == 2
    assert expected.search(result.stderr), result.stderr
    assert "Traceback" not in result.stderr
    assert site_files(site_project) == before
    assert not list(site_project.site.parent.glob(f".{site_project.site.name}.*"))
    assert no_build_processes_left(site_project)


@pytest.mark.repo_data
def test_entry_json_beside_each_page(built: Project) -> None:
    whole = json.loads((built.site / "registry.json").read_text())["entries"]
    pages = sorted(built.site.glob("gb/gb*.html"))
    assert len(sorted(built.site.glob("gb/gb*.json"))) == len(pages) == len(whole)
    entry = json.loads((built.site / "gb" / "gb0025.json").read_text())
    state = entry.pop("state")
    assert entry.pop("url") == "gb0025.html"
    assert entry.pop("resolved") == []  # its fields are texts, not names of Python values
    expected = dict(whole["GB0025"])
    expected.pop("url")
    assert entry == expected
    examples = state.pop("examples")
    # The state for the newest release of the examples, and what each example did per release.
    gb25, names = committed().entries["GB0025"], labels()
    last = names[names.index(gb25.removed) - 1] if gb25.removed else names[-1]
    newest = example_releases()[-1]
    by_release = state.pop("by_release")  # its state with each release of the examples
    assert list(by_release) == list(example_releases())
    assert by_release[newest] == state["state"]
    assert state == {"release": newest, "state": state["state"], "last_release": last}
    assert all(set(e) == {"kind", "needs", "outcomes"} for e in examples)
    assert 'href="gb0025.json"' in html(built, "gb/gb0025.html")


@pytest.mark.repo_data
def test_cached_builds_follow_every_kind_of_change(tmp_path: Path) -> None:
    """serve's builds keep a cache from one to the next; after each kind of change, what they
    serve and what they leave on disk is what a build from scratch writes."""
    from gbsite import config
    from gbsite.site import build
    from gbsite.site.cache import BuildCache

    proj = make_project(tmp_path / "proj", docs=True)
    cfg = config.load(proj.root)
    cache = BuildCache()
    served = tmp_path / "served"
    build.build(cfg, served, skip_unchanged=False, cache=cache)
    assert cache.model is not None
    # A page whose break upgrading fixes: a release page lists it.
    fixed = next(v.id for listed in cache.model.fixes.values() for v in listed)

    def edit_block(gb_id: str, text: str) -> Path:
        doc = proj.docs / f"{gb_id.lower()}.md"
        doc.write_text(docs.with_block(doc.read_text(), text))
        return doc

    def append(path: Path, text: str) -> Path:
        path.write_text(path.read_text() + text)
        return path

    def replace(path: Path, old: str, new: str) -> Path:
        assert old in path.read_text()
        path.write_text(path.read_text().replace(old, new))
        return path

    def delete(path: Path) -> Path:
        path.unlink()
        return path

    # Each change returns the file it changed: what serve's watcher hands the build.
    changes: dict[str, Callable[[], Path | None]] = {
        "prose edited": lambda: edit_block("GB0025", "\nA note about GB0170.\n"),
        # A verified page loses its examples: its state, the dashboard and the index change.
        "examples removed": lambda: edit_block("GB0003", "\nNothing to show yet.\n"),
        "a fixed break's examples removed": lambda: edit_block(fixed, "\nNot fixed now.\n"),
        "docs file deleted": lambda: delete(proj.docs / "gb0030.md"),
        "new highlight rules": lambda: edit_block(
            "GB0040", "\n```python\nasync def f():\n    await g()  # a comment\n```\n"
        ),
        "template edited": lambda: replace(
            proj.root / "templates/base.html.j2", "Skip to content", "Skip to the content"
        ),
        "record edited": lambda: append(cfg.verified_file, "# a comment\n"),
        "same again": lambda: None,
    }
    for n, (what, change) in enumerate(changes.items()):
        path = change()
        changed = {path} if path else set()
        report = build.build(cfg, served, skip_unchanged=False, cache=cache, changed=changed)
        fresh = build.build(cfg, tmp_path / f"fresh{n}", skip_unchanged=False).outputs
        assert report.outputs.keys() == fresh.keys(), what
        differ = [p for p in fresh if p != fingerprint_marker() and report.outputs[p] != fresh[p]]
        assert differ == [], what
        on_disk = {
            p.relative_to(served).as_posix(): p.read_bytes()
            for p in served.rglob("*")
            if p.is_file()
        }
        assert on_disk.keys() == fresh.keys(), what
        assert [p for p in fresh if on_disk[p] != report.outputs[p]] == [], what
        if what == "same again":
            assert report.written == 0  # not even the marker
        elif what == "template edited":
            assert report.written > 600  # every HTML page has the layout
        elif what == "record edited":
            assert report.written == 1  # a comment: only the marker, now a full build's
        else:
            assert 1 < report.written < 12, (what, report.written)


def fingerprint_marker() -> str:
    from gbsite.site import fingerprint

    return fingerprint.MARKER


def test_a_registry_with_no_ids_builds(empty_project: Project, tmp_path: Path) -> None:
    """An imported snapshot with no ids: the dashboard's shares are 0, not a division error."""
    from gbsite import config
    from gbsite.site import build

    source = tmp_path / "torch-2.13.0.json"
    source.write_text("{}")
    assert gbsite_process(empty_project, "import", str(source)).returncode == 0
    report = build.build(config.load(empty_project.root), tmp_path / "site")
    dashboard = report.outputs["dashboard.html"].decode()
    assert "0 graph breaks" in dashboard.replace('<span class="number">0</span>', "0")
    assert not [p for p in report.outputs if p.startswith("gb/")]


def test_a_registry_with_nothing_imported_is_an_error(empty_project: Project) -> None:
    result = gbsite_process(empty_project, "build")
    assert result.returncode == 2
    assert result.stderr == (
        f"gbsite: {empty_project.registry}: no release imported yet: import one first "
        "(gbsite release add R, or gbsite import SOURCE)\n"
    )
    assert not empty_project.site.exists()


@pytest.mark.repo_data
def test_text_outside_the_block_is_a_warning_with_its_line(site_project: Project) -> None:
    """The site shows only a docs file's block; `gbsite build` says where text written
    elsewhere in the file is, and builds the rest."""
    path = site_project.docs / "gb0025.md"
    lines = path.read_text().split("\n")
    lines.insert(5, "My note, in the generated part.")
    path.write_text("\n".join(lines))
    result = gbsite_process(site_project, "build")
    assert result.returncode == 0, result.stderr
    assert "warning: " in result.stderr
    assert "gb0025.md:6: not on the site: text added outside the ADDITIONAL INFORMATION" in (
        result.stderr
    )
    assert "My note" not in (site_project.root / "site/gb/gb0025.html").read_text()


# ---- highlighted code kept between builds (site/highlights.py) -------------------------------


def pygments_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The code Pygments highlights in this process from now on, in order."""
    from gbsite.docs import highlight

    calls: list[str] = []
    pygments_highlight = highlight.highlight

    def counted(code: str, *args: object) -> str:
        calls.append(code)
        return pygments_highlight(code, *args)

    monkeypatch.setattr(highlight, "highlight", counted)
    return calls


@pytest.mark.repo_data
def test_highlighted_code_is_kept_between_builds_and_gives_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build keeps its highlighted code in the cache folder; the next build of another folder
    highlights nothing (Pygments is never called) and writes the same bytes. Both processes of a
    forked build add theirs."""
    from gbsite import config
    from gbsite.site import build, highlights

    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    proj = make_project(tmp_path / "proj", docs=True)
    cfg = config.load(proj.root)
    calls = pygments_calls(monkeypatch)

    build.build(cfg, tmp_path / "one", parallel=True)
    kept = json.loads(highlights.cache_file().read_text())
    assert len(kept) > 500 and len(calls) < len(kept)  # the forked worker highlighted some
    calls.clear()
    # The blocks kept (blockcache.py) gone: each block is rendered, its code highlighted or not.
    shutil.rmtree(tmp_path / "cache" / "blocks")
    build.build(cfg, tmp_path / "two", parallel=False)
    assert calls == []  # the worker's code came back and was kept too: nothing highlighted
    assert _tree(tmp_path / "two") == _tree(tmp_path / "one")
    # Without the cache: the same bytes, and each block's code highlighted once.
    highlights.cache_file().unlink()
    shutil.rmtree(tmp_path / "cache" / "blocks")
    build.build(cfg, tmp_path / "three", parallel=False)
    assert _tree(tmp_path / "three") == _tree(tmp_path / "one")
    assert len(calls) == len(kept)


@pytest.mark.repo_data
def test_a_cold_build_shows_the_code_its_worker_highlighted_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forked build with no highlighted code kept has a worker highlight the docs' code while
    it loads (site/ahead.py). Left to finish, the worker highlights every fence the pages show,
    under the keys the render phase asks for (a key names the code, its language and its marked
    lines: the HTML is what the render phase would make, tests/unit/site/test_ahead.py), so the
    render phase highlights none, nor parses an example to find where its name is bound (the
    worker kept that with the parsed texts); and what the worker highlighted is kept for the
    next build."""
    from gbsite import config
    from gbsite.examples import shown
    from gbsite.site import ahead, build, highlights, render

    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    cfg = config.load(make_project(tmp_path / "proj", docs=True).root)
    monkeypatch.setattr(ahead.Ahead, "collect", lambda self: self.worker.result())
    monkeypatch.setattr(render, "can_fork", lambda: False)  # all rendering in this process
    calls = pygments_calls(monkeypatch)
    here, find, found_here = os.getpid(), shown._find_binding, []

    def counted(text: str) -> tuple[int, bool, bool] | None:
        if os.getpid() == here:  # the worker's are its own
            found_here.append(text)
        return find(text)

    monkeypatch.setattr(shown, "_find_binding", counted)
    report = build.build(cfg, tmp_path / "one", parallel=True)
    kept = json.loads(highlights.cache_file().read_text())
    assert calls == [] and found_here == []
    assert report.highlighted_ahead >= len(kept) > 500
    assert build.build(cfg, tmp_path / "two", parallel=True).highlighted_ahead == 0  # kept now
    assert calls == []


@pytest.mark.repo_data
def test_a_cold_build_reads_the_scans_its_worker_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker of a cold build first scans every block for its fences and prose into the
    cache of parsed texts (site/ahead.py): a load phase that asks after it wrote them parses no
    block's Markdown itself. (What such a build writes: test_parallel_build_equals_sequential.)"""
    from gbsite import config, parsed
    from gbsite.examples import annotations
    from gbsite.site import build, fingerprint, load
    from gbsite.site.cache import BuildCache

    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    cfg = config.load(make_project(tmp_path / "proj", docs=True).root)
    name = f"markdown-scan-{annotations._scanner_name()}.lines"
    scans = tmp_path / "cache" / parsed.FOLDER / name
    here = os.getpid()
    scanned_here: list[str] = []
    scan, read_pages = annotations._scan, load._read_pages

    def counted(block: str) -> dict[str, list[Any]]:
        if os.getpid() == here:  # the worker's scans are its own
            scanned_here.append(block)
        return scan(block)

    def when_written(*args: Any) -> Any:
        deadline = time.monotonic() + 20
        while not scans.exists() and time.monotonic() < deadline:
            time.sleep(0.01)  # the worker scans ~600 blocks in ~0.2 s
        return read_pages(*args)

    monkeypatch.setattr(annotations, "_scan", counted)
    monkeypatch.setattr(load, "_read_pages", when_written)
    build.build(cfg, tmp_path / "site", parallel=True)
    assert scans.exists() and scanned_here == []
    # Without the worker's scans, the load phase scans every block here.
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "empty"))
    with parsed.session():
        load.load(cfg, fingerprint.inputs(cfg, None, ()), BuildCache(), [])
    assert len(scanned_here) > 500


@dataclass
class CleanBuild:
    """A project, the site a build with an empty cache folder wrote, and the cache it left."""

    project: Project
    outputs: dict[str, bytes]
    cache: dict[str, str]  # the highlighted code
    cache_dir: Path


@pytest.fixture(scope="module")
def clean_build(tmp_path_factory: pytest.TempPathFactory) -> CleanBuild:
    """Built once for the damaged caches below (a build per damage, not two)."""
    from gbsite import config
    from gbsite.site import build, highlights

    tmp = tmp_path_factory.mktemp("highlight")
    proj = make_project(tmp / "proj", docs=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GBSITE_CACHE_DIR", str(tmp / "clean"))
        outputs = build.build(config.load(proj.root), tmp / "site", parallel=False).outputs
        cache = json.loads(highlights.cache_file().read_text())
    assert cache
    return CleanBuild(proj, outputs, cache, tmp / "clean")


@pytest.mark.repo_data
@pytest.mark.parametrize(
    "damage", ["not json", "a list", "numbers for html", "a named pipe", "a folder", "no folder"]
)
def test_a_damaged_highlight_cache_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_build: CleanBuild, damage: str
) -> None:
    """The cache file is only a cache: whatever is in its place, the build highlights the code
    itself, writes the same site, and never fails or hangs."""

    from gbsite import config
    from gbsite.site import build, highlights

    cfg = config.load(clean_build.project.root)
    clean, good = clean_build.outputs, clean_build.cache
    # The clean build's parsed YAML is kept (~0.5 s a build); its blocks would hold the code
    # highlighted, and its highlighted code is what is damaged here.
    ignored = shutil.ignore_patterns("blocks", "highlight")
    shutil.copytree(clean_build.cache_dir, tmp_path / "cache", ignore=ignored)
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    path = highlights.cache_file()
    assert not path.parent.exists()
    path.parent.mkdir(parents=True)
    if damage == "not json":
        path.write_bytes(b"\xff{not json")
    elif damage == "a list":
        path.write_text("[1, 2]")
    elif damage == "numbers for html":  # the right keys, values that are no HTML
        path.write_text(json.dumps(dict.fromkeys(good, 1)))
    elif damage == "a named pipe":
        os.mkfifo(path)
    elif damage == "a folder":
        path.mkdir()
    else:  # the cache folder is a file: nothing can be read or written there
        shutil.rmtree(tmp_path / "cache")
        (tmp_path / "cache").write_text("")
    damaged = build.build(cfg, tmp_path / "site", parallel=False).outputs
    assert damaged == clean


@pytest.mark.repo_data
def test_a_build_from_parsed_yaml_kept_by_the_last_command_writes_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_build: CleanBuild
) -> None:
    """A command keeps what parsing each YAML text gave (parsed.py); the next build reads the
    registry and the record from there, parses none of them, and writes the same site as a
    build that parsed everything."""
    from gbsite import config, parsed
    from gbsite.registry import yamlio
    from gbsite.site import build

    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    cfg = config.load(clean_build.project.root)
    parses: list[Path] = []
    load = yamlio._load
    monkeypatch.setattr(yamlio, "_load", lambda p, t: parses.append(p) or load(p, t))
    with parsed.session():
        first = build.build(cfg, tmp_path / "one", parallel=False).outputs
    assert len(parses) > 500  # every file of the registry, parsed and kept
    parses.clear()
    with parsed.session():
        second = build.build(cfg, tmp_path / "two", parallel=False).outputs
    assert parses == []
    assert first == second == clean_build.outputs


# ---- contributor blocks kept between commands (site/blockcache.py) ---------------------------


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.repo_data
def test_blocks_kept_by_the_last_command_are_not_rendered_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forked build keeps the blocks both its processes rendered; a build into a new folder
    renders none of them and writes the same bytes. After one docs file changes, only its block
    is rendered, and the site is the one a build with an empty cache folder writes. A change of
    the record (a generation of its own) renders every block again."""
    from gbsite import config
    from gbsite.docs.blocks import BlockRenderer
    from gbsite.examples import record
    from gbsite.site import build

    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    proj = make_project(tmp_path / "proj", docs=True)
    cfg = config.load(proj.root)
    rendered: list[str] = []
    render_block = BlockRenderer.__call__

    def counted(self: BlockRenderer, gb_id: str, source: str) -> object:
        rendered.append(gb_id)
        return render_block(self, gb_id, source)

    monkeypatch.setattr(BlockRenderer, "__call__", counted)
    build.build(cfg, tmp_path / "one", parallel=True)
    (kept,) = (tmp_path / "cache" / "blocks").iterdir()
    blocks = len(kept.read_text().splitlines())
    assert blocks > 500 and len(rendered) < blocks  # the forked worker rendered some
    rendered.clear()
    build.build(cfg, tmp_path / "two", parallel=False)
    assert rendered == []  # the worker's blocks came back and were kept too
    assert _tree(tmp_path / "two") == _tree(tmp_path / "one")

    page(proj, "GB0003", "### Why this happens\n\nA sentence *kept* by no cache yet.\n")
    build.build(cfg, tmp_path / "three", parallel=False)  # a worker's calls would not be seen
    assert rendered == ["GB0003"]
    assert "A sentence <em>kept</em>" in (tmp_path / "three" / "gb" / "gb0003.html").read_text()
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "empty"))
    build.build(cfg, tmp_path / "four", parallel=False)
    assert _tree(tmp_path / "three") == _tree(tmp_path / "four")

    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    record.write(cfg.verified_file, record.EMPTY)
    rendered.clear()
    build.build(cfg, tmp_path / "five", parallel=False)
    assert len(rendered) == blocks


@pytest.mark.repo_data
@pytest.mark.parametrize(
    "damage", ["not UTF-8", "lines of no key", "text that is no block", "a folder"]
)
def test_a_damaged_block_cache_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_build: CleanBuild, damage: str
) -> None:
    """The blocks' cache file is only a cache: whatever is in its place, the build renders the
    blocks itself and writes the same site. (The clean build's other caches are kept: the
    highlighted code and the parsed YAML have tests of their own, and each would cost this
    build ~2 s more.)"""
    from gbsite import config
    from gbsite.site import blockcache, build, fingerprint

    cfg = config.load(clean_build.project.root)
    shutil.copytree(
        clean_build.cache_dir, tmp_path / "cache", ignore=shutil.ignore_patterns("blocks")
    )
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    path = blockcache.cache_file(fingerprint.inputs(cfg).generation)
    assert not path.parent.exists()
    path.parent.mkdir(parents=True)
    good = (clean_build.cache_dir / "blocks").iterdir()
    if damage == "not UTF-8":
        path.write_bytes(next(good).read_bytes() + b"\xff")
    elif damage == "lines of no key":  # each block's line without the space after its key
        lines = next(good).read_text().splitlines()
        path.write_text("".join(line.replace(" ", "", 1) + "\n" for line in lines))
    elif damage == "text that is no block":  # every key of the committed docs, wrong values
        keys = [line.split(" ")[0] for line in next(good).read_text().splitlines()]
        values = ["", "[]", '{"sections": [], "classes": []}', '{"sections": 1}', "null"]
        path.write_text("".join(f"{k} {values[i % 5]}\n" for i, k in enumerate(keys)))
    else:
        path.mkdir()
    assert build.build(cfg, tmp_path / "site", parallel=False).outputs == clean_build.outputs


@pytest.mark.repo_data
def test_a_highlight_cache_with_markup_of_its_own_is_sanitized(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_build: CleanBuild
) -> None:
    """Highlighted code skips the sanitizer only when it is what Pygments writes (text in span
    tags): a cache file someone wrote with a script or a handler in its HTML is sanitized."""
    from gbsite import config
    from gbsite.site import build, highlights

    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    path = highlights.cache_file()
    path.parent.mkdir(parents=True)
    planted = '<script>alert(1)</script><span class="n" onclick="steal()">planted</span>'
    path.write_text(json.dumps({key: html + planted for key, html in clean_build.cache.items()}))
    outputs = build.build(config.load(clean_build.project.root), tmp_path / "site").outputs
    pages = [data.decode() for name, data in outputs.items() if name.startswith("gb/")]
    assert sum("planted" in page for page in pages) > 100  # the cache was used
    assert not any("alert(1)" in page or "steal()" in page for page in pages)

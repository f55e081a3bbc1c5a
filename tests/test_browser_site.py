"""The built site in real Chromium: content, links, keyboard, themes, no errors, no other hosts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from browser_support import serve_folder
from conftest import Project, committed, example_releases, labels, sync_note, unknown_id
from gbsite.examples.vocabulary import State
from gbsite.registry.model import Entry

# The site of the committed registry and docs: what an import changes (how many ids, which are
# removed, the texts) is read from the committed registry.
pytestmark = pytest.mark.browser
UNKNOWN = unknown_id()


def title(gb_id: str) -> str:
    """An entry's heading as the browser shows it: its id, then its type (backticks become
    code)."""
    return f"{gb_id} " + committed().entries[gb_id].current.gb_type.replace("`", "")


def removed_entry() -> Entry:
    """An id the committed registry keeps as removed (skips when upstream removed none)."""
    removed = [e for e in committed().entries.values() if e.is_removed]
    if not removed:
        pytest.skip("the committed registry has no removed id")
    return removed[0]


def test_index(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "index.html")
    assert page.title().startswith("All graph breaks")
    assert page.locator("h1").inner_text() == "torch.compile graph breaks"
    assert page.locator("table.entries tbody tr").count() == len(committed().entries)
    page.locator("tr#GB0025 th a").click()
    page.wait_for_url("**/gb/gb0025.html")
    assert page.locator("h1").inner_text() == title("GB0025")


def test_a_removed_entry_in_the_index(open_page: Any, base_url: str) -> None:
    entry = removed_entry()
    page = open_page(base_url + "index.html")
    assert f"Removed in {entry.removed}" in page.locator(f"tr#{entry.id}").inner_text()


def test_index_is_readable_on_a_phone(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "index.html", width=390, height=844)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"page is {overflow}px wider than the phone"
    row = page.locator("tr#GB0000")
    assert row.bounding_box()["width"] <= 390
    assert page.locator("tr#GB0000 th a").is_visible()


def test_entry_with_additional_information(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "gb/gb0025.html")
    assert (
        page.title() == "GB0025: Call to torch._dynamo.graph_break() · torch.compile graph breaks"
    )
    info = page.locator("#additional-information")
    # Contributor ids carry GitHub's prefix (user-content-), so they never equal the layout's.
    # The block's top headings (###) are the page's sections (h2).
    assert info.locator("h2#user-content-a-worked-example").is_visible()
    assert info.locator("td").nth(1).inner_html() == "stops at the first break<br>one graph"
    assert info.locator("pre.highlight span").count() > 3  # highlighted at build time
    info.locator("h2#user-content-a-worked-example a.header-anchor").click(force=True)
    assert page.url.endswith("#user-content-a-worked-example")
    info.locator("a.gb-mention", has_text="GB0029").click()
    page.wait_for_url("**/gb/gb0029.html")
    assert page.locator("h1").inner_text() == title("GB0029")


def test_entry_navigation(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "gb/gb0001.html")
    page.locator("a[rel=next]").click()
    page.wait_for_url("**/gb/gb0002.html")
    page.locator("a[rel=prev]").click()
    page.wait_for_url("**/gb/gb0001.html")
    page.locator(".crumbs a").click()
    page.wait_for_url("**/index.html")
    page.go_back()
    # GB0001's text before 2.14.0's typo fix, among its earlier texts.
    texts = []
    for earlier in page.locator("#history details").all():
        earlier.locator("summary").click()
        texts.append(earlier.inner_text())
    assert any("regione" in text for text in texts)


def test_removed_entry(open_page: Any, base_url: str) -> None:
    entry = removed_entry()
    page = open_page(base_url + f"gb/{entry.slug}.html")
    notice = page.locator(".notice-removed")
    assert notice.is_visible()
    assert f"Removed in PyTorch {entry.removed}." in notice.inner_text()
    assert f"Removed in {entry.removed}" in page.locator(".entry-head .meta").inner_text()
    assert page.locator("#lifecycle").inner_text().count(entry.removed or "") >= 1


def test_dashboard(open_page: Any, base_url: str) -> None:
    entries = committed().entries
    removed = [e for e in entries.values() if e.is_removed]
    page = open_page(base_url + "dashboard.html")
    totals = page.locator(".totals").inner_text()
    assert str(len(entries)) in totals and str(len(entries) - len(removed)) in totals
    assert page.locator("#growth svg rect.bar").count() == len(labels())
    page.locator(".totals a[href='#list-removed']").click()
    listed = page.locator("#list-removed")
    # Opened by site.js on hashchange, which fires after the click returns.
    page.wait_for_function("document.getElementById('list-removed').open", timeout=5000)
    assert [t.split()[0] for t in listed.locator("a").all_inner_texts()] == [e.id for e in removed]
    entry = removed_entry()
    page.locator("#list-removed a", has_text=entry.id).click()
    page.wait_for_url(f"**/gb/{entry.slug}.html")


@pytest.mark.parametrize("category", ["No category", "User error"])
def test_dashboard_category_counts_match_the_lists_they_open(
    open_page: Any, base_url: str, category: str
) -> None:
    page = open_page(base_url + "dashboard.html")
    row = page.locator("#categories tbody tr", has_text=category)
    count = int(row.locator("td.num").inner_text())
    row.locator("a").click()
    page.wait_for_url("**/index.html?category=*")
    page.wait_for_function("!!window.gbsiteSearch")
    rows = page.locator("table.entries tbody tr:not([hidden])")
    page.wait_for_function(
        f"document.querySelectorAll('table.entries tbody tr:not([hidden])').length === {count}",
        timeout=5000,
    )
    assert rows.count() == count


def test_keyboard(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "gb/gb0025.html")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"


def test_dark_theme_follows_the_system(open_page: Any, base_url: str) -> None:
    light = open_page(base_url + "gb/gb0000.html")
    dark = open_page(base_url + "gb/gb0000.html", scheme="dark")
    bg = "getComputedStyle(document.body).backgroundColor"
    assert light.evaluate(bg) == "rgb(255, 255, 255)"
    assert dark.evaluate(bg) == "rgb(13, 17, 23)"


def test_site_works_opened_from_disk(open_page: Any, built_site: Project) -> None:
    page = open_page((built_site.site / "index.html").as_uri())
    page.locator("tr#GB0003 th a").click()
    page.wait_for_url("**/gb/gb0003.html")
    color = page.evaluate("getComputedStyle(document.querySelector('.entry-id')).color")
    assert color == "rgb(194, 65, 12)"  # the stylesheet loaded from disk
    page.locator("a[href='../dashboard.html']").first.click()
    assert page.locator("#growth svg").is_visible()


def test_contrast_of_muted_text(open_page: Any, base_url: str) -> None:
    """Muted text and labels meet WCAG AA (4.5:1) in both themes."""
    script = """(sel) => {
      const el = document.querySelector(sel);
      const parse = c => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
      const lum = rgb => { const [r, g, b] = rgb.map(v => { v /= 255;
        return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
      let node = el, bg = "rgba(0, 0, 0, 0)";
      while (node && (bg === "rgba(0, 0, 0, 0)" || bg === "transparent")) {
        bg = getComputedStyle(node).backgroundColor; node = node.parentElement; }
      const a = lum(parse(getComputedStyle(el).color)), b = lum(parse(bg));
      return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    }"""
    for scheme in ("light", "dark"):
        page = open_page(base_url + "gb/gb0000.html", scheme=scheme)
        for selector in (
            ".aside",
            ".crumbs",
            ".label.cat-user-error",
            ".entry-id",
            "a.edit",
            ".site-footer p",
        ):
            ratio = page.evaluate(script, selector)
            assert ratio >= 4.5, f"{scheme} {selector}: contrast {ratio:.2f}"


def test_landmarks(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "gb/gb0025.html")
    for role in ("banner", "navigation", "main", "contentinfo", "search"):
        assert page.get_by_role(role).count() >= 1, role
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("h1").count() == 1


@pytest.mark.parametrize(
    ("prefix", "missing"),
    [
        ("/compile-graph-break-site/", f"gb/{UNKNOWN.lower()}.html"),
        ("/compile-graph-break-site/", "some/deep/path.html"),
        ("/", f"gb/{UNKNOWN.lower()}.html"),
        ("/other/host/prefix/", f"gb/{UNKNOWN.lower()}.html"),
        ("/other/host/prefix/", "nothing.html"),
    ],
)
def test_404_page_under_any_prefix(
    open_page: Any, built_site: Project, prefix: str, missing: str
) -> None:
    """GitHub Pages answers any missing path with 404.html: its layout, search and links work
    wherever it is served, and a missing entry page says the id is newer than the registry."""
    with serve_folder(built_site.site, prefix, pages=open_page) as site_url:
        page = open_page(site_url + missing, not_found=True)
        assert page.locator("h1").inner_text() == "Page not found"
        assert page.evaluate("document.querySelector('link[rel=icon]').href") == (
            site_url + "assets/favicon.svg"
        )
        newer = page.locator("#newer-id")
        if missing.startswith("gb/"):
            assert newer.is_visible()
            text = newer.inner_text()
            assert f"{UNKNOWN} is newer than this site's registry" in text
            assert sync_note() in text
            upstream = newer.locator("a", has_text="registry on PyTorch's main branch")
            assert upstream.get_attribute("href") == (
                "https://github.com/pytorch/pytorch/blob/main/torch/_dynamo/graph_break_registry.json"
            )
            assert page.locator("#search-input").input_value() == UNKNOWN
        else:
            assert not newer.is_visible()
        page.locator("#search-input").fill("generator")
        option = page.locator(".search-popup [role=option]").first
        option.wait_for()
        assert option.get_attribute("data-href").startswith("gb/gb")
        option.click()
        page.wait_for_url(site_url + "gb/gb*.html")
        page.go_back()
        page.locator("main a", has_text="All graph breaks").click()
        page.wait_for_url(site_url + "index.html")
        assert page.locator("table.entries tbody tr").count() == len(committed().entries)


def test_a_page_a_test_served_itself_is_closed_before_its_server_stops(
    open_page: Any, tmp_path: Path
) -> None:
    """serve_folder(pages=open_page) closes the test's pages before the server stops: a page
    that keeps asking (as a prefetch or an icon may, late) then meets no refused request, which
    open_page's teardown would report as the page's console error and fail the test."""
    import time

    (tmp_path / "x.txt").write_text("x")
    (tmp_path / "index.html").write_text(
        '<!doctype html><title>t</title><link rel=icon href="data:,"><script>'
        "setInterval(() => fetch('x.txt').catch(() => {}), 20);</script>"
    )
    with serve_folder(tmp_path, pages=open_page) as url:
        page = open_page(url + "index.html")
        page.wait_for_timeout(100)
    time.sleep(0.3)  # a page left open would ask the stopped server a dozen times by now
    open_page("about:blank")  # a call into the browser: what the first page logged arrives
    assert open_page.watches[0].errors == []


def test_404_sends_a_misspelt_entry_url_to_its_page(open_page: Any, built_site: Project) -> None:
    with serve_folder(built_site.site, "/p/", pages=open_page) as site_url:
        page = open_page(site_url + "gb/GB25.html", not_found=True)
        page.wait_for_url(site_url + "gb/gb0025.html")
        assert "GB0025" in page.locator(".entry-id").inner_text()


def test_copy_button_on_code_blocks(browser: Any, base_url: str) -> None:
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(base_url + "gb/gb0025.html")
    blocks = page.locator(".entry pre")
    assert blocks.count() >= 1
    assert page.locator(".entry .copy-code").count() == blocks.count()
    info = page.locator("#additional-information .code-box", has_text="graph_break()").first
    button = info.locator("button.copy-code")
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "[...document.querySelectorAll('.copy-code')].some(b => b.textContent === 'Copied')"
    )
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == info.locator("pre code").inner_text().rstrip("\n")
    assert copied.strip() == "torch._dynamo.graph_break()"
    context.close()


def test_section_headings_link_to_their_sections(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "gb/gb0001.html")
    sections = page.locator("article > section:has(> h2)")
    ids = sections.evaluate_all("ss => ss.map(s => s.id)")
    assert {"pytorch-text", "releases"} <= set(ids)
    for section_id in ids:
        anchor = page.locator(f"section#{section_id} > h2 a.section-anchor")
        assert anchor.get_attribute("href") == f"#{section_id}"
    # The ids older links name still have a target.
    for old in ("explanation", "hints", "context", "additional-information", "lifecycle"):
        assert page.locator(f"#{old}").count() == 1, old
    anchor = page.locator("section#pytorch-text > h2 a.section-anchor")
    anchor.focus()
    assert page.evaluate("getComputedStyle(document.activeElement).opacity") == "1"
    page.keyboard.press("Enter")
    page.wait_for_function("location.hash === '#pytorch-text'")


@pytest.mark.parametrize(
    "path",
    [
        "releases/index.html",
        "releases/2.14.0.html",
        "releases/2.10.0.html",
        "dashboard.html",
        "gb/gb0025.html",
        "gb/gb0170.html",
    ],
)
def test_wide_content_scrolls_in_its_own_box_on_a_phone(
    open_page: Any, base_url: str, path: str
) -> None:
    page = open_page(base_url + path, width=390, height=844)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{path} is {overflow}px wider than the phone"
    for box in page.locator(".table-scroll").all():
        assert box.get_attribute("tabindex") == "0"  # a keyboard can scroll it
        assert box.locator("table").count() == 1
    if path == "gb/gb0025.html":
        box = page.locator("#additional-information .table-scroll")
        assert box.count() == 1


def test_entry_json_is_linked_from_its_page(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "gb/gb0001.html")
    link = page.locator("a", has_text="This entry as JSON")
    assert link.get_attribute("href") == "gb0001.json"
    data = page.evaluate("async (url) => (await fetch(url)).json()", link.evaluate("a => a.href"))
    assert data["id"] == "GB0001" and data["url"] == "gb0001.html"
    entry = committed().entries["GB0001"]
    assert len(data["history"]) >= 2  # its texts over the releases
    assert [h["current_since"] for h in data["history"]] == [r.current_since for r in entry.history]
    assert data["state"]["release"] == example_releases()[-1]  # the newest of the examples
    # Any state a page can be in: "pending" too, when a release was just added.
    assert data["state"]["state"] in set(State)
    removed = removed_entry()
    page = open_page(base_url + f"gb/{removed.slug}.html")
    data = page.evaluate(f"async () => (await fetch('{removed.slug}.json')).json()")
    assert data["status"] == "removed" and data["removed"] == removed.removed


def test_every_dashboard_count_matches_the_list_it_links_to(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "dashboard.html")
    links = page.locator("#categories tbody tr").evaluate_all(
        """rows => rows.map(r => [r.querySelector('a').getAttribute('href'),
                                  Number(r.querySelector('td.num').textContent)])"""
    )
    links += page.locator(".totals a[href^='index.html']").evaluate_all(
        "as => as.map(a => [a.getAttribute('href'), +a.querySelector('.number').textContent])"
    )
    assert len(links) >= 5
    # Each link followed in one tab, as a reader goes from list to list (a tab of its own for
    # each: ~1.3 s a list here against ~0.5 s, the search index fetched and compiled anew).
    index = open_page(base_url + links[0][0])
    for n, (href, count) in enumerate(links):
        if n:
            index.goto(base_url + href)
        index.wait_for_function("!!window.gbsiteSearch")
        shown = index.locator("table.entries tbody tr:not([hidden])").count()
        assert shown == count, href
    for group in page.locator(".totals a[href^='#']").all():
        target = group.get_attribute("href")
        count = int(group.locator(".number").inner_text())
        assert page.locator(f"{target} .entry-list li:not(.empty)").count() == count, target


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("gb/GB25", "/gb/gb0025.html"),  # a typo of an id: sent to its page
        ("/evil.example/gb/gb25", None),  # //evil.example/...: another host, not followed
        ("/\\evil.example/gb/gb25", None),
    ],
    ids=["typo", "double slash", "slash backslash"],
)
def test_404_redirects_within_the_site_only(
    open_page: Any, built_site: Project, path: str, expected: str | None
) -> None:
    """GitHub Pages serves 404.html for any missing path; its redirect of a misspelt entry URL
    never leaves the site, whatever the path looks like."""
    with serve_folder(built_site.site, "/", pages=open_page) as site_url:
        page = open_page(site_url + path, not_found=True)
        page.wait_for_timeout(300)
        if expected is None:
            assert page.url.startswith(site_url) and "Page not found" in page.content()
        else:
            assert page.url == site_url.rstrip("/") + expected


def test_a_link_to_a_heading_without_the_prefix_still_arrives(
    open_page: Any, base_url: str
) -> None:
    # Links written before contributor ids had their user-content- prefix keep working.
    page = open_page(base_url + "gb/gb0025.html#a-worked-example")
    page.wait_for_function("window.scrollY > 0", timeout=5000)
    top = page.evaluate(
        "document.getElementById('user-content-a-worked-example').getBoundingClientRect().top"
    )
    assert -1 <= top < 200  # at the top (to a fraction of a pixel), below the sticky header

"""Search, filters and "paste your error" in the real page, with real torch 2.13.0 logs."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

import lookup_shapes
from browser_support import serve_folder
from conftest import DATA, Project
from gbsite.search import index
from gbsite.search.model import SearchEntry

pytestmark = pytest.mark.browser


# What a query finds depends on every text of the registry: these tests search the site of the
# HISTORY releases' registry (with the committed docs), which no later import changes.
@pytest.fixture(scope="module")
def built_site(history_site: Project) -> Project:
    return history_site


@pytest.fixture(scope="module")
def base_url(built_site: Project) -> Iterator[str]:
    with serve_folder(built_site.site) as url:
        yield url


LOGS = sorted(p for p in (DATA / "logs").glob("*.log") if "gb/gb" in p.read_text())


def linked_ids(text: str) -> list[str]:
    return list(dict.fromkeys(f"GB{n}" for n in re.findall(r"gb/gb(\d{4})\.html", text)))


def paste(page: Any, text: str) -> None:
    """A real paste event with clipboard data, as when a user presses Ctrl+V."""
    page.locator("#search-input").focus()
    page.evaluate(
        """(text) => {
            const data = new DataTransfer();
            data.setData("text/plain", text);
            const input = document.getElementById("search-input");
            const event = new ClipboardEvent("paste", {clipboardData: data, bubbles: true,
                                                       cancelable: true});
            if (input.dispatchEvent(event)) {  // nobody handled it: insert as a browser would
                input.value = text.replace(/[\\r\\n]/g, "");
                input.dispatchEvent(new Event("input", {bubbles: true}));
            }
        }""",
        text,
    )


def panel_ids(page: Any) -> list[str]:
    page.wait_for_selector("#search-results:not([hidden])")
    return page.locator("#search-results li.result").evaluate_all(
        "items => items.map(i => i.dataset.id)"
    )


def query(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_pasted_log_finds_its_entry_first(open_page: Any, base_url: str, log: Path) -> None:
    text = log.read_text()
    page = open_page(base_url + "index.html")
    paste(page, text)
    found = panel_ids(page)
    assert found[: len(linked_ids(text))] == linked_ids(text)
    assert "the link in your log" in page.locator("#search-results li.result").first.inner_text()


@pytest.mark.parametrize(
    "name", ["data-dependent-if", "fullgraph-one-hot", "multi", "logger-info", "deepcopy-tensor"]
)
def test_pasted_log_without_links(open_page: Any, base_url: str, name: str) -> None:
    """The same logs with their links removed: the browser matches type and explanation."""
    text = (DATA / "logs" / f"{name}.log").read_text()
    page = open_page(base_url + "index.html")
    paste(page, re.sub(r"https?://\S+", "", text))
    assert panel_ids(page) == linked_ids(text)


def test_log_pasted_as_one_line(open_page: Any, base_url: str) -> None:
    """If the line breaks are lost (typed or pasted without our handler), it still works."""
    text = re.sub(r"https?://\S+", "", (DATA / "logs" / "multi.log").read_text())
    page = open_page(base_url + "index.html")
    page.locator("#search-input").fill(re.sub(r"\s+", " ", text))
    assert panel_ids(page) == ["GB0291", "GB0059", "GB0170", "GB0109"]


def test_paste_on_an_entry_page_and_open_the_result(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "gb/gb0001.html")
    paste(page, (DATA / "logs" / "fullgraph-one-hot.log").read_text())
    page.wait_for_selector(".search-popup [role=option]")
    first = page.locator(".search-popup [role=option]").first
    assert first.get_attribute("data-id") == "GB0246"
    page.keyboard.press("ArrowDown")
    assert first.get_attribute("aria-selected") == "true"
    assert page.locator("#search-input").get_attribute(
        "aria-activedescendant"
    ) == first.get_attribute("id")
    page.keyboard.press("Enter")
    page.wait_for_url("**/gb/gb0246.html")


def test_results_as_you_type(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "gb/gb0300.html")
    page.locator("#search-input").click()
    page.keyboard.type("data dependent bran", delay=20)
    page.wait_for_function(
        "document.querySelector('.search-popup [role=option]')?.dataset.id === 'GB0170'"
    )
    page.keyboard.press("Escape")
    assert page.locator(".search-popup").count() == 0
    page.locator("#search-input").fill("generator")
    page.wait_for_selector(".search-popup [role=option]")
    page.keyboard.press("Enter")  # nothing selected: the full results on the index
    page.wait_for_url("**/index.html?q=generator")
    assert "GB0003" in panel_ids(page)


@pytest.mark.parametrize("typed", ["gb0025", "GB0025", "0025", "gb25", "25"])
@pytest.mark.parametrize("start", ["index.html", "gb/gb0300.html"])
def test_enter_on_an_exact_id_opens_its_page(
    open_page: Any, base_url: str, typed: str, start: str
) -> None:
    page = open_page(base_url + start)
    page.locator("#search-input").fill(typed)
    page.keyboard.press("Enter")
    page.wait_for_url("**/gb/gb0025.html")


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("GB0060", "GB0060"),
        ("0025", "GB0025"),
        ("gb25", "GB0025"),
        ("generator", "GB0003"),
        ("https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0029.html", "GB0029"),
        ("Dynamo cache limit exceeded", "GB0039"),
        ("unittest", "GB0060"),
        ("Graph Break Reason: Data-dependent branching", "GB0170"),
    ],
)
def test_queries(open_page: Any, base_url: str, text: str, first: str) -> None:
    page = open_page(base_url + "index.html")
    page.locator("#search-input").fill(text)
    assert panel_ids(page)[0] == first


def test_contributor_text_is_searchable(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "index.html")
    page.locator("#search-input").fill("worked example")  # only in GB0025's block
    assert panel_ids(page)[0] == "GB0025"


def test_filters_live_in_the_url_and_the_back_button_works(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "index.html")
    page.wait_for_function("!!window.gbsiteSearch")
    rows = page.locator("table.entries tbody tr:not([hidden])")
    assert rows.count() == 593
    page.select_option("#filter-category", "user-error")
    assert query(page) == {"category": ["user-error"]}
    user_error = rows.count()
    assert 100 < user_error < 593
    assert all(
        "user-error" in c for c in rows.evaluate_all("rs => rs.map(r => r.dataset.category)")
    )
    page.select_option("#filter-status", "removed")
    assert query(page) == {"category": ["user-error"], "status": ["removed"]}
    assert rows.count() == 0
    page.select_option("#filter-category", "")
    assert rows.count() == 1 and rows.first.get_attribute("id") == "GB0060"
    # The state filter: the one removed id stays listed only in its page's state.
    removed_state = page.locator("#GB0060").get_attribute("data-state")
    page.select_option("#filter-state", "verified")
    assert query(page) == {"state": ["verified"], "status": ["removed"]}
    assert rows.count() == (1 if removed_state == "verified" else 0)
    page.go_back()
    assert query(page) == {"status": ["removed"]}
    assert page.locator("#filter-state").input_value() == ""
    assert rows.count() == 1
    page.go_back()
    page.go_back()
    assert query(page) == {"category": ["user-error"]}
    assert page.locator("#filter-category").input_value() == "user-error"
    assert rows.count() == user_error


def test_shared_url_restores_query_and_filters(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "index.html?q=trace&status=removed&added=2.8.0")
    assert page.locator("#search-input").input_value() == "trace"
    assert page.locator("#filter-status").input_value() == "removed"
    assert page.locator("#filter-added").input_value() == "2.8.0"
    assert panel_ids(page) == ["GB0060"]
    page = open_page(base_url + "index.html?state=verified&category=fundamental")
    assert page.locator("#filter-state").input_value() == "verified"
    expected = page.locator(
        "tbody tr[data-state='verified'][data-category~='fundamental']"
    ).evaluate_all("rows => rows.map(r => r.id)")
    assert "GB0003" in expected
    # Not every page is verified: the state filter has something to hide.
    assert (
        page.locator("tbody tr[data-state='verified']").count() < page.locator("tbody tr").count()
    )
    page.wait_for_function(
        f"document.querySelectorAll('tbody tr:not([hidden])').length === {len(expected)}"
    )
    shown = page.locator("tbody tr:not([hidden])").evaluate_all("rows => rows.map(r => r.id)")
    assert shown == expected


def test_query_in_url_follows_typing(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "index.html?category=fundamental")
    page.locator("#search-input").fill("trace generator")
    page.wait_for_function("location.search.includes('q=trace+generator')")
    assert query(page) == {"q": ["trace generator"], "category": ["fundamental"]}
    assert panel_ids(page)[0] == "GB0003"


def test_index_loads_only_when_search_is_used(browser: Any, base_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(base_url + "gb/gb0025.html")
    page.wait_for_load_state("networkidle")
    assert not any("search" in url for url in requested)
    page.locator("#search-input").focus()
    page.wait_for_function("!!window.GBSITE_SEARCH")
    assert any(url.endswith("assets/search-index.js") for url in requested)
    # The engine and the search box, each once; the box runs after the engine it calls.
    for script in ("assets/search-engine.js", "assets/search.js"):
        assert sum(url.endswith(script) for url in requested) == 1
    assert page.evaluate("!!window.gbsiteSearchEngine && !!window.gbsiteSearch")
    context.close()


def test_search_works_opened_from_disk(open_page: Any, built_site: Project) -> None:
    page = open_page((built_site.site / "gb" / "gb0001.html").as_uri())
    paste(page, (DATA / "logs" / "user-graph-break.log").read_text())
    page.wait_for_selector(".search-popup [data-id=GB0025]")


NOTHING = "no graph break matches"  # the CLI's line when nothing matches and nothing is noted
PARITY_QUERIES = [
    "GB0025",
    "0170",
    " gb-0059 ",
    "GB9999",
    "gb0400",  # a gap in the registry's ids (the browser and the CLI say the same of it)
    "see https://x/gb/gb9999.html",
    "generator",
    "gb59",  # an id in any spelling
    "59",
    "generator zzqx",  # only weak matches: the note says so
    "trace generator",
    "generator generator trace",
    "data dependent bran",
    "print",
    "how do i fix a generator",
    "torch.cond",
    "numpy",
    "deepcopy",
    "item",
    "register_hook",
    "Dyanmo only supports",
    "Dynamo cache limit exceeded",
    "zzqx qqzz",
    "hooks compiled autograd",
    "Graph Break Reason: Data-dependent branching",
    "Explanation: User-inserted graph break.",
    "unsupported context manager",
    "non-Tensor",
    "<{type_name}>",
    "__torch_function__",
    "worked example",  # only in GB0025's contributed block: the CLI read the built index
    "constructor",  # a name every JavaScript object has
    "toString valueOf",
    " ".join(f"word{n}" for n in range(100)) + " generator",  # past the cap on words
]


def parity_queries(entries: list[SearchEntry] | None = None) -> list[str]:
    """Ids, words, the shapes of tests/lookup_shapes.py (those made from the registry's texts
    too, given its `entries`) and the real logs: whole, without their links, and pasted as one
    line."""
    queries = PARITY_QUERIES + [text for _, text, _ in lookup_shapes.CASES]
    if entries is not None:
        queries += [text for _, text, _ in lookup_shapes.pasted_shapes(entries)]
    for log in sorted((DATA / "logs").glob("*.log")):
        text = log.read_text()
        unlinked = re.sub(r"https?://\S+", "", text)
        queries += [text, unlinked, re.sub(r"\s+", " ", unlinked)]
    # The messages people posted (tests/test_corpus.py scores the CLI on them).
    posts = json.loads((DATA / "corpus" / "posts.json").read_text())["posts"]
    return queries + [post["text"] for post in posts]


def browser_found(page: Any, queries: list[str], raw: Any = None) -> list[dict[str, Any]]:
    """The first ten ids search.js finds for each query, and its notes, with the site's index,
    or with `raw` (an index as index_js writes it, parsed) in its place."""
    return list(
        page.evaluate(
            """async ([queries, raw]) => {
                const data = raw ? window.gbsiteSearch.prepare(raw)
                                 : await window.gbsiteSearch.loadIndex();
                return queries.map(q => {
                    const found = window.gbsiteSearch.lookup(q, data);
                    return {ids: found.slice(0, 10).map(m => m.entry.id), notes: found.notes};
                });
            }""",
            [queries, raw],
        )
    )


def browser_lookup(page: Any, queries: list[str], raw: Any = None) -> list[list[str]]:
    return [found["ids"] for found in browser_found(page, queries, raw)]


def cli_found(project: Project, query: str) -> tuple[list[str], list[str]]:
    """The first ten ids `gbsite lookup` finds for `query` given on its standard input, and
    its notes."""
    saved = sys.stdin
    sys.stdin = io.StringIO(query)
    try:
        result = project.run("lookup", "--json", "--limit", "10")
    finally:
        sys.stdin = saved
    assert result.code in (0, 1), result.err
    notes = [line.removeprefix("gbsite: lookup: ") for line in result.err.splitlines()]
    return [match["id"] for match in json.loads(result.out)], notes


def cli_lookup(project: Project, query: str) -> list[str]:
    return cli_found(project, query)[0]


def same_link(note: str) -> str:
    """A note with its page link as a path: the CLI links the published site, the browser
    the one it shows."""
    return re.sub(r"\S+/(gb/gb\d{4}\.html)", r"\1", note)


def test_gbsite_lookup_and_the_browser_rank_alike(
    open_page: Any, base_url: str, built_site: Project
) -> None:
    """The same queries through `gbsite lookup` (reading the built index) and the page's
    search: the same results, in the same order."""
    script = (built_site.site / "assets" / "search-index.js").read_text()
    queries = parity_queries(index.parse_index_js(script, info=False))
    page = open_page(base_url + "index.html")
    page.wait_for_function("!!window.gbsiteSearch")
    found = browser_found(page, queries)
    in_browser = [f["ids"] for f in found]
    differ = []
    for q, got in zip(queries, found, strict=True):
        expected, notes = cli_found(built_site, q)
        if got["ids"] != expected:
            differ.append((q[:60], expected, got["ids"]))
        if [same_link(n) for n in got["notes"]] != [same_link(n) for n in notes if n != NOTHING]:
            differ.append((q[:60], notes, got["notes"]))
    assert differ == []
    assert sum(1 for got in in_browser if got) > len(queries) * 0.9  # they find things
    assert in_browser[PARITY_QUERIES.index("worked example")][:1] == ["GB0025"]
    assert "is not in the registry" in found[PARITY_QUERIES.index("GB9999")]["notes"][0]


@pytest.mark.parametrize(
    ("table", "key", "value", "queries"),
    [
        # Contributed text above the type: words in a page's own block win.
        ("WEIGHTS", "info", 20.0, ["trace generator", "deepcopy", "print", "numpy"]),
        # A log must match more than a type and an explanation: unlinked logs fall to words.
        ("LOG_SCORES", "threshold", 500.0, ["multi", "logger-info", "data-dependent-if"]),
    ],
)
def test_a_changed_rule_changes_the_browser_ranking_too(
    open_page: Any,
    base_url: str,
    built_site: Project,
    monkeypatch: pytest.MonkeyPatch,
    table: str,
    key: str,
    value: float,
    queries: list[str],
) -> None:
    """search.js has no weights of its own: an index written with a changed rule changes its
    results, to what `lookup` finds with the same rule."""
    from gbsite.search import engine, index, rules

    if table == "LOG_SCORES":
        queries = [
            re.sub(r"https?://\S+", "", (DATA / "logs" / f"{name}.log").read_text())
            for name in queries
        ]
    script = (built_site.site / "assets" / "search-index.js").read_text()
    data = json.loads(script.removeprefix("window.GBSITE_SEARCH=").rstrip().removesuffix(";"))
    entries = index.parse_index_js(script)
    before = [[m.entry.id for m in engine.lookup(q, entries)[:10]] for q in queries]
    monkeypatch.setitem(getattr(rules, table), key, value)
    changed = index.index_js(entries, data["categories"], data["releases"])
    raw = json.loads(changed.removeprefix("window.GBSITE_SEARCH=").rstrip().removesuffix(";"))
    assert raw["rules"] != data["rules"] and raw["entries"] == data["entries"]
    after = [[m.entry.id for m in engine.lookup(q, entries)[:10]] for q in queries]
    assert after != before  # the rule matters for these queries
    page = open_page(base_url + "index.html")
    page.wait_for_function("!!window.gbsiteSearch")
    assert browser_lookup(page, queries, raw) == after
    assert browser_lookup(page, queries) == before  # the site's own index is unchanged


def search_requests(page: Any) -> list[str]:
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    return requested


@pytest.mark.parametrize("start", ["index.html", "index.html?category=user-error&status=current"])
def test_index_list_renders_without_the_search_index(
    browser: Any, base_url: str, start: str
) -> None:
    context = browser.new_context()
    page = context.new_page()
    requested = search_requests(page)
    page.goto(base_url + start)
    page.wait_for_function("!!window.gbsiteSearch")
    page.wait_for_load_state("networkidle")
    assert not any(url.endswith("search-index.js") for url in requested)
    expected = page.locator(
        "tbody tr[data-category~='user-error'][data-status='current']"
        if "category" in start
        else "tbody tr"
    ).count()
    assert page.locator("tbody tr:not([hidden])").count() == expected
    if "category" in start:
        page.select_option("#filter-status", "")  # first use of a filter
    else:
        page.locator("#search-input").focus()  # first focus of the search box
    page.wait_for_function("!!window.GBSITE_SEARCH")
    assert sum(url.endswith("assets/search-index.js") for url in requested) == 1
    context.close()


@pytest.mark.parametrize("start", ["index.html", "gb/gb0300.html"])
def test_nothing_typed_while_the_index_loads_is_lost(
    open_page: Any, base_url: str, start: str
) -> None:
    page = open_page(base_url + start)

    def slow(route: Any) -> None:
        page.wait_for_timeout(1500)
        route.continue_()

    page.route("**/search-index.js", slow)
    page.locator("#search-input").click()
    page.keyboard.type("generator", delay=30)
    assert page.evaluate("!window.GBSITE_SEARCH")  # typed while it loads
    if start == "index.html":
        assert panel_ids(page)[:2] == ["GB0003", "GB0120"]
    else:
        page.wait_for_selector(".search-popup [role=option]")
        first = page.locator(".search-popup [role=option]").first
        assert first.get_attribute("data-id") == "GB0003"
    assert page.locator("#search-input").input_value() == "generator"


def test_results_show_a_snippet_with_the_words_marked(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "index.html")
    page.locator("#search-input").fill("deepcopy tensor")
    assert panel_ids(page)[0] == "GB4198"  # copy.deepcopy of a tensor
    first = page.locator("#search-results li.result").first
    snippet = first.locator(".snippet")
    assert snippet.inner_text().strip()
    marks = first.locator("mark").all_inner_texts()
    assert marks and {m.lower() for m in marks} <= {"deepcopy", "tensor"}
    # As you type, the last word marks as the prefix it is.
    page.locator("#search-input").fill("data dependent bran")
    panel_ids(page)
    page.wait_for_function(
        "[...document.querySelectorAll('#search-results li.result mark')]"
        ".some(m => m.textContent.toLowerCase() === 'bran')"
    )
    # A pasted log marks nothing: the "why" says what matched.
    page.locator("#search-input").fill("https://x/gb/gb0025.html")
    assert panel_ids(page) == ["GB0025"]
    assert page.locator("#search-results mark").count() == 0
    assert page.locator("#search-results .snippet").inner_text().strip()


def test_filters_that_hide_every_match_say_so_and_clear(open_page: Any, base_url: str) -> None:
    page = open_page(base_url + "index.html?q=trace")
    panel_ids(page)
    status = page.locator("#filter-status-text")
    total = int(status.inner_text().removesuffix(" matches"))
    assert total > 100  # the list shows the first 100, and says so
    assert page.locator("#search-results li.result").count() == 100
    assert f"The first 100 of {total} matches" in page.locator("#search-results").inner_text()
    assert page.locator("#clear-filters").is_hidden()
    page.select_option("#filter-status", "removed")
    page.wait_for_function("document.querySelectorAll('#search-results li.result').length === 1")
    assert status.inner_text() == f"1 of {total} matches: the filters hide {total - 1}"
    page.select_option("#filter-added", "2.15.0")  # GB0060 came in 2.8.0
    page.wait_for_function("document.querySelector('#search-results p.search-note')")
    note = page.locator("#search-results").inner_text()
    assert "Nothing matches" not in note
    assert f"{total} matches, but the filters hide them all" in note
    assert status.inner_text() == f"0 of {total} matches: the filters hide {total}"
    page.locator("#clear-filters").click()
    page.wait_for_function("document.querySelectorAll('#search-results li.result').length === 100")
    assert status.inner_text() == f"{total} matches"
    assert query(page) == {"q": ["trace"]}
    assert page.locator("#clear-filters").is_hidden()
    assert page.evaluate("document.activeElement.id") == "filter-category"
    page.locator("#search-input").fill("zzqx qqzz")
    page.wait_for_function(
        "document.querySelector('#search-results').innerText.includes('Nothing matches')"
    )


def test_a_long_pasted_log_stays_out_of_the_url(open_page: Any, base_url: str) -> None:
    text = (DATA / "logs" / "multi.log").read_text()
    expected = linked_ids(text)
    page = open_page(base_url + "index.html?category=fundamental")
    page.select_option("#filter-category", "")
    paste(page, text)
    assert panel_ids(page) == expected
    assert len(page.url) < 200 and "q=" not in page.url
    page.locator("#search-results li.result a").first.click()
    page.wait_for_url("**/gb/gb0291.html")
    page.go_back()  # the log comes back from the history entry's state
    page.wait_for_function(
        f"document.querySelectorAll('#search-results li.result').length === {len(expected)}"
    )
    assert panel_ids(page) == expected
    # From another page: Enter with no option chosen opens the index with every match.
    page = open_page(base_url + "gb/gb0001.html")
    paste(page, text)
    page.wait_for_selector(".search-popup [role=option]")
    page.keyboard.press("Enter")
    page.wait_for_url("**/index.html")
    assert panel_ids(page) == expected
    assert "q=" not in page.url


def test_log_shapes_without_an_explanation(open_page: Any, base_url: str) -> None:
    """tests/lookup_shapes.py: every case finds its id first in the browser's search, and one
    of each shape pasted into the box lists it first."""
    page = open_page(base_url + "index.html")
    page.wait_for_function("!!window.gbsiteSearch")
    first = page.evaluate(
        """async (texts) => {
            const data = await window.gbsiteSearch.loadIndex();
            return texts.map(t => (window.gbsiteSearch.lookup(t, data)[0] || {entry: {}}).entry.id);
        }""",
        [text for _, text, _ in lookup_shapes.CASES],
    )
    assert first == [expected for _, _, expected in lookup_shapes.CASES]
    pasted = set()
    page = open_page(base_url + "gb/gb0001.html")
    for shape, text, expected in lookup_shapes.CASES:
        if shape in pasted:
            continue
        if pasted:  # a page as it loads, each time: in the same tab, as a reader comes back
            page.goto(base_url + "gb/gb0001.html")
        pasted.add(shape)
        paste(page, text)
        page.wait_for_selector(".search-popup [role=option]")
        assert page.locator(".search-popup [role=option]").first.get_attribute("data-id") == (
            expected
        ), shape


def test_an_unknown_id_is_named_with_the_newest_release(open_page: Any, base_url: str) -> None:
    """Typing an id the registry lacks says so, and Enter stays (no page to open)."""
    page = open_page(base_url + "index.html")
    page.wait_for_function("!!window.gbsiteSearch")
    newest = page.evaluate("window.gbsiteSearch.loadIndex().then(d => d.newest)")
    assert newest
    highest = page.evaluate(
        "window.gbsiteSearch.loadIndex().then(d => d.entries.map(e => e.id).sort().pop())"
    )
    beyond = f"GB{int(highest[2:]) + 1:04d}" if highest != "GB9999" else None
    for typed in [beyond] if beyond else []:
        page.locator("#search-input").fill(typed)
        page.wait_for_selector("#search-results:not([hidden]) .search-note")
        note = page.locator("#search-results").inner_text()
        assert f"{typed} is not in the registry" in note and newest in note
        assert "may be newer" in note and f"gb/{typed.lower()}.html" in note
        assert "Nothing matches" not in note
        page.keyboard.press("Enter")
        page.wait_for_timeout(300)
        assert page.url.split("?")[0].endswith("/index.html")
    # from another page: the popup says it
    page = open_page(base_url + "gb/gb0001.html")
    page.locator("#search-input").fill("gb9999")
    page.wait_for_selector(".search-popup .search-note")
    assert "GB9999 is not in the registry" in page.locator(".search-popup").inner_text()


def test_a_search_that_runs_out_of_time_says_so(
    open_page: Any, base_url: str, built_site: Project
) -> None:
    script = (built_site.site / "assets" / "search-index.js").read_text()
    raw = json.loads(script.removeprefix("window.GBSITE_SEARCH=").rstrip().removesuffix(";"))
    raw["rules"]["limits"]["seconds"] = 0
    page = open_page(base_url + "index.html")
    page.wait_for_function("!!window.gbsiteSearch")
    text = (DATA / "logs" / "multi.log").read_text()
    [found] = browser_found(page, [text], raw)
    assert found["notes"][0].startswith("stopped after 0 s; the first 0 records were searched")
    assert found["ids"] == linked_ids(text)

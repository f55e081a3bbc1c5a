"""Search and `gbsite lookup` on real torch 2.13.0 logs (tests/data/logs) and typical queries."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import DATA, REPO, Project
from gbsite import registry, search
from gbsite.views import entry_views

LOGS = sorted((DATA / "logs").glob("*.log"))


@pytest.fixture(scope="module")
def entries() -> list[search.SearchEntry]:
    reg = registry.load(REPO / "registry")
    return search.entries_for(reg, entry_views(reg), {})


def ids(matches: list[search.Match]) -> list[str]:
    return [m.entry.id for m in matches]


def linked_ids(text: str) -> list[str]:
    return list(dict.fromkeys(f"GB{n}" for n in re.findall(r"gb/gb(\d{4})\.html", text)))


def test_at_least_five_different_real_graph_breaks() -> None:
    found = {gb_id for log in LOGS for gb_id in linked_ids(log.read_text())}
    assert len(found) >= 5, found


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_real_log_finds_its_entries_first(entries: list[search.SearchEntry], log: Path) -> None:
    text = log.read_text()
    expected = linked_ids(text)
    assert ids(search.lookup(text, entries)) == expected


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_real_log_without_its_links(entries: list[search.SearchEntry], log: Path) -> None:
    """Older PyTorch printed no link: the type, explanation and hints must identify the break."""
    text = log.read_text()
    stripped = re.sub(r"https?://\S+", "", text)
    assert ids(search.lookup(stripped, entries)) == linked_ids(text)


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_real_log_pasted_into_a_one_line_box(entries: list[search.SearchEntry], log: Path) -> None:
    """An <input> drops line breaks; the parser keys on PyTorch's markers, not on lines."""
    text = log.read_text()
    flat = re.sub(r"\s+", " ", re.sub(r"https?://\S+", "", text))
    assert ids(search.lookup(flat, entries)) == linked_ids(text)


def test_log_with_several_breaks_lists_all_in_order(entries: list[search.SearchEntry]) -> None:
    text = (DATA / "logs" / "multi.log").read_text()
    assert ids(search.lookup(text, entries)) == ["GB0291", "GB0059", "GB0170", "GB0109"]


def test_log_of_an_older_release_matches_its_earlier_wording(
    entries: list[search.SearchEntry],
) -> None:
    # torch 2.13.0 printed GB0291's 2.11-2.13 wording, replaced in 2.14.0.
    text = re.sub(r"https?://\S+", "", (DATA / "logs" / "logger-info.log").read_text())
    [match] = search.lookup(text, entries)
    assert match.entry.id == "GB0291"
    assert "earlier wording: 2.11.0 to 2.13.0" in match.why


@pytest.mark.parametrize(
    "query",
    [
        "GB0025",
        "gb0025",
        "0025",
        " GB-0025 ",
        "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0025.html",
        "Graph Break Reason: Call to `torch._dynamo.graph_break()`",
        "Explanation: User-inserted graph break. Message: hello",
        "Call to `torch._dynamo.graph_break()`",
    ],
)
def test_ways_to_name_gb0025(entries: list[search.SearchEntry], query: str) -> None:
    assert ids(search.lookup(query, entries))[0] == "GB0025"


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("data dependent branching", "GB0170"),
        ("Data-dependent branching", "GB0170"),
        ("unittest", "GB0060"),  # a removed entry is still found
        ("Dyanmo only supports mutating", "GB0056"),  # a text upstream rewrote away
        ("Dynamo cache limit exceeded", "GB0039"),  # an earlier type
        ("deepcop", "GB0179"),  # the last word may be a prefix, as you type
        ("how do i fix a generator", "GB0003"),
    ],
)
def test_words(entries: list[search.SearchEntry], query: str, first: str) -> None:
    assert ids(search.lookup(query, entries))[0] == first


def test_unknown_things_find_nothing(entries: list[search.SearchEntry]) -> None:
    assert search.lookup("GB9999", entries) == []
    assert search.lookup("zzqx qqzz", entries) == []
    no_link = (DATA / "logs" / "fullgraph-no-link-item-branch.log").read_text()
    assert linked_ids(no_link) == []


def test_contributor_text_is_searched(entries: list[search.SearchEntry]) -> None:
    extra = [
        search.SearchEntry(
            e.id,
            e.slug,
            e.removed,
            e.categories,
            e.added,
            True,
            e.texts,
            "Use torch.autograd.Function instead of a frobnicator" if e.id == "GB0029" else "",
        )
        for e in entries
    ]
    assert ids(search.lookup("frobnicator", extra)) == ["GB0029"]


def test_search_index_script(project: Project) -> None:
    assert project.run("build").code == 0
    script = (project.site / "assets" / "search-index.js").read_text()
    assert script.startswith("window.GBSITE_SEARCH={")
    data = json.loads(script[len("window.GBSITE_SEARCH=") :].rstrip().rstrip(";"))
    assert len(data["entries"]) == 593
    assert data["releases"][-1] == "2.15.0"
    gb60 = next(row for row in data["entries"] if row[0] == "GB0060")
    assert gb60[1] == 1  # removed
    # Canned hints are left out (the categories carry them), keeping the index small.
    assert "It may be possible to write Dynamo tracing rules" not in script


# ---- the command line ------------------------------------------------------------------------


def test_lookup_a_log_file(project: Project) -> None:
    result = project.run("lookup", str(DATA / "logs" / "multi.log"))
    assert result.code == 0
    assert re.findall(r"^(GB\d{4})  ", result.out, re.M) == ["GB0291", "GB0059", "GB0170", "GB0109"]
    assert "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html" in result.out


def test_lookup_stdin_and_json(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("Graph Break Reason: Data-dependent branching\n"))
    result = project.run("lookup", "--json")
    assert result.code == 0
    [match] = json.loads(result.out)
    assert match["id"] == "GB0170" and match["url"].endswith("/gb/gb0170.html")


def test_lookup_words_and_nothing_found(project: Project) -> None:
    result = project.run("lookup", "--words", "unittest")
    assert result.code == 0 and result.out.startswith("GB0060  ")
    assert "(removed in 2.14.0)" in result.out
    result = project.run("lookup", "--words", "zzqx")
    assert result.code == 1
    assert "no graph break matches" in result.err
    result = project.run("lookup", "nope.log")
    assert result.code == 2 and "nope.log: cannot read" in result.err

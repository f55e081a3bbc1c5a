"""Search and `gbsite lookup` on real torch 2.13.0 logs (tests/data/logs) and typical queries.

What a query finds depends on every text of the registry, so the searches run on the registry
of the HISTORY releases (conftest.py), which no later import changes; the committed registry's
index is checked for what it must hold."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import lookup_shapes
from conftest import DATA, REPO, Project, committed, labels
from gbsite.registry import store as registry
from gbsite.registry.views import entry_views
from gbsite.search import adjacent, index, legacy, logs, rules
from gbsite.search.engine import find, kind_of, lookup
from gbsite.search.model import Match, SearchEntry
from gbsite.search.rules import NOTES
from gbsite.search.words import WEAK

LOGS = sorted((DATA / "logs").glob("*.log"))


@pytest.fixture(scope="module")
def entries(history_registry: Path) -> list[SearchEntry]:
    """The HISTORY registry's entries, with the committed older wordings and the messages that
    lead to a page beside a break (the site's search index has them too)."""
    reg = registry.load(history_registry)
    return index.entries_for(reg, entry_views(reg), {}, committed_aliases())


def committed_aliases() -> dict[str, list[tuple[str, str]]]:
    folder = REPO / "registry"
    return adjacent.merged(
        legacy.aliases(legacy.load(folder / legacy.FILE)),
        adjacent.aliases(adjacent.load(folder / adjacent.FILE)),
    )


def ids(matches: list[Match]) -> list[str]:
    return [m.entry.id for m in matches]


def linked_ids(text: str) -> list[str]:
    return list(dict.fromkeys(f"GB{n}" for n in re.findall(r"gb/gb(\d{4})\.html", text)))


def test_at_least_five_different_real_graph_breaks() -> None:
    found = {gb_id for log in LOGS for gb_id in linked_ids(log.read_text())}
    assert len(found) >= 5, found


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_real_log_finds_its_entries_first(entries: list[SearchEntry], log: Path) -> None:
    text = log.read_text()
    expected = linked_ids(text)
    assert ids(lookup(text, entries)) == expected


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_real_log_without_its_links(entries: list[SearchEntry], log: Path) -> None:
    """Older PyTorch printed no link: the type, explanation and hints must identify the break."""
    text = log.read_text()
    stripped = re.sub(r"https?://\S+", "", text)
    assert ids(lookup(stripped, entries)) == linked_ids(text)


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_real_log_pasted_into_a_one_line_box(entries: list[SearchEntry], log: Path) -> None:
    """An <input> drops line breaks; the parser keys on PyTorch's markers, not on lines."""
    text = log.read_text()
    flat = re.sub(r"\s+", " ", re.sub(r"https?://\S+", "", text))
    assert ids(lookup(flat, entries)) == linked_ids(text)


def test_log_with_several_breaks_lists_all_in_order(entries: list[SearchEntry]) -> None:
    text = (DATA / "logs" / "multi.log").read_text()
    assert ids(lookup(text, entries)) == ["GB0291", "GB0059", "GB0170", "GB0109"]


def test_log_of_an_older_release_matches_its_earlier_wording(
    entries: list[SearchEntry],
) -> None:
    # torch 2.13.0 printed GB0291's 2.11-2.13 wording, replaced in 2.14.0.
    text = re.sub(r"https?://\S+", "", (DATA / "logs" / "logger-info.log").read_text())
    [match] = lookup(text, entries)
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
def test_ways_to_name_gb0025(entries: list[SearchEntry], query: str) -> None:
    assert ids(lookup(query, entries))[0] == "GB0025"


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
        # One word is scored by the fields it is in, not by how short a type holding it is:
        # the torch.Generator class name does not outrank "Attempt to trace generator".
        ("generator", "GB0003"),
    ],
)
def test_words(entries: list[SearchEntry], query: str, first: str) -> None:
    assert ids(lookup(query, entries))[0] == first


@pytest.mark.parametrize("typed", ["GB0059", "gb59", "59", "0059", " gb-059 "])
def test_an_id_in_any_spelling_is_its_entry(entries: list[SearchEntry], typed: str) -> None:
    assert ids(lookup(typed, entries)) == ["GB0059"]


def test_a_query_with_only_weak_matches_says_so(entries: list[SearchEntry]) -> None:
    found = find("generator zzqx", entries)
    assert found.matches and all(m.why == WEAK for m in found.matches)
    assert found.notes == [NOTES["weak"]]
    # A query whose every word is somewhere has no such note.
    assert find("trace generator", entries).notes == []


def test_unknown_things_find_nothing(entries: list[SearchEntry]) -> None:
    assert lookup("GB9999", entries) == []
    assert lookup("zzqx qqzz", entries) == []
    no_link = (DATA / "logs" / "fullgraph-no-link-item-branch.log").read_text()
    assert linked_ids(no_link) == []


def test_contributor_text_is_searched(entries: list[SearchEntry]) -> None:
    extra = [
        SearchEntry(
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
    assert ids(lookup("frobnicator", extra)) == ["GB0029"]


def test_a_field_holding_the_separator_of_the_fields_ranks_as_any_other(
    entries: list[SearchEntry],
) -> None:
    """The words are looked for in one lower-cased text of an entry's fields, joined by a NUL;
    a contributed text holding a NUL itself (as a docs file may) changes no score."""
    note = "Frobnicate\0the Widget first, then call torch.compile"

    def with_info(info: str) -> list[SearchEntry]:
        return [e._replace(has_info=True, info=info if e.id == "GB0029" else "") for e in entries]

    for query in ("widget", "frobnicate widget", "frobnicate the widget"):
        plain = lookup(query, with_info(note.replace("\0", " ")))
        assert ids(plain)[:1] == ["GB0029"], query
        assert lookup(query, with_info(note)) == [
            m._replace(entry=m.entry._replace(info=note)) if m.entry.id == "GB0029" else m
            for m in plain
        ], query


@pytest.mark.slow  # builds the whole site
@pytest.mark.repo_data
def test_search_index_script(project: Project) -> None:
    assert project.run("build").code == 0
    script = (project.site / "assets" / "search-index.js").read_text()
    assert script.startswith("window.GBSITE_SEARCH={")
    data = json.loads(script[len("window.GBSITE_SEARCH=") :].rstrip().rstrip(";"))
    reg = committed()
    assert [row[0] for row in data["entries"]] == list(reg.entries)
    assert data["releases"] == labels()
    # removed in (or nothing), for every id
    assert {row[0]: row[1] for row in data["entries"]} == {
        gb_id: e.removed or 0 for gb_id, e in reg.entries.items()
    }
    assert len(data["info"]) == len(reg.entries)  # contributed text, apart and last
    assert list(data) == ["categories", "releases", "newest", "entries", "info", "rules"]
    entries = index.parse_index_js(script)
    assert [e.id for e in entries] == list(reg.entries)
    assert {e.id: e.removed for e in entries} == {k: e.removed for k, e in reg.entries.items()}
    light = index.parse_index_js(script, info=False)
    assert [e._replace(info="") for e in entries] == light
    # Canned hints are left out (the categories carry them), keeping the index small.
    assert "It may be possible to write Dynamo tracing rules" not in script


# ---- the command line ------------------------------------------------------------------------


def test_lookup_a_log_file(history: Project) -> None:
    project = history
    result = project.run("lookup", str(DATA / "logs" / "multi.log"))
    assert result.code == 0
    assert re.findall(r"^(GB\d{4})  ", result.out, re.M) == ["GB0291", "GB0059", "GB0170", "GB0109"]
    assert "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html" in result.out


def test_lookup_stdin_and_json(history: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project = history
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("Graph Break Reason: Data-dependent branching\n"))
    result = project.run("lookup", "--json")
    assert result.code == 0
    [match] = json.loads(result.out)
    assert match["id"] == "GB0170" and match["url"].endswith("/gb/gb0170.html")


def test_lookup_words_and_nothing_found(history: Project) -> None:
    project = history
    result = project.run("lookup", "--words", "unittest")
    assert result.code == 0 and result.out.startswith("GB0060  ")
    assert "(removed in 2.14.0)" in result.out
    result = project.run("lookup", "--words", "zzqx")
    assert result.code == 1
    assert "no graph break matches" in result.err
    result = project.run("lookup", "nope.log")
    assert result.code == 2 and "nope.log: cannot read" in result.err


# ---- logs without an Explanation line --------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "text", "expected"),
    lookup_shapes.CASES,
    ids=[f"{shape}-{n}" for n, (shape, _, _) in enumerate(lookup_shapes.CASES)],
)
def test_log_shapes_without_an_explanation(
    entries: list[SearchEntry], shape: str, text: str, expected: str
) -> None:
    assert ids(lookup(text, entries))[:1] == [expected]


def test_a_registry_text_outranks_an_older_wording_which_follows_it(
    entries: list[SearchEntry],
) -> None:
    """Today's texts first; the id an older message gives is shown after it, labelled, and
    alone only when no text of today's registry matches."""
    # A traceback frame `in call_function` is not the older message `call_function ...`.
    assert ids(lookup("\n".join(lookup_shapes.SKIPPED) + "\n", entries)) == ["GB0007"]
    both = "Unsupported: call_function GetAttrVariable(x) [] {}\n" + "\n".join(
        lookup_shapes.SKIPPED[2:]
    )
    found = lookup(both, entries)
    assert ids(found)[:2] == ["GB0007", "GB0147"]
    assert "today it is" not in found[0].why and "today it is GB0147" in found[1].why
    alone = lookup("torch._dynamo.exc.Unsupported: call_function GetAttrVariable(x) [] {}", entries)
    assert ids(alone)[:1] == ["GB0147"] and "today it is GB0147" in alone[0].why
    # An older message starts where an exception's message or a Reason does, not after the
    # white space of a traceback line: `in call_function` alone names nothing.
    frame = '  File "/x/torch/_dynamo/variables/base.py", line 9, in call_function\n'
    assert lookup("Graph Break Reason: " + frame, entries) == []
    # A quote: a registry text quoted is listed before an older wording quoted.
    quoted = logs.lookup_quoted(
        "I see call_function BuiltinVariable(print) and then "
        "Failed to trace builtin operator in my run",
        entries,
    )
    assert ids(quoted)[:1] == ["GB0059"]


def test_an_ambiguous_message_shows_each_candidate(history_registry: Path, tmp_path: Path) -> None:
    path = tmp_path / adjacent.FILE
    row = {
        "template": "frobnicated the widget {how}",
        "ids": ["GB0059", "GB0007"],
        "kind": "older",
        "releases": ["2.3.1"],
        "source": "torch/_dynamo/x.py (f)",
        "why": "both sites raise it",
    }
    path.write_text(json.dumps({"messages": [row]}))
    reg = registry.load(history_registry)
    found = lookup(
        "torch._dynamo.exc.Unsupported: frobnicated the widget twice",
        index.entries_for(reg, entry_views(reg), {}, adjacent.aliases(adjacent.load(path))),
    )
    assert ids(found) == ["GB0007", "GB0059"]
    assert all(m.why.endswith("today it is GB0059 or GB0007; one of 2 candidates)") for m in found)


def test_a_row_corrects_the_id_the_mining_gave_the_same_message() -> None:
    """registry/adjacent-messages.json names GB0156 for `call_method {self} ...`, which the
    older wordings' mining gave GB0023: the row alone stands, in search and on the pages."""
    folder = REPO / "registry"
    rows = adjacent.load(folder / adjacent.FILE)
    older = legacy.aliases(legacy.load(folder / legacy.FILE))
    template = "call_method {self} {name} {args} {kwargs}"
    assert any(t == template for t, _ in older["GB0023"])
    both = adjacent.merged(older, adjacent.aliases(rows))
    assert all(t != template for t, _ in both.get("GB0023", []))
    assert [t for t, _ in both["GB0156"]].count(template) == 1
    assert template in adjacent.corrected(rows)


def test_each_message_of_a_printed_counters_dump_is_found(entries: list[SearchEntry]) -> None:
    assert ids(lookup(lookup_shapes.COUNTERS, entries)) == ["GB0059", "GB0170"]


def test_an_older_message_that_cannot_tell_its_ids_apart_lists_each(
    entries: list[SearchEntry],
) -> None:
    found = lookup("torch._dynamo.exc.Unsupported: numpy.<function linspace at 0x7f00>()", entries)
    assert ids(found) == ["GB0293", "GB0294"]
    assert all("one of 2 candidates" in m.why for m in found)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ids": ["GB59"]}, "must be a list of GBxxxx"),
        ({"template": "{a} {b}"}, "too little fixed text"),
        ({"kind": "rumour"}, "kind of"),
        ({"releases": ["latest"]}, "must be a list of releases"),
    ],
)
def test_a_broken_adjacent_messages_file_is_one_error_naming_it(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    row = {
        "template": "torch._dynamo hit config.{x}",
        "ids": ["GB0039"],
        "kind": "warning",
        "releases": ["2.13.0"],
        "source": "torch/_dynamo/convert_frame.py (_compile)",
        "why": "its break",
    }
    path = tmp_path / adjacent.FILE
    path.write_text(json.dumps({"messages": [{**row, **change}]}))
    from gbsite.errors import GbsiteError

    with pytest.raises(GbsiteError) as caught:
        adjacent.load(path)
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)


SHAPES = {
    "header": "torch._dynamo.exc.Unsupported: {}\n",
    "reason": lookup_shapes.REASON + "{}\n",
    "prefixed": "".join(
        f"V1121 19:32:05.571000 10003 torch/_dynamo/symbolic_convert.py:5124] [0/0] "
        f"[__graph_breaks] {line}\n"
        for line in ("Graph break in user code at /a.py:1", lookup_shapes.REASON.strip(), "", "{}")
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_every_graph_break_type_is_found_in_each_shape(
    entries: list[SearchEntry], shape: str
) -> None:
    """A third of the current types (every third one), each alone in the shape: the first
    result has that type (some types belong to several ids)."""
    by_type: dict[str, set[str]] = {}
    for e in entries:
        if not e.removed:
            by_type.setdefault(e.texts[0].gb_type, set()).add(e.id)
    missed = []
    for gb_type, gb_ids in sorted(by_type.items())[::3]:
        if "{" in gb_type or not logs.usable(gb_type):
            continue
        found = ids(lookup(SHAPES[shape].format(gb_type), entries))
        if found[:1] != sorted(gb_ids)[:1] and not set(found[:1]) <= gb_ids:
            missed.append((gb_type, sorted(gb_ids), found[:2]))
    assert missed == []


@pytest.mark.slow  # builds the whole site
def test_lookup_reads_the_built_index_while_it_is_fresh(
    history: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI ranks the built site's index (contributed text included) while it is newer
    than every registry and docs file; before a build and after an edit, the same index built
    from them and kept in the user's cache (search/cache.py)."""
    project = history
    for name in (legacy.FILE, adjacent.FILE):  # the older and adjacent messages CASES use
        shutil.copy(REPO / "registry" / name, project.registry / name)
    from gbsite.docs import files as docs

    cache = tmp_path / "cache"
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(cache))
    doc = project.docs / "gb0029.md"
    doc.write_text(docs.with_block(doc.read_text(), "\nUse a frobnicator instead.\n"))
    result = project.run("lookup", "--words", "frobnicator")  # not built yet: cached
    assert result.code == 0 and result.out.startswith("GB0029  ")
    assert len(list((cache / "lookup").iterdir())) == 1
    shutil.rmtree(cache)
    assert project.run("build").code == 0
    result = project.run("lookup", "--words", "frobnicator")
    assert result.code == 0 and result.out.startswith("GB0029  ")
    for shape, text, expected in lookup_shapes.CASES:
        found = re.findall(r"^(GB\d{4})  ", run_stdin(project, text).out, re.M)
        assert found[:1] == [expected], (shape, text[:80])
    assert not (cache / "lookup").exists()  # the built index was read
    doc.write_text(docs.with_block(doc.read_text(), "\nUse a zqxwidget instead.\n"))
    assert project.run("lookup", "--words", "frobnicator").code == 1  # the index is older
    assert project.run("lookup", "--words", "zqxwidget").out.startswith("GB0029  ")


def run_stdin(project: Project, text: str) -> Any:
    import io

    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        return project.run("lookup")
    finally:
        sys.stdin = saved


# ---- one set of rules for `gbsite lookup` and the browser ------------------------------------

SEARCH_JS = REPO / "templates" / "assets" / "search.js"  # the search box
ENGINE_JS = REPO / "templates" / "assets" / "search-engine.js"  # what it calls to find matches


def index_rules(script: str) -> dict[str, Any]:
    data = json.loads(script.removeprefix("window.GBSITE_SEARCH=").rstrip().removesuffix(";"))
    return dict(data["rules"])


def test_a_changed_rule_changes_the_emitted_index(
    entries: list[SearchEntry], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index carries the rules lookup ranks by; search.js reads them from there."""
    few = [e._replace(categories=()) for e in entries[:3]]
    releases = sorted({e.added for e in few})
    script = index.index_js(few, [], releases)
    assert index_rules(script) == json.loads(json.dumps(rules.as_json()))
    assert index_rules(script)["weights"]["type"] == rules.WEIGHTS["type"]
    monkeypatch.setitem(rules.WEIGHTS, "type", 9.25)
    monkeypatch.setitem(rules.LIMITS, "max_words", 7)
    changed = index_rules(index.index_js(few, [], releases))
    assert changed["weights"]["type"] == 9.25 and changed["limits"]["max_words"] == 7
    assert index.parse_index_js(index.index_js(few, [], releases)) == few  # still read back


@pytest.mark.parametrize("path", [SEARCH_JS, ENGINE_JS], ids=lambda p: p.name)
def test_search_js_keeps_no_rules_of_its_own(path: Path) -> None:
    script = path.read_text()
    sources = [source for source, _ in rules.PATTERNS.values()]
    for source in sources:
        for spelling in (source, json.dumps(source)[1:-1], source.replace("/", r"\/")):
            assert spelling not in script, source
    assert " ".join(sorted(rules.STOP_WORDS)[:4]) not in script
    assert "a an and are" not in script
    weight = r"\b(?:type|old_type|explanation|hints|context|info|threshold)\s*:\s*\d"
    assert re.findall(weight, script) == []
    assert "a-z0-9_" not in script


def js_code(path: Path) -> str:
    """A script without its comments (none of ours has `//` inside a string)."""
    return re.sub(r"(?m)(?:^|\s)//.*$", "", path.read_text())


def test_the_engine_does_not_touch_the_page() -> None:
    """search-engine.js is pure: the page (and the browser's globals) are search.js's."""
    code = js_code(ENGINE_JS)
    page = r"\b(?:document|window|location|history|navigator|sessionStorage|localStorage)\b"
    assert re.findall(page, code) == []
    assert "gbsiteSearchEngine" in code  # what it gives search.js
    assert "document." in js_code(SEARCH_JS)  # the check reads real code


# Engine functions named otherwise than their twins, and why: the compiled rules (Python
# compiles one pattern at a time), the index read from the browser's object rather than bytes,
# and a word's score as a function rather than a class's method.
RENAMED = {"compileRules", "parseIndex", "wordScore"}


def camel(name: str) -> str:
    """A Python name as its JavaScript twin spells it: camelCase, a leading _ dropped."""
    head, *rest = name.lstrip("_").split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def test_each_engine_function_names_its_python_twin() -> None:
    """The table in search-engine.js's header: every function of the engine is in it (or among
    the helpers with no twin), and the Python function each row names exists, with the name
    the JavaScript one is made from. Renaming one side without the other fails here."""
    import importlib

    script = ENGINE_JS.read_text()
    header = script[: script.index("(function (global)")]
    rows = re.findall(r"(?m)^//   ([A-Za-z][\w.]*) +(\w+)\.([\w.]+)", header)
    helpers_line = header[header.index("Helpers with no twin") :]
    helpers = set(re.findall(r"(\w+) \(", helpers_line[helpers_line.index(":") :]))
    defined = set(re.findall(r"(?m)^  function (\w+)\(", script))
    defined |= {
        f"{c}.prototype.{m}" for c, m in re.findall(r"(?m)^  (\w+)\.prototype\.(\w+) =", script)
    }
    assert len(rows) >= 30 and "setOf" in helpers
    assert {js for js, _, _ in rows} | helpers == defined
    for js, module, name in rows:
        twin: Any = importlib.import_module(f"gbsite.search.{module}")
        for attr in name.split("."):
            twin = getattr(twin, attr)  # fails if the Python function was renamed
        assert callable(twin), name
        if js.split(".")[0] not in RENAMED:
            python = ".".join(camel(part) for part in name.split("."))
            assert js.replace(".prototype", "") == python, (js, name)


def test_runtime_expressions_are_the_texts_the_registry_flags(entries: list[SearchEntry]) -> None:
    """search.rules keeps its own copy of the shape registry/derive.py flags as run-time text
    (the browser needs it, and lookup must not import the registry): the same verdict on every
    registry text."""
    from gbsite.registry.derive import is_runtime_text

    values = {
        value
        for e in entries
        for t in e.texts
        for value in (t.gb_type, t.explanation, t.context, *t.hints)
    }
    flagged = {v for v in values if is_runtime_text(v)}
    assert len(flagged) >= 5  # the registry has some: the check compares something
    assert {v for v in values if rules.pattern("runtime_expression").match(v.strip())} == flagged
    assert not any(logs.usable(v) for v in flagged)


def test_the_marks_the_parser_keys_on_are_markers() -> None:
    markers = rules.pattern("markers")
    for name, mark in rules.MARKS.items():
        said = {"explain": "Break Reason 1:\n    Reason:"}.get(name, mark)  # a prefix: as printed
        found = markers.search(f"xx {said} about this graph break yy")
        assert found and found.start() == 3 and found.group().startswith(mark), name


def test_files_named_in_the_search_code_exist() -> None:
    """Its comments and docstrings send a reader to other files: those files are there."""
    sources = [*sorted((REPO / "src" / "gbsite" / "search").glob("*.py")), SEARCH_JS]
    named = {
        (source.name, path)
        for source in sources
        for path in re.findall(
            r"\b(?:src|tests|templates|benchmarks)/[\w./-]*\w", source.read_text()
        )
    }
    assert len(named) >= 5
    assert [(name, p) for name, p in sorted(named) if not (REPO / p).exists()] == []


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("gb0025", "id"),
        (" GB-0025 ", "id"),
        ("https://x/gb/gb0025.html", "log"),
        ("torch._dynamo.exc.Unsupported: Data-dependent branching", "log"),
        ("Graph break in user code", "log"),
        ("data dependent", "words"),
        ("GB00251", "words"),
    ],
)
def test_kind_of_a_query(query: str, kind: str) -> None:
    """`gbsite lookup` loads the contributed text only for words (kind_of)."""
    assert kind_of(query) == kind


# ---- what users paste besides a whole log (issue 33) ------------------------------------------


def pasted_cases(entries: list[SearchEntry]) -> list[tuple[str, str, str]]:
    return lookup_shapes.pasted_shapes(entries)


def test_pasted_shapes_find_their_id_first(entries: list[SearchEntry]) -> None:
    """Each shape (a header in the middle of a pytest line, a one-line repr, text cut short
    with `...`, a type or an explanation quoted in prose, no colon, older log prefixes,
    Markdown that ate underscores and backticks) for ids picked from the registry."""
    cases = pasted_cases(entries)
    assert len({shape for shape, _, _ in cases}) >= 10
    missed = [
        (shape, expected, ids(lookup(text, entries))[:2], text[:80])
        for shape, text, expected in cases
        if ids(lookup(text, entries))[:1] != [expected]
    ]
    assert missed == []


def test_pasted_shapes_say_how_they_matched(entries: list[SearchEntry]) -> None:
    cases = {shape: text for shape, text, _ in pasted_cases(entries)}
    assert "start of the graph-break type" in lookup(cases["cut type"], entries)[0].why
    assert "quotes the graph-break type" in lookup(cases["type in prose"], entries)[0].why
    assert "quotes the explanation" in lookup(cases["explanation in prose"], entries)[0].why
    assert lookup(cases["mid-line"], entries)[0].why == "matches the graph-break type"


@pytest.mark.slow  # whole-project commands, seconds in all
@pytest.mark.parametrize(
    "record_text", ["multi", "logger-info", "data-dependent-if", "deepcopy-tensor"]
)
def test_the_pre_filter_leaves_out_no_match(entries: list[SearchEntry], record_text: str) -> None:
    """Scoring only the pre-filter's candidates finds what scoring every entry finds."""
    text = re.sub(r"https?://\S+", "", (DATA / "logs" / f"{record_text}.log").read_text())
    records = logs.parse_log(text) + [
        r for _, t, _ in pasted_cases(entries)[:22] for r in logs.parse_log(t)
    ]
    assert records
    for record in records:
        # Today's registry texts: the best of every entry, the first of a tie.
        scored = [(logs.score_record(record, e), e.id) for e in entries]
        best = max(scored, key=lambda s: (s[0][0], s[0][2]))
        found = logs._best(record, entries, logs.candidates_for(entries))
        if best[0][0] >= rules.LOG_SCORES["threshold"]:
            assert found and (found[0].entry.id, found[0].score) == (best[1], best[0][0])
        else:
            assert all(m.why.endswith(")") for m in found)  # older wordings only, each noted


def test_a_lookup_that_runs_out_of_time_says_how_far_it_got(entries: list[SearchEntry]) -> None:
    text = (DATA / "logs" / "multi.log").read_text()
    total = len(logs.parse_log(text))
    found = find(text, entries, seconds=0)
    assert found.notes == [f"stopped after 0 s; the first 0 records were searched (of {total})"]
    assert ids(found.matches) == linked_ids(text)  # the links still name their entries
    assert find(text, entries).notes == []


# ---- ids the registry lacks ------------------------------------------------------------------


def unknown_ids(entries: list[SearchEntry]) -> tuple[str, str | None]:
    """An id inside the registry's range it lacks, and one past its highest (if any is)."""
    known = {e.id for e in entries}
    highest = max(known)
    inside = next(f"GB{n:04d}" for n in range(10000) if f"GB{n:04d}" not in known)
    beyond = f"GB{int(highest[2:]) + 1:04d}" if highest != "GB9999" else None
    assert inside < highest
    return inside, beyond


def test_an_unknown_id_says_so(entries: list[SearchEntry]) -> None:
    from gbsite.releases import order

    newest = max(labels_of(entries), key=order)
    inside, beyond = unknown_ids(entries)
    found = find(inside.lower(), entries, newest=newest)
    assert found.matches == []
    [note] = found.notes
    assert f"{inside} is not in the registry" in note and newest in note
    assert note.endswith(f"gb/{inside.lower()}.html") and "newer" not in note
    if beyond:
        [note] = find(f"see https://x/gb/{beyond.lower()}.html", entries, newest=newest).notes
        assert f"{beyond} is not in the registry" in note
        assert f"may be newer than the newest release imported ({newest})" in note


def labels_of(entries: list[SearchEntry]) -> set[str]:
    return {e.added for e in entries}


def test_lookup_of_an_unknown_id(history: Project) -> None:
    from gbsite.releases import order

    reg = registry.load(history.registry)
    newest = max(reg.labels, key=order)
    entries = index.entries_for(reg, entry_views(reg), {})
    inside, beyond = unknown_ids(entries)
    for query in [inside, f"https://x/gb/{inside.lower()}.html"]:
        result = history.run("lookup", "--words", query)
        assert result.code == 1 and result.out == ""
        assert f"{inside} is not in the registry" in result.err and newest in result.err
        site_url = "https://meta-pytorch.github.io/compile-graph-break-site/"
        assert f"{site_url}gb/{inside.lower()}.html" in result.err
    if beyond:
        result = history.run("lookup", "--words", beyond)
        assert result.code == 1 and "may be newer than the newest release imported" in result.err


# ---- alias wordings (old messages mapped to ids, from a data file) ---------------------------


def test_alias_wordings_from_a_data_file(history_registry: Path, tmp_path: Path) -> None:
    """search.legacy: an old message in a data file, with placeholders, finds its id and says
    which releases printed it; a message without an id is left out; a broken file is named."""
    from gbsite.errors import GbsiteError
    from gbsite.search import legacy

    path = DATA / "aliases" / "legacy-messages.json"
    found = legacy.aliases(legacy.load(path))
    [gb_id] = found  # the one mapped message
    reg = registry.load(history_registry)
    entries = index.entries_for(reg, entry_views(reg), {}, found)
    template, note = found[gb_id][0]
    text = "torch._dynamo.exc.Unsupported: " + template.replace("{value}", "x.sum() > 0")
    [match] = lookup(text, entries)[:1]
    assert match.entry.id == gb_id and note in match.why and "torch 2." in note
    assert f"today it is {gb_id}" in match.why
    plain = index.entries_for(reg, entry_views(reg), {})
    # Without the alias, only words find anything: no registry text matches the message.
    assert all(m.score < rules.LOG_SCORES["threshold"] for m in lookup(text, plain))
    assert legacy.load(tmp_path / "none.json") == []
    broken = tmp_path / "broken.json"
    broken.write_text('{"messages": [\n  {"id": "GB0001",}\n]}')
    with pytest.raises(
        GbsiteError, match=r"broken\.json: not the JSON tools/legacy/mine\.py writes"
    ):
        legacy.load(broken)

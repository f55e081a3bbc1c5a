"""Older graph-break messages (torch 2.0 to 2.7, before the registry): the committed data file
registry/legacy-messages.json, `gbsite lookup` finding them in logs of those releases, the
entry pages listing them, and the site's search (the same engine and index) agreeing with
lookup.

The log lines are written here in the shapes those releases print: an uncaught
`torch._dynamo.exc.Unsupported: MESSAGE`, the `Reason: Unsupported: MESSAGE` of
TORCH_LOGS=graph_breaks, glog-prefixed lines, and a message pasted alone.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, Project, committed, make_project
from gbsite.errors import GbsiteError
from gbsite.search import legacy

DATA_FILE = REPO / "registry" / legacy.FILE
CACHE = Path.home() / ".cache" / "gbsite" / "legacy-src"

# One realistic log per family of older wording, and the entry that replaced it (a fact of
# torch's history: which structured break took the old message's place).
FAMILIES = {
    "call_function args": (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 41, in <module>\n'
        "    out = compiled(batch)\n"
        "torch._dynamo.exc.Unsupported: call_function args: TensorVariable() "
        "UserDefinedObjectVariable(Config)\n",
        "GB0055",
    ),
    "data dependent operator": (
        "[2024-01-10 12:01:33,512] [0/0] torch._dynamo.symbolic_convert: [DEBUG] Graph break: "
        "from user code at:\n"
        '  File "model.py", line 17, in forward\n'
        "    n = int(mask.sum())\n"
        "Traceback (most recent call last):\n"
        "torch._dynamo.exc.Unsupported: data dependent operator: aten._local_scalar_dense.default;"
        " to enable, set torch._dynamo.config.capture_scalar_outputs = True\n",
        "GB0033",
    ),
    "skip function": (
        "V0612 09:14:02.118000 140245 torch/_dynamo/symbolic_convert.py:617] [0/0] "
        "[__graph_breaks] Graph break in user code at /app/loss.py:22\n"
        "V0612 09:14:02.118000 140245 torch/_dynamo/symbolic_convert.py:617] [0/0] "
        "[__graph_breaks] Reason: Unsupported: 'skip function isinstance in file "
        "/usr/lib/python3.10/abc.py'\n",
        "GB0007",
    ),
    "generic Unsupported": (
        "torch._dynamo.exc.Unsupported: Unsupported: meta converter nyi with fake tensor "
        "propagation.\n",
        "GB0064",
    ),
}


def data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return loaded


@pytest.fixture
def old_logs(history: Project) -> Project:
    """The HISTORY registry with the committed data file of older messages."""
    shutil.copy(DATA_FILE, history.registry / legacy.FILE)
    return history


@pytest.mark.slow  # whole-project commands, seconds in all
@pytest.mark.parametrize("family", FAMILIES)
def test_lookup_finds_each_family_of_older_message(old_logs: Project, family: str) -> None:
    log, expected = FAMILIES[family]
    log_file = old_logs.root / "old.log"
    log_file.write_text(log)
    result = old_logs.run("lookup", str(log_file))
    assert result.code == 0, result.err
    assert re.findall(r"^(GB\d{4})  ", result.out, re.M) == [expected]
    release = re.search(r"this message is from torch (2\.\d+)", result.out)
    assert release and release.group(1) < "2.8", result.out
    assert f"today it is {expected})" in result.out


def test_a_message_pasted_alone_and_as_json(old_logs: Project) -> None:
    result = old_logs.run("lookup", "--json", "--words", "data dependent operator: aten.nonzero")
    [match] = json.loads(result.out)
    assert match["id"] == "GB0033" and "torch 2.0 to 2.2" in match["why"]


@pytest.mark.slow  # lookup over every entry and older message
def test_a_log_with_new_and_older_breaks_names_both(old_logs: Project) -> None:
    log = (
        "Graph Break Reason: Data-dependent branching\n\n"
        "torch._dynamo.exc.Unsupported: call_function args: TensorVariable()\n"
    )
    (old_logs.root / "mixed.log").write_text(log)
    result = old_logs.run("lookup", str(old_logs.root / "mixed.log"))
    assert re.findall(r"^(GB\d{4})  ", result.out, re.M) == ["GB0170", "GB0055"]


@pytest.mark.slow  # lookup over every entry and older message
def test_words_are_not_taken_for_an_older_message(old_logs: Project) -> None:
    # Words of a message without its fixed text are searched as words, as before.
    result = old_logs.run("lookup", "--json", "--words", "data dependent operator")
    found = json.loads(result.out)
    assert found and not any("this message is from" in m["why"] for m in found)


def test_without_the_data_file_lookup_works_as_before(history: Project) -> None:
    log, _ = FAMILIES["data dependent operator"]
    (history.root / "old.log").write_text(log)
    result = history.run("lookup", str(history.root / "old.log"))
    assert "older message" not in result.out


def test_a_broken_data_file_is_one_line_error(old_logs: Project) -> None:
    path = old_logs.registry / legacy.FILE
    path.write_text('{"messages": [{"template": 3}]}')
    result = old_logs.run("lookup", "--words", "x")
    assert result.code == 2
    assert result.err.strip().endswith("not the JSON tools/legacy/mine.py writes; run it again")
    assert "Traceback" not in result.err
    with pytest.raises(GbsiteError):
        legacy.load(path)


# ---- the data file ---------------------------------------------------------------------------


@pytest.mark.repo_data
def test_data_file_ids_are_registry_ids_and_every_message_has_provenance() -> None:
    reg = committed()
    found = data()
    assert found["messages"], "no older messages"
    for m in found["messages"]:
        assert m["id"] is None or m["id"] in reg.entries, m
        assert (m["id"] is None) == ("reason" in m), m  # unmapped ones say why
        assert m["releases"] and set(m["releases"]) <= set(found["releases"])
        assert {s["release"] for s in m["sites"]} == set(m["releases"])
        for site in m["sites"]:
            assert site["file"].startswith("torch/") and site["line"] > 0 and site["function"]
        assert m["placeholders"] == re.findall(r"\{([^{}]*)\}", m["template"])


def test_period_names_the_minor_releases() -> None:
    assert legacy.LegacyMessage("x {a}", "GB0001", ("2.0.1", "2.1.2", "2.7.1")).period == (
        "torch 2.0 to 2.7"
    )
    assert legacy.LegacyMessage("x {a}", "GB0001", ("2.7.1",)).period == "torch 2.7"


@pytest.mark.slow
@pytest.mark.skipif(not (CACHE / "2.0.1").is_dir(), reason="no mined sources in ~/.cache")
def test_data_file_is_what_the_generator_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    # mine.py imports its sibling modules as a script does: from its own folder.
    monkeypatch.syspath_prepend(REPO / "tools" / "legacy")
    spec = importlib.util.spec_from_file_location("mine", REPO / "tools" / "legacy" / "mine.py")
    assert spec and spec.loader
    mine = importlib.util.module_from_spec(spec)
    sys.modules["mine"] = mine  # dataclasses look their module up
    spec.loader.exec_module(mine)
    releases = [*mine.LEGACY_RELEASES, *mine.LATER_RELEASES]
    if not all((CACHE / r).is_dir() for r in releases):
        pytest.skip("not every release is in the cache")
    built = mine.build(CACHE, REPO / "registry", mine.LEGACY_RELEASES, mine.LATER_RELEASES)
    assert mine.dump(built) == DATA_FILE.read_text(encoding="utf-8")


# ---- the site --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    proj = make_project(tmp_path_factory.mktemp("legacy") / "proj", docs=True)
    shutil.copy(DATA_FILE, proj.registry / legacy.FILE)
    assert proj.run("build").code == 0
    yield proj


@pytest.mark.slow
@pytest.mark.repo_data
def test_entry_page_lists_its_older_messages(site: Project) -> None:
    html = (site.site / "gb" / "gb0033.html").read_text()
    section = html[html.index('id="older-messages"') :]
    section = section[: section.index("</section>")]
    assert "<code>data dependent operator: {cause.func}</code>" in section
    assert "(torch 2.0 to 2.2)" in section
    # A page no older message leads to has no such section.
    mapped = {m["id"] for m in data()["messages"] if m["id"]}
    other = next(gb for gb in committed().entries if gb not in mapped)
    assert 'id="older-messages"' not in (site.site / "gb" / f"{other.lower()}.html").read_text()
    # The site's search has them as wordings of their ids, in the one search index.
    script = (site.site / "assets" / "search-index.js").read_text()
    assert "data dependent operator: {cause.func}" in script


@pytest.mark.browser
@pytest.mark.slow
def test_site_search_finds_older_messages_as_lookup_does(site: Project, open_page: Any) -> None:
    from browser_support import serve_folder

    with serve_folder(site.site, pages=open_page) as url:
        page = open_page(url + "index.html")
        for family, (log, expected) in FAMILIES.items():
            line = next(x for x in log.splitlines() if "Unsupported:" in x)
            page.fill("#search-input", line)
            page.wait_for_selector("#search-results:not([hidden]) li.result")
            ids = page.locator("#search-results li.result").evaluate_all(
                "items => items.map(i => i.dataset.id)"
            )
            assert ids[:1] == [expected], family
            why = page.locator("#search-results li.result .why").first.inner_text()
            assert f"today it is {expected})" in why


def test_a_template_of_one_word_needs_its_placeholders_filled(old_logs: Project) -> None:
    messages = legacy.load(DATA_FILE)
    one_word = next(m for m in messages if len(re.sub(r"\{[^{}]*\}", " ", m.template).split()) == 1)
    word = re.sub(r"\{[^{}]*\}", " ", one_word.template).split()[0]
    typed = old_logs.run("lookup", "--json", "--words", word)  # typed as a search word
    assert "this message is from" not in typed.out
    filled = old_logs.run(
        "lookup", "--json", "--words", f"torch._dynamo.exc.Unsupported: {word} Foo() [Bar()] x"
    )
    assert f"today it is {one_word.id}" in filled.out, filled.out

"""The loops that keep the site alive, played end to end in a copy of the repository (DESIGN.md):
the daily sync (`gbsite import` of PyTorch main, `sync`, `check`, the tests, `build`, as
.github/workflows/sync.yml runs them) and adding a release (`gbsite release add`).

Each copy is the repository's files as git lists them (the committed tree in CI), changed the
way the loop changes it; then the copy's own tests run in it. A new, changed or removed id, or a
new release, must break none of them.

The nested run is the copy's tests that read the data an import or a release changes, but the
browser and torch tests: `-m "repo_data and not browser and not examples"`. tests/data_reads.py
fails any other test that reads it, so the mark is never missing: no test left out can have
changed. It runs once, after the release is added and the daily sync after it has added, changed
and removed ids (pages with examples among them): every kind of change both loops make, a
release PR that must be green as it is opened and the sync that lands after it. Browser tests
read the committed data the same way, and a second Chromium session would double the time. The
nested run skips this module (NESTED in the environment), so nothing recurses.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import NESTED
from gbsite.docs import files as docs
from rehearsal import (
    add_release,
    copy_repository,
    environment,
    free_id,
    import_sync,
    made_up_release,
    newest_snapshot,
    next_day_of_main,
    next_sync,
    ok,
    pages_with_examples,
    registry,
)
from rehearsal import gbsite as run_gbsite

pytestmark = [
    pytest.mark.slow,
    pytest.mark.repo_data,
    pytest.mark.skipif(bool(os.environ.get(NESTED)), reason="a nested run does not nest again"),
]
IN_COPY = {NESTED: "1"}  # commands and tests in the copy: its test_living does not nest again


def gbsite(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A gbsite command in the copy, with the copy's code."""
    return run_gbsite(root, *args, **IN_COPY)


def nested_tests(root: Path, tmp_path: Path) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """Run the copy's tests that read its data (not the browser and torch tests) in the copy;
    the ids of those that failed."""
    where = subprocess.run(
        [sys.executable, "-c", "import gbsite; print(gbsite.__file__)"],
        cwd=root,
        env=environment(root, **IN_COPY),
        capture_output=True,
        text=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(root / "src"), where.stdout + where.stderr
    report = tmp_path / "nested.xml"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-m",
            "repo_data and not browser and not examples",
            "-p",
            "no:cacheprovider",
            "-q",
            f"--basetemp={tmp_path / 'nested'}",
            f"--junitxml={report}",
        ],
        cwd=root,
        env=environment(root, **IN_COPY),
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert report.is_file(), result.stdout[-3000:] + result.stderr[-3000:]
    failed = set()
    for case in ET.parse(report).iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            module = case.get("classname", "").replace(".", "/")
            failed.add(f"{module}.py::{case.get('name')}")
    ran = sum(1 for _ in ET.parse(report).iter("testcase"))
    assert ran >= 20, result.stdout[-3000:]  # the marked tests were found and run
    return failed, result


def test_the_daily_sync_of_pytorch_main(tmp_path: Path) -> None:
    """PyTorch main has one new id, one text changed on a page with examples, and one id gone
    whose page has examples: import, sync, check and build pass, the new id has its page and the
    removed one says so. (The copy's tests run after such a sync in test_adding_a_release.)"""
    root = copy_repository(tmp_path / "repo")
    reg = registry(root)
    main = next_sync(reg)
    data = newest_snapshot(root, reg)
    new = free_id(reg, data)
    changed, *_, removed = pages_with_examples(root, data)
    data[new] = [
        {"Gb_type": "A break new on main", "Context": "", "Explanation": "New.", "Hints": []}
    ]
    data[changed][0]["Explanation"] = str(data[changed][0]["Explanation"]) + " Now clearer."
    del data[removed]
    source = tmp_path / "graph_break_registry.json"
    source.write_text(json.dumps(data, indent=2))
    page = root / "docs" / "gb" / f"{changed.lower()}.md"
    block = docs.read(page).block

    out = ok(gbsite(root, "import", str(source), "--label", main, "--verbose"))
    assert f"new: {new}" in out and f"changed: {changed}" in out and f"removed: {removed}" in out
    assert (root / "registry" / "snapshots" / f"{main}.json.gz").is_file()
    ok(gbsite(root, "sync"))
    ok(gbsite(root, "check"))
    assert docs.read(page).block == block  # the contributed text, byte for byte
    assert "Now clearer." in page.read_text()
    ok(gbsite(root, "build"))
    site = root / "site" / "gb"
    assert "A break new on main" in (site / f"{new.lower()}.html").read_text()
    assert f"Removed in PyTorch {main}." in (site / f"{removed.lower()}.html").read_text()
    assert "Now clearer." in (site / f"{changed.lower()}.html").read_text()


def test_adding_a_release(tmp_path: Path) -> None:
    """`gbsite release add` of a made-up release (the newest snapshot, one id more, one text
    changed), then a daily sync's snapshot of main that adds, changes and removes ids: the copy
    checks, its tests that read the data pass before CI has recorded any outcome of the new
    release, it builds, and its pages with examples say they have not been run with the new
    release yet (pending, for CI to fill)."""
    root = copy_repository(tmp_path / "repo")
    made = made_up_release(root, tmp_path)
    release, new = made.name, made.new
    toml = (root / "gbsite.toml").read_text()

    out = add_release(root, made, **IN_COPY)  # and check passes
    assert out.startswith(f"release add {release}: registry: ")
    edited = (root / "gbsite.toml").read_text()
    assert edited.replace(f', "{release}"]', "]") == toml  # one release more, nothing else
    coverage = ok(gbsite(root, "coverage", "--format", "json"))
    found = json.loads(coverage)
    assert found["release"] == release
    # Nothing run with it yet: pending where pages have examples, never "verified 0 / none".
    assert found["counts"]["pending"] > 0 and found["counts"]["verified"] == 0
    assert next(e["status"] for e in found["ids"] if e["id"] == new) == "none"
    recorded = ok(gbsite(root, "check", "--record"))
    # The release, after any other listed release CI has not recorded yet ("2.16.0, 2.17.0").
    assert re.search(rf"not run yet with torch [\d., ]*\b{re.escape(release)}:", recorded), recorded
    # The next day's sync of main, as the daily sync has.
    sync = next_day_of_main(root, made)
    label, removed = sync.label, sync.removed
    out = import_sync(root, sync, **IN_COPY)  # then sync and check pass
    assert f"new: {sync.on_main}" in out and f"removed: {removed}" in out

    failed, result = nested_tests(root, tmp_path)
    ok(gbsite(root, "build"))
    shown = str(made.data[new][0]["Gb_type"])  # what the made-up release calls its new id
    assert shown in (root / "site" / "gb" / f"{new.lower()}.html").read_text()
    assert (
        f"Removed in PyTorch {label}."
        in (root / "site" / "gb" / f"{removed.lower()}.html").read_text()
    )
    assert not failed, result.stdout[-5000:]
    html = (root / "site" / "gb" / "gb0003.html").read_text()
    assert f"{release} not run" in html  # the example's line of outcomes

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

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import date, timedelta
from pathlib import Path

import pytest

from conftest import NESTED, REPO, committed, example_releases, labels
from gbsite import releases
from gbsite.docs import files as docs

pytestmark = [
    pytest.mark.slow,
    pytest.mark.repo_data,
    pytest.mark.skipif(bool(os.environ.get(NESTED)), reason="a nested run does not nest again"),
]


def next_release() -> str:
    """A release newer than any imported or listed for the examples: the minor after the newest
    (once a real 2.16.0 is added, the made-up one is 2.17.0)."""
    known = [v for label in [*labels(), *example_releases()] if (v := releases.version(label))]
    major, minor = max(known)[:2]
    return f"{major}.{minor + 1}.0"


def next_sync() -> str:
    """A label of main dated after today and after every dated snapshot imported: one no daily
    sync has taken yet."""
    dated = [date(*d) for label in labels() if (d := releases.date(label)) is not None]
    return f"main@{max([date.today(), *dated]) + timedelta(days=1)}"


# What lies beside the project's files and is no part of it.
NOT_COPIED = (".git", ".venv", "site", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")


def copy_repository(target: Path) -> Path:
    """The repository's files (git's list: tracked ones, and new ones git does not ignore) in
    `target`; without git, its folder minus what is not the project's."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
    )
    if listed.returncode == 0:
        for name in listed.stdout.decode().split("\0"):
            source = REPO / name
            if name and source.is_file():  # a tracked file deleted in the working tree is gone
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
    else:
        shutil.copytree(
            REPO,
            target,
            ignore=lambda folder, names: [
                n for n in names if n.startswith(NOT_COPIED) or n.endswith(".egg-info")
            ],
        )
    return target


def gbsite(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A gbsite command in the copy, with the copy's code."""
    return subprocess.run(
        [sys.executable, "-m", "gbsite", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=environment(root),
        timeout=600,
    )


def environment(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(root / "src"), NESTED: "1"}


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def newest_snapshot(root: Path) -> dict[str, list[dict[str, object]]]:
    path = root / "registry" / "snapshots" / f"{labels()[-1]}.json.gz"
    data: dict[str, list[dict[str, object]]] = json.loads(gzip.decompress(path.read_bytes()))
    return data


def free_id(data: dict[str, object], *, after: str = "GB0000") -> str:
    """The first id after `after` that no snapshot has had (not the highest free one, which the
    tests use as an id the registry lacks)."""
    known = set(committed().entries) | set(data)
    start = int(after[2:]) + 1
    return next(f"GB{n:04d}" for n in range(start, 9999) if f"GB{n:04d}" not in known)


def pages_with_examples(root: Path, data: dict[str, object]) -> list[str]:
    """Current ids whose page has contributed text, by id: an import must keep it."""
    return [
        gb_id
        for gb_id in sorted(data)
        if docs.read(root / "docs" / "gb" / f"{gb_id.lower()}.md").has_content
    ]


def nested_tests(root: Path, tmp_path: Path) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """Run the copy's tests that read its data (not the browser and torch tests) in the copy;
    the ids of those that failed."""
    where = subprocess.run(
        [sys.executable, "-c", "import gbsite; print(gbsite.__file__)"],
        cwd=root,
        env=environment(root),
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
        env=environment(root),
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
    main = next_sync()
    root = copy_repository(tmp_path / "repo")
    data = newest_snapshot(root)
    new = free_id(data)
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
    release = next_release()
    root = copy_repository(tmp_path / "repo")
    data = newest_snapshot(root)
    new = free_id(data)
    changed = next(iter(data))
    data[new] = [
        {"Gb_type": "A break new in this release", "Context": "", "Explanation": "", "Hints": []}
    ]
    data[changed][0]["Explanation"] = str(data[changed][0]["Explanation"]) + " Reworded."
    source = tmp_path / f"torch-{release}.json"
    source.write_text(json.dumps(data, indent=2))
    toml = (root / "gbsite.toml").read_text()

    out = ok(gbsite(root, "release", "add", release, str(source)))
    assert out.startswith(f"release add {release}: registry: ")
    edited = (root / "gbsite.toml").read_text()
    assert edited.replace(f', "{release}"]', "]") == toml  # one release more, nothing else
    ok(gbsite(root, "check"))
    coverage = ok(gbsite(root, "coverage", "--format", "json"))
    found = json.loads(coverage)
    assert found["release"] == release
    # Nothing run with it yet: pending where pages have examples, never "verified 0 / none".
    assert found["counts"]["pending"] > 0 and found["counts"]["verified"] == 0
    assert next(e["status"] for e in found["ids"] if e["id"] == new) == "none"
    recorded = ok(gbsite(root, "check", "--record"))
    # The release, after any other listed release CI has not recorded yet ("2.16.0, 2.17.0").
    assert re.search(rf"not run yet with torch [\d., ]*\b{re.escape(release)}:", recorded), recorded
    # The next day's sync of main: that text changed again, an id new on main, a text changed
    # on a page with examples and an id gone whose page has examples, as the daily sync has.
    data[changed][0]["Explanation"] = str(data[changed][0]["Explanation"]) + " Again."
    reworded, *_, removed = pages_with_examples(root, data)
    on_main = free_id(data, after=new)
    data[on_main] = [{"Gb_type": "New on main", "Context": "", "Explanation": "", "Hints": []}]
    data[reworded][0]["Explanation"] = str(data[reworded][0]["Explanation"]) + " Clearer."
    del data[removed]
    source.write_text(json.dumps(data, indent=2))
    label = ok(gbsite(root, "ci", "sync-label", "--date", next_sync().split("@")[1])).strip()
    out = ok(gbsite(root, "import", str(source), "--label", label, "--verbose"))
    assert f"new: {on_main}" in out and f"removed: {removed}" in out
    ok(gbsite(root, "sync"))
    ok(gbsite(root, "check"))

    failed, result = nested_tests(root, tmp_path)
    ok(gbsite(root, "build"))
    assert (
        "A break new in this release" in (root / "site" / "gb" / f"{new.lower()}.html").read_text()
    )
    assert (
        f"Removed in PyTorch {label}."
        in (root / "site" / "gb" / f"{removed.lower()}.html").read_text()
    )
    assert not failed, result.stdout[-5000:]
    html = (root / "site" / "gb" / "gb0003.html").read_text()
    assert f"{release} not run" in html  # the example's line of outcomes

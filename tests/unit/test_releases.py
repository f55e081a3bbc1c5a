"""releases.py, the one home of release order: labels sort by version, then dated snapshots of a
branch (main@DATE) after every release and by date; the registry label an example release is
judged with; whether an id is in an imported release; the release a build counts for. And no
other module of src/ has a copy of any of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gbsite import releases
from gbsite.registry.model import Entry

SRC = Path(releases.__file__).resolve().parent


def test_a_dated_snapshot_sorts_after_every_release_and_by_date() -> None:
    labels = ["main@2026-11-21", "2.16.0", "main@2026-02-01", "2.9.0", "2.16.0rc1", "99.0.0"]
    assert sorted(labels, key=releases.order) == [
        "2.9.0",  # a number sort, not a string sort ("2.16.0" < "2.9.0")
        "2.16.0rc1",
        "2.16.0",
        "99.0.0",
        "main@2026-02-01",
        "main@2026-11-21",
    ]
    # by date, not by the characters: a later month with a smaller day
    assert releases.order("main@2026-11-21") > releases.order("main@2026-09-30")
    assert releases.order("main@2027-01-01") > releases.order("main@2026-12-31")


def test_pre_releases_come_before_their_release_and_builds_count_as_it() -> None:
    chain = ["2.16.0a1", "2.16.0a2", "2.16.0b1", "2.16.0rc1", "2.16.0rc2", "2.16.0", "2.16.1"]
    assert sorted(reversed(chain), key=releases.order) == chain
    assert releases.order("2.16.0+cpu") == releases.order("2.16.0")
    assert releases.order("2.16") == releases.order("2.16.0")


def test_anything_else_sorts_last() -> None:
    assert releases.order("nightly") > releases.order("main@9999-12-31")
    assert releases.version("main@2026-11-21") is None
    assert releases.date("main@2026-11-21") == (2026, 11, 21)
    assert releases.date("main@2026-11") is None
    assert releases.version("2.16.x") is None


def test_release_of_a_build() -> None:
    assert releases.release_of("2.13.0+cpu") == "2.13.0"
    assert releases.release_of("2.15.0+cu132") == "2.15.0"
    assert releases.release_of("2.15.0") == "2.15.0"


def test_registry_label_is_the_newest_of_the_minor_not_newer() -> None:
    labels = ["2.13.0", "2.14.0", "2.15.0rc1", "2.15.0", "main@2026-11-21"]
    assert releases.registry_label("2.14.1", labels) == "2.14.0"
    assert releases.registry_label("2.15.2", labels) == "2.15.0"
    assert releases.registry_label("2.16.0", labels) is None  # main@ stands for no release
    assert releases.registry_label("2.12.0", labels) is None
    assert releases.registry_labels(["2.13.0", "2.14.1", "2.16.0"], labels) == {
        "2.13.0": "2.13.0",
        "2.14.1": "2.14.0",
    }


def test_in_release_follows_the_import_order() -> None:
    labels = ["2.13.0", "2.14.0", "2.15.0", "main@2026-11-21"]
    added_later = Entry("GB0001", "2.14.0", None, [])
    removed = Entry("GB0002", "2.13.0", "2.15.0", [])  # gone from 2.15.0 on
    assert [releases.in_release(added_later, labels, label) for label in labels] == [
        False,
        True,
        True,
        True,
    ]
    assert [releases.in_release(removed, labels, label) for label in labels] == [
        True,
        True,
        False,
        False,
    ]
    with pytest.raises(ValueError):
        releases.in_release(removed, labels, "2.16.0")  # not imported: a caller's mistake


# What a copy of the ordering looks like: parsing a release's parts into numbers, a sort key of
# its own, or cutting the build (+cpu) or the date (@) off a label by hand.
COPIES = {
    "numbers from a release": re.compile(r"tuple\(\s*int\(|map\(\s*int\s*,"),
    "a sort key of releases": re.compile(r"\b_?(release|version|label)_key\b|def _version\("),
    "a label cut by hand": re.compile(r"""(split|partition)\(\s*["'][+@]["']"""),
}


def test_no_module_but_releases_py_orders_releases() -> None:
    found = [
        f"{path.relative_to(SRC.parent)}:{n}: {what}: {line.strip()}"
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "releases.py" or path.parent != SRC
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for what, pattern in COPIES.items()
        if pattern.search(line)
    ]
    assert found == [], "use gbsite.releases instead:\n" + "\n".join(found)


def test_the_copy_finder_finds_copies() -> None:
    copies = [
        'key=lambda m: tuple(int(p) for p in m.split("."))',
        "def release_key(label: str) -> tuple[int, ...]:",
        'torch = res.torch.split("+")[0]',
        'branch, day = label.split("@")',
    ]
    for text in copies:
        assert any(p.search(text) for p in COPIES.values()), text

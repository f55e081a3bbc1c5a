"""A broken registry is reported as `path:line: message`, exit 2, and nothing is written."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import Project, item


@pytest.fixture
def small(empty_project: Project) -> Project:
    """Two imports of a three-id registry: lifecycle, history and a removed id included."""
    p = empty_project
    v1 = p.write_upstream(
        "v1.json",
        {"GB0001": [item("a")], "GB0002": [item("b")], "GB0003": [item("c", hints=["x\n", "y"])]},
    )
    v2 = p.write_upstream(
        "v2.json", {"GB0001": [item("a2"), item("a")], "GB0003": [item("c", hints=["x\n", "y"])]}
    )
    assert p.run("import", str(v1), "--label", "1.0.0").code == 0
    assert p.run("import", str(v2), "--label", "1.1.0").code == 0
    (p.root / "v1.json").unlink()
    (p.root / "v2.json").unlink()
    return p


def edit(path: str, old: str, new: str, count: int = 1) -> Callable[[Project], None]:
    def apply(p: Project) -> None:
        file = p.registry / path
        text = file.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {path}"
        file.write_text(text.replace(old, new, count), encoding="utf-8")

    return apply


def write(path: str, data: bytes) -> Callable[[Project], None]:
    def apply(p: Project) -> None:
        (p.registry / path).write_bytes(data)

    return apply


def delete(path: str) -> Callable[[Project], None]:
    def apply(p: Project) -> None:
        (p.registry / path).unlink()

    return apply


@dataclass
class Case:
    name: str
    damage: Callable[[Project], None]
    where: str  # expected "path:line" (path relative to registry/)
    message: str  # expected part of the message


CASES = [
    Case(
        "yaml syntax",
        edit("gb/GB0001.yaml", "added: 1.0.0", "added: [1.0.0"),
        "gb/GB0001.yaml:4",
        "invalid YAML: did not find expected ',' or ']' "
        "(while parsing a flow sequence started at line 3)",
    ),
    Case(
        "top level not a mapping",
        write("gb/GB0002.yaml", b"- just\n- a list\n"),
        "gb/GB0002.yaml:1",
        "the file must be a mapping, not a list",
    ),
    Case(
        "empty file",
        write("gb/GB0002.yaml", b""),
        "gb/GB0002.yaml",
        "the file must be a mapping, not nothing",
    ),
    Case(
        "missing field",
        edit("gb/GB0002.yaml", "removed: 1.1.0\n", ""),
        "gb/GB0002.yaml:2",
        "the file is missing the field 'removed'",
    ),
    Case(
        "unknown field",
        edit("gb/GB0001.yaml", "  context: C\n", "  contxt: C\n"),
        "gb/GB0001.yaml:7",
        "unknown field 'contxt' in history[0]",
    ),
    Case(
        "duplicate key",
        edit("gb/GB0001.yaml", "  context: C\n", "  context: C\n  context: D\n"),
        "gb/GB0001.yaml:8",
        "duplicate key 'context'",
    ),
    Case(
        "number instead of string",
        edit("gb/GB0001.yaml", "explanation: E", "explanation: 12"),
        "gb/GB0001.yaml:8",
        "history[0].explanation must be a string, not a number; quote it",
    ),
    Case(
        "null instead of string",
        edit("gb/GB0001.yaml", "  context: C\n", "  context:\n"),
        "gb/GB0001.yaml:7",
        "must be a string, not nothing (null); write '' for an empty text",
    ),
    Case(
        "hints not a list",
        edit("gb/GB0002.yaml", "  hints:\n  - H\n", "  hints: H\n"),
        "gb/GB0002.yaml:9",
        "history[0].hints must be a list of strings, not a string",
    ),
    Case(
        "hint not a string",
        edit("gb/GB0002.yaml", "  - H\n", "  - {a: 1}\n"),
        "gb/GB0002.yaml:10",
        "history[0].hints[0] must be a string, not a mapping",
    ),
    Case(
        "bad id",
        edit("gb/GB0002.yaml", "id: GB0002", "id: ../../etc"),
        "gb/GB0002.yaml:2",
        "id '../../etc' is not valid",
    ),
    Case(
        "id does not match file",
        edit("gb/GB0002.yaml", "id: GB0002", "id: GB0009"),
        "gb/GB0002.yaml:2",
        "id 'GB0009' does not match the file name GB0002.yaml",
    ),
    Case(
        "duplicate id",
        edit("gb/GB0002.yaml", "id: GB0002", "id: GB0001"),
        "gb/GB0002.yaml:2",
        "does not match the file name GB0002.yaml (duplicate: GB0001.yaml",
    ),
    Case(
        "badly named file",
        write("gb/gb0004.yaml", b"id: GB0004\n"),
        "gb/gb0004.yaml",
        "unexpected file; entry files are named like GB0025.yaml",
    ),
    Case(
        "unknown release label",
        edit("gb/GB0003.yaml", "added: 1.0.0", "added: 9.9.9"),
        "gb/GB0003.yaml:3",
        "added '9.9.9' is not an imported source",
    ),
    Case(
        "release label as float",
        edit("gb/GB0003.yaml", "added: 1.0.0", "added: 1.0"),
        "gb/GB0003.yaml:3",
        "added must be a string, not a number; quote it",
    ),
    Case(
        "removed before added",
        edit("gb/GB0002.yaml", "removed: 1.1.0", "removed: 1.0.0"),
        "gb/GB0002.yaml:4",
        "removed '1.0.0' is not after added '1.0.0'",
    ),
    Case(
        "empty history",
        edit(
            "gb/GB0002.yaml",
            "history:\n- gb_type: b\n  context: C\n  explanation: E\n  hints:\n"
            "  - H\n  current_since: 1.0.0\n",
            "history: []\n",
        ),
        "gb/GB0002.yaml:5",
        "history must be a non-empty list",
    ),
    Case(
        "current text without current_since",
        edit("gb/GB0003.yaml", "current_since: 1.0.0", "current_since: null"),
        "gb/GB0003.yaml:13",
        "the current text (first history item) needs current_since",
    ),
    Case(
        "invalid utf-8",
        write("gb/GB0002.yaml", b"id: GB0002\nadded: \xff\n"),
        "gb/GB0002.yaml:2",
        "invalid UTF-8 (byte 0xff)",
    ),
    Case(
        "byte order mark",
        write("gb/GB0002.yaml", b"\xef\xbb\xbfid: GB0002\n"),
        "gb/GB0002.yaml:1",
        "byte order mark",
    ),
    Case(
        "yaml tag",
        edit("gb/GB0001.yaml", "explanation: E", "explanation: !!python/name:os.system"),
        "gb/GB0001.yaml:8",
        "invalid YAML",
    ),
    Case(
        "two documents",
        edit("gb/GB0001.yaml", "id: GB0001", "id: GB0001\n---\nid: GB0001"),
        "gb/GB0001.yaml:3",
        "invalid YAML",
    ),
    Case(
        "deleted entry file",
        delete("gb/GB0003.yaml"),
        "sources.yaml:8",
        "newest source '1.1.0' has 2 ids and 3 texts",
    ),
    Case(
        "duplicate source label",
        edit("sources.yaml", "label: 1.1.0", "label: 1.0.0"),
        "sources.yaml:8",
        "source '1.0.0' is listed twice",
    ),
    Case(
        "bad sha256",
        edit("sources.yaml", "sha256: ", "sha256: xyz", 1),
        "sources.yaml:5",
        "is not valid (expected 64 lower-case hex digits)",
    ),
    Case(
        "negative count",
        edit("sources.yaml", "entries: 3", "entries: -3"),
        "sources.yaml:6",
        "entries must be a whole number >= 0, not -3",
    ),
    Case(
        "category without texts",
        edit(
            "categories.yaml",
            "  texts:\n  - This is likely",
            "  texts: []\n  other:\n  - This is likely",
        ),
        "categories.yaml:19",
        "texts must be a non-empty list of strings",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_broken_registry(small: Project, case: Case) -> None:
    case.damage(small)
    new = small.root / "v3.json"
    new.write_text('{"GB0001": [{"Gb_type": "z", "Context": "", "Explanation": "", "Hints": []}]}')
    before = small.snapshot()

    for args in (("import", str(new), "--label", "2.0.0"), ("export-json",)):
        result = small.run(*args)
        assert result.code == 2, (args, result.out)
        assert "Traceback" not in result.err
        lines = result.err.splitlines()
        expected_where = str(Path("registry") / case.where)
        matching = [ln for ln in lines if case.message in ln]
        assert matching, f"{case.message!r} not in:\n{result.err}"
        located = matching[0].split(": ", 1)[0]
        assert located.endswith(expected_where), f"{located!r} != {expected_where!r}"
        # Every line is a one-line `path[:line]: message` report.
        assert all(re.match(r"\S+?(:\d+)?: ", ln) for ln in lines), result.err
    assert small.snapshot() == before  # nothing written, nothing lost


def test_case_count() -> None:
    assert len(CASES) >= 15


def test_every_problem_is_reported_not_just_the_first(small: Project) -> None:
    edit("gb/GB0001.yaml", "explanation: E", "explanation: 1")(small)
    edit("gb/GB0003.yaml", "added: 1.0.0", "added: 7.0.0")(small)
    result = small.run("export-json")
    assert result.code == 2
    assert "GB0001.yaml:8" in result.err
    assert "GB0003.yaml:3" in result.err


def test_missing_registry_folder(empty_project: Project) -> None:
    (empty_project.registry / "categories.yaml").unlink()
    empty_project.registry.rmdir()
    result = empty_project.run("export-json")
    assert result.code == 2
    assert "no registry here; create it with `gbsite import`" in result.err


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b'{"GB0001": [', "invalid JSON"),
        (b"[1, 2]", "expected a JSON object keyed by graph-break id"),
        (
            b'{"../x": [{"Gb_type": "", "Context": "", "Explanation": "", "Hints": []}]}',
            "../x: not a graph-break id",
        ),
        (b'{"GB0001": []}', "GB0001: expected a non-empty list of items"),
        (b'{"GB0001": [{"Gb_type": ""}]}', "item 0 must have exactly the keys"),
        (
            b'{"GB0001": [{"Gb_type": 1, "Context": "", "Explanation": "", "Hints": []}]}',
            "Gb_type, Context and Explanation must be strings",
        ),
        (
            b'{"GB0001": [{"Gb_type": "", "Context": "", "Explanation": "", "Hints": "h"}]}',
            "Hints must be a list of strings",
        ),
        (b'{"GB0001": \xff}', "invalid UTF-8"),
        (
            b'{"GB0001": [{"Gb_type": "a", "Context": "", "Explanation": "", "Hints": []}],\n'
            b' "GB0001": [{"Gb_type": "b", "Context": "", "Explanation": "", "Hints": []}]}',
            "GB0001 appears twice",
        ),
        (b"[" * 100_000, "nested too deeply"),
        (
            b'{"GB0001": [{"Gb_type": "\\udc80", "Context": "", "Explanation": "", "Hints": []}]}',
            "lone surrogate",
        ),
    ],
)
def test_bad_upstream_json(small: Project, payload: bytes, message: str) -> None:
    source = small.root / "bad.json"
    source.write_bytes(payload)
    before = small.snapshot()
    result = small.run("import", str(source), "--label", "3.0.0")
    assert result.code == 2
    assert message in result.err
    assert result.err.startswith("bad.json:") or "bad.json:" in result.err
    assert small.snapshot() == before

"""Adopting docs files of the previous site: every format it wrote, and hand edits in them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import DATA, Project
from gbsite.docs import files as docs

FIXTURES = sorted(p for p in (DATA / "legacy").glob("*.md") if p.name != "README.md")
MARKER_ERRORS = {
    "duplicate-markers": "second ADDITIONAL INFORMATION START marker",
    "inverted-markers": "END marker comes before the START marker",
    "missing-end-marker": "START marker without an END marker",
}


def test_fixture_corpus_is_complete() -> None:
    assert len(FIXTURES) >= 20


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.stem for f in FIXTURES])
def test_previous_site_file(project: Project, fixture: Path) -> None:
    data = fixture.read_bytes()
    gb_id = re.search(rb"^# (GB\d{4})", data, re.M).group(1).decode()  # type: ignore[union-attr]
    path = project.docs / f"{gb_id.lower()}.md"
    path.write_bytes(data)
    outside = fixture.with_suffix(".outside")
    before = project.snapshot()
    result = project.run("sync")

    if fixture.stem in MARKER_ERRORS:
        assert result.code == 2
        assert MARKER_ERRORS[fixture.stem] in result.err
        assert project.snapshot() == before
    elif outside.exists():
        # Hand-written text outside the block: refused at its first line, nothing written.
        assert result.code == 2, result.out
        first = outside.read_text(encoding="utf-8").splitlines()[0].rstrip()
        line = next(i for i, t in enumerate(data.decode().split("\n"), 1) if t.rstrip() == first)
        assert f"{gb_id.lower()}.md:{line}: text outside the ADDITIONAL INFORMATION block" in (
            result.err
        )
        assert repr(first) in result.err
        assert project.snapshot() == before
        assert project.run("check").code == 1
    else:
        assert result.code == 0, result.err
        block = docs.read(path).block
        expected = fixture.with_suffix(".block").read_bytes().decode("utf-8")
        # The expected files leave out the line breaks right after START and before END.
        trimmed = re.sub(r"\r?\n$", "", re.sub(r"^\r?\n", "", block, count=1), count=1)
        assert trimmed == expected
        if fixture.stem not in ("v0-no-markers", "v0-js-front-matter", "v0-no-markers-addinfo"):
            assert block.encode() in data  # kept byte for byte, line endings included
        assert project.run("check").code == 0

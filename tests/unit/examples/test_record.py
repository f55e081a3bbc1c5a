"""record: reading and writing docs/verified-examples.yaml, merging new outcomes, and the
one-line errors (with their line) for a record that is not one."""

from __future__ import annotations

from pathlib import Path

import pytest

from gbsite.errors import GbsiteError
from gbsite.examples import record
from gbsite.examples.record import Record, Row
from gbsite.examples.vocabulary import Did, Outcome

SHA_A = "a" * 64
SHA_B = "b" * 64


def test_write_then_read_gives_the_same_record(tmp_path: Path) -> None:
    path = tmp_path / "verified-examples.yaml"
    rec = Record(
        {
            ("GB0003", SHA_A): Row("GB0003", "gb-repro", 0, SHA_A, {"2.13.0": record.BREAKS}),
            ("GB0003", SHA_B): Row("GB0003", "gb-fix", 0, SHA_B, {"2.13.0": record.ONCE}),
        }
    )
    assert record.write(path, rec) is True
    assert record.read(path) == rec
    assert record.write(path, record.read(path)) is False  # nothing changed, nothing written


def test_outcomes_are_written_in_release_order(tmp_path: Path) -> None:
    path = tmp_path / "verified-examples.yaml"
    other = record.other_break(["GB0007"])
    outcomes = {"2.15.0": record.NO_BREAK, "2.9.0": record.BREAKS, "2.13.0": other}
    record.write(path, Record({("GB0003", SHA_A): Row("GB0003", "gb-repro", 0, SHA_A, outcomes)}))
    text = path.read_text()
    assert text.index("2.9.0:") < text.index("2.13.0:") < text.index("2.15.0:")
    assert "    2.13.0: breaks GB0007\n    2.15.0: no-break\n" in text  # the outcomes' text
    assert record.read(path).outcome(("GB0003", SHA_A), "2.13.0") == other


def test_a_missing_record_is_empty(tmp_path: Path) -> None:
    assert record.read(tmp_path / "none.yaml") == record.EMPTY


def test_updated_merges_new_outcomes_into_old_ones() -> None:
    old = Record(
        {
            ("GB0003", SHA_A): Row("GB0003", "gb-repro", 0, SHA_A, {"2.13.0": record.BREAKS}),
            ("GB0004", SHA_B): Row("GB0004", "gb-fix", 0, SHA_B, {"2.13.0": record.RUNS}),
        }
    )
    current = {
        ("GB0003", SHA_A): Row("GB0003", "gb-repro", 7, SHA_A),
        ("GB0005", SHA_A): Row("GB0005", "gb-fix", 9, SHA_A),  # a new block, not run yet
    }
    runs = {"2.15.0": {("GB0003", SHA_A): record.NO_BREAK}, "2.13.0": {}}
    new = record.updated(old, runs, current)
    # the old release's outcome kept, the new one added; GB0004's block is on no page any more,
    # and GB0005's has no outcome yet
    assert new.rows == {
        ("GB0003", SHA_A): Row(
            "GB0003", "gb-repro", 7, SHA_A, {"2.13.0": record.BREAKS, "2.15.0": record.NO_BREAK}
        )
    }
    # a new run of a release replaces that release's outcome only
    again = record.updated(new, {"2.13.0": {("GB0003", SHA_A): record.ERROR}}, current)
    assert again.rows["GB0003", SHA_A].outcomes == {
        "2.13.0": record.ERROR,
        "2.15.0": record.NO_BREAK,
    }
    assert again.missing(("GB0003", SHA_A), ("2.13.0", "2.14.1")) == ["2.14.1"]


def test_store_adds_runs_to_what_the_file_holds(tmp_path: Path) -> None:
    path = tmp_path / "verified-examples.yaml"
    current = {("GB0003", SHA_A): Row("GB0003", "gb-repro", 1, SHA_A)}
    record.store(path, {"2.13.0": {("GB0003", SHA_A): record.BREAKS}}, current)
    record.store(path, {"2.15.0": {("GB0003", SHA_A): record.NO_BREAK}}, lambda: current)
    stored = record.read(path)
    assert stored.rows["GB0003", SHA_A].outcomes == {
        "2.13.0": record.BREAKS,
        "2.15.0": record.NO_BREAK,
    }
    assert stored.passed(("GB0003", SHA_A), "gb-repro", "2.13.0")
    assert not stored.passed(("GB0003", SHA_A), "gb-repro", "2.15.0")


GOOD_ROW = f"""\
- id: GB0003
  kind: gb-repro
  sha256: {SHA_A}
  outcomes:
    2.13.0: breaks
"""


@pytest.mark.parametrize(
    ("row_text", "line", "why"),
    [
        (GOOD_ROW.replace("breaks", "broke"), 6, "unknown outcome 'broke'"),
        (GOOD_ROW.replace("2.13.0:", "2.13:"), 5, "'2.13' is not a release"),
        (GOOD_ROW.replace("gb-repro", "gb-demo"), 3, "kind is gb-repro, gb-fix or gb-wrong"),
        (GOOD_ROW.replace("GB0003", "GB3"), 2, "id is not an id like GB0025"),
        (GOOD_ROW.replace(SHA_A, "abc"), 4, "sha256 is not a sha256"),
        (GOOD_ROW + "  colour: red\n", 7, "unknown key 'colour'"),
        (GOOD_ROW.replace(f"  sha256: {SHA_A}\n", ""), 2, "each block needs id, kind, sha256"),
    ],
)
def test_a_bad_value_is_an_error_on_its_line(
    tmp_path: Path, row_text: str, line: int, why: str
) -> None:
    path = tmp_path / "verified-examples.yaml"
    # the first block is good: the error names the second one, on the line of the bad value
    path.write_text("blocks:\n" + GOOD_ROW.replace("GB0003", "GB0002") + row_text)
    lines_before = GOOD_ROW.count("\n")
    with pytest.raises(GbsiteError) as raised:
        record.read(path)
    (problem,) = raised.value.problems
    assert problem.path == path
    assert problem.line == 1 + lines_before + line - 1
    assert f"block 2: {why}" in problem.message
    assert "\n" not in str(problem)


@pytest.mark.parametrize(
    ("text", "why", "line"),
    [
        ("# a comment\nblocks: {}\n", "it needs `blocks:`, a list", 2),
        ("# a comment\n- a list\n", "it needs `blocks:`, a list", None),
        ("# a comment\nrows: []\n", "unknown key 'rows'", 2),
    ],
)
def test_a_file_that_is_no_record_is_an_error(
    tmp_path: Path, text: str, why: str, line: int | None
) -> None:
    path = tmp_path / "verified-examples.yaml"
    path.write_text(text)
    with pytest.raises(GbsiteError) as raised:
        record.read(path)
    (problem,) = raised.value.problems
    assert why in problem.message
    assert "not a record of examples" in problem.message
    if line is not None:
        assert problem.line == line


def test_the_first_format_is_read_as_outcomes_of_the_release() -> None:
    path = Path("unused.yaml")
    first = f"verified:\n- id: GB0003\n  kind: gb-fix\n  sha256: {SHA_A}\n  torch: 2.13.0+cpu\n"
    rec = record._parse(path, first)
    fix = Row("GB0003", "gb-fix", 0, SHA_A, {"2.13.0": record.RUNS})
    assert rec.rows == {("GB0003", SHA_A): fix}


def test_other_break_sorts_the_ids_it_broke_with() -> None:
    other = record.other_break(["GB0059", "GB0007", "GB0059"])
    assert other == Outcome(Did.BREAKS, ("GB0007", "GB0059"))
    assert str(other) == "breaks GB0007 GB0059"
    with pytest.raises(ValueError, match="needs the ids"):
        record.other_break([])


def test_passing_is_the_outcome_each_kind_promises() -> None:
    assert [record.passing(k) for k in ("gb-repro", "gb-fix", "gb-wrong")] == [
        Outcome(Did.BREAKS),
        Outcome(Did.RUNS),
        Outcome(Did.WRONG),
    ]


@pytest.mark.parametrize(
    "text", ["breaks GB7", "breaks ", "breaks GB0059 GB0007", "runs GB0007", "Breaks", "broke"]
)
def test_an_outcome_it_cannot_parse_is_an_error_on_its_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "verified-examples.yaml"
    path.write_text("blocks:\n" + GOOD_ROW.replace("2.13.0: breaks", f"2.13.0: '{text}'"))
    with pytest.raises(GbsiteError) as raised:
        record.read(path)
    (problem,) = raised.value.problems
    assert problem.line == 6
    assert f"block 1: unknown outcome {text!r}" in problem.message

"""The coverage states of a page for a release (states.page_coverage), from its blocks, its
status block and the record: verified, fixed, pending, none, and a declared state."""

from __future__ import annotations

from pathlib import Path

from gbsite.examples import record
from gbsite.examples.annotations import Block
from gbsite.examples.pages import PageExamples
from gbsite.examples.record import Record, Row
from gbsite.examples.states import fixed_in, page_coverage
from gbsite.examples.status import Declaration
from gbsite.examples.vocabulary import Outcome, State

RELEASES = ("2.13.0", "2.14.1", "2.15.0")
DOC = Path("docs/gb/gb0003.md")


def block(kind: str, line: int, code: str = "pass\n", needs: str = "") -> Block:
    return Block("GB0003", DOC, line, kind, code, "fn", "eager", needs=needs)


REPRO = block("gb-repro", 10)
FIX = block("gb-fix", 20)
PAGE = PageExamples("GB0003", (REPRO, FIX), None)


def ran(**by_release: tuple[str, str]) -> Record:
    """A record of REPRO and FIX: release (2_13_0) -> (repro's outcome, fix's outcome), each as
    the record writes it ("" for none)."""
    rows: dict[record.Key, Row] = {}
    for name, outcomes in by_release.items():
        release = name.removeprefix("r").replace("_", ".")
        for b, outcome in zip((REPRO, FIX), outcomes, strict=True):
            if outcome:
                parsed = Outcome.parse(outcome)
                assert parsed is not None, outcome
                old = rows.get(b.key) or Row(b.gb_id, b.kind, b.line, b.digest)
                rows[b.key] = Row(
                    b.gb_id, b.kind, b.line, b.digest, {**old.outcomes, release: parsed}
                )
    return Record(rows)


def status(rec: Record, release: str, page: PageExamples | None = PAGE) -> str:
    state = page_coverage(page, "GB0003", rec, release, RELEASES).status
    assert isinstance(state, State)
    return state


def test_no_page_is_none() -> None:
    assert status(record.EMPTY, "2.13.0", None) == "none"


def test_a_repro_and_a_fix_that_did_what_they_promise_are_verified() -> None:
    rec = ran(r2_13_0=("breaks", "runs"))
    assert status(rec, "2.13.0") == "verified"
    # with a release they have not run with, they are pending
    assert status(rec, "2.14.1") == "pending"


def test_blocks_not_run_yet_are_pending_and_failed_ones_none() -> None:
    assert status(record.EMPTY, "2.13.0") == "pending"
    assert status(ran(r2_13_0=("breaks", "once")), "2.13.0") == "none"
    assert status(ran(r2_13_0=("breaks GB0007", "runs")), "2.13.0") == "none"


def test_a_repro_that_stops_breaking_is_fixed_from_that_release_on() -> None:
    rec = ran(r2_13_0=("breaks", "runs"), r2_14_1=("no-break", "runs"), r2_15_0=("no-break", ""))
    assert fixed_in(PAGE, rec, RELEASES) == ("2.14.1", ("2.13.0",))
    assert [status(rec, r) for r in RELEASES] == ["verified", "fixed", "fixed"]


def test_a_repro_that_never_broke_is_not_fixed() -> None:
    rec = ran(r2_13_0=("no-break", "runs"), r2_14_1=("no-break", "runs"))
    assert fixed_in(PAGE, rec, RELEASES) is None
    assert status(rec, "2.14.1") == "none"


def test_a_status_block_decides_where_it_holds() -> None:
    internal = Declaration(State.INTERNAL, "no user code", "torch/x.py", "f", None, None, DOC, 3)
    later = Declaration(State.UNRAISED, "gone", None, None, None, None, DOC, 30, since="2.15.0")
    page = PageExamples("GB0003", (REPRO, FIX), internal, later=(later,))
    rec = ran(r2_13_0=("breaks", "runs"))
    assert [status(rec, r, page) for r in RELEASES] == ["internal", "internal", "unraised"]

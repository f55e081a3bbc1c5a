"""vocabulary.Outcome: what a block did, its text in the record (str and parse, each the other's
inverse) and its words on a page."""

from __future__ import annotations

import pytest

from gbsite.examples import record
from gbsite.examples.vocabulary import Did, Outcome


@pytest.mark.parametrize("did", list(Did), ids=str)
def test_each_word_is_its_own_text_and_back(did: Did) -> None:
    outcome = Outcome(did)
    assert str(outcome) == did.value
    assert Outcome.parse(did.value) == outcome


@pytest.mark.parametrize(
    ("ids", "text"),
    [(("GB0059",), "breaks GB0059"), (("GB0059", "GB0102"), "breaks GB0059 GB0102")],
)
def test_other_ids_follow_the_word(ids: tuple[str, ...], text: str) -> None:
    outcome = Outcome(Did.BREAKS, ids)
    assert str(outcome) == text
    assert Outcome.parse(text) == outcome
    assert Outcome.parse(text) != record.BREAKS  # breaking with other ids is not the promise


@pytest.mark.repo_data
def test_every_outcome_of_the_committed_record_reads_back_as_its_text() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "docs" / "verified-examples.yaml"
    outcomes = {o for row in record.read(path).rows.values() for o in row.outcomes.values()}
    assert record.BREAKS in outcomes and record.RUNS in outcomes
    assert all(Outcome.parse(str(o)) == o for o in outcomes)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "broke",
        "Breaks",  # the record's words are lower case
        "no break",  # a page's words, not the record's
        "breaks ",
        "breaks  GB0059",
        "breaks GB7",
        "breaks gb0059",
        "breaks GB0102 GB0059",  # unsorted: nothing writes it
        "breaks GB0059 GB0059",  # repeated
        "runs GB0059",  # only a break has other ids
        "no-break GB0059",
        " breaks",
        "breaks\nGB0059",
        "breaks GB0059\n",
    ],
)
def test_any_other_text_is_no_outcome(text: str) -> None:
    assert Outcome.parse(text) is None


@pytest.mark.parametrize(
    ("did", "other"),
    [(Did.RUNS, ("GB0059",)), (Did.BREAKS, ("GB0102", "GB0059")), (Did.BREAKS, ("GB7",))],
)
def test_an_outcome_with_no_text_cannot_be_made(did: Did, other: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="not an outcome"):
        Outcome(did, other)


@pytest.mark.parametrize(
    ("outcome", "said"),
    [
        (record.BREAKS, "breaks"),
        (record.NO_BREAK, "no break"),
        (record.RUNS, "runs"),
        (record.ONCE, "called once"),
        (record.RECOMPILES, "recompiles unannounced"),
        (record.EAGER_FAILS, "fails without torch.compile too"),
        (record.WRONG, "gives a wrong value"),
        (record.CORRECT, "computes it right"),
        (record.ERROR, "fails"),
        (record.other_break(["GB0102", "GB0059"]), "breaks with GB0059, GB0102"),
        (record.other_break(["GB0007"]), "breaks with GB0007"),
    ],
    ids=str,
)
def test_a_page_says_each_outcome_in_words(outcome: Outcome, said: str) -> None:
    assert outcome.describe() == said


def test_the_record_names_each_word() -> None:
    named = [
        record.BREAKS,
        record.NO_BREAK,
        record.RUNS,
        record.ONCE,
        record.RECOMPILES,
        record.EAGER_FAILS,
        record.DIFFERS,
        record.WRONG,
        record.CORRECT,
        record.ERROR,
    ]
    assert [o.did for o in named] == list(Did) and all(o.other == () for o in named)

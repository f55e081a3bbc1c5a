"""Categories, rejoined hints and content defects, on real registry entries: those of the
HISTORY releases (conftest.py), whose texts no later import changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from gbsite.registry import derive
from gbsite.registry import store as registry
from gbsite.registry.model import Registry


@pytest.fixture(scope="module")
def reg(history_registry: Path) -> Registry:
    return registry.load(history_registry)


@pytest.fixture(scope="module")
def classifier(reg: Registry) -> derive.Classifier:
    return derive.Classifier(reg.categories)


def keys(classifier: derive.Classifier, reg: Registry, gb_id: str) -> list[str]:
    return [c.key for c in classifier.categories_of(reg.entries[gb_id].current)]


def test_categories_from_canned_hints(reg: Registry, classifier: derive.Classifier) -> None:
    assert keys(classifier, reg, "GB0000") == ["user-error"]
    assert keys(classifier, reg, "GB0001") == ["supportable"]
    assert keys(classifier, reg, "GB0295") == ["dynamo-bug"]
    assert keys(classifier, reg, "GB0003") == ["fundamental"]
    assert keys(classifier, reg, "GB0025") == []


def test_older_wording_of_a_canned_hint_is_recognised(
    reg: Registry, classifier: derive.Classifier
) -> None:
    # GB0000's 2.8.0 text used the earlier USER_ERROR wording; upstream rewrote it in place in
    # 2.11.0, so it survives only in our `replaced` list.
    old = reg.entries["GB0000"].replaced[-1].text
    assert old.hints[0].startswith("Dynamo has detected")
    assert [c.key for c in classifier.categories_of(old)] == ["user-error"]


def test_category_counts_on_the_newest_history_release(
    reg: Registry, classifier: derive.Classifier
) -> None:
    counts: dict[str, int] = {}
    for entry in reg.entries.values():
        if entry.is_removed:
            continue
        for c in classifier.categories_of(entry.current):
            counts[c.key] = counts.get(c.key, 0) + 1
    assert counts == {
        "supportable": 190,
        "user-error": 106,
        "dynamo-bug": 44,
        "difficult": 12,
        "fundamental": 11,
        "caused-by-earlier-break": 4,
        "sparse-tensor": 3,
        "inference-mode": 1,
    }


@pytest.mark.parametrize(
    ("gb_id", "expected"),
    [
        (
            "GB0003",
            [
                "Call a generator from inside of a non-generator Python function and compile "
                "that function instead.",
                "This graph break is fundamental - it is unlikely that Dynamo will ever be "
                "able to trace through your code. Consider finding a workaround.",
            ],
        ),
        (
            "GB0236",
            [
                "Use one of the following to register the type with pytree:\n"
                "* `torch.utils._pytree.register_constant`\n"
                "* `torch.utils._pytree.register_dataclass`\n"
                "* `torch.utils._pytree.register_pytree_node`"
            ],
        ),
        ("GB0025", ["Remove the `torch._dynamo.graph_break()` call."]),
    ],
)
def test_split_hints_are_rejoined(
    reg: Registry, classifier: derive.Classifier, gb_id: str, expected: list[str]
) -> None:
    assert classifier.join_hints(reg.entries[gb_id].current.hints) == expected


def test_a_finished_sentence_is_not_a_fragment(
    reg: Registry, classifier: derive.Classifier
) -> None:
    # "Avoid calling `TestCase.{name}`. " ends in a space, but its sentence is complete.
    assert classifier.join_hints(reg.entries["GB0060"].current.hints) == [
        "Avoid calling `TestCase.{name}`.",
        "Please report an issue to PyTorch.",
    ]


def test_fragment_starting_with_a_space_continues(
    reg: Registry, classifier: derive.Classifier
) -> None:
    joined = classifier.join_hints(reg.entries["GB0090"].current.hints)
    assert any(h.endswith("#heading=h.64r4npvq0w0 for how to fix") for h in joined)


def test_defects(reg: Registry, classifier: derive.Classifier) -> None:
    def of(gb_id: str) -> set[str]:
        return {d.key for d in derive.defects_of(reg.entries[gb_id], classifier)}

    assert "split-hints" in of("GB0003")
    assert "no-hints" in of("GB0208")
    assert "empty-context" in of("GB0295")
    assert "runtime-explanation" in of("GB0007")  # its explanation is the word "explanation"
    assert "leaked-source" in of("GB0023")
    assert "leaked-source" not in of("GB8435")  # prose that merely starts with a quote
    assert of("GB0025") == set()

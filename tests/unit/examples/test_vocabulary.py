"""Each vocabulary of the examples has one definition: code compares a state, a block kind, a
run mode or what a block did (an outcome's word) with the enum's member, never with a string of
its own (which a renamed word would leave behind, silently false)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gbsite.examples.annotations import Kind
from gbsite.examples.runner import Mode
from gbsite.examples.vocabulary import Did, State

SOURCE = Path(__file__).resolve().parents[3] / "src" / "gbsite"
# driver.py runs under a Python without gbsite: its MODE words are the other end of runner's argv.
APART = {"examples/driver.py"}
# The same word meaning something else there.
HOMONYMS = {
    ("examples/record.py", "verified"),  # the top-level key of the record's first format
    ("examples/annotations.py", "eager"),  # the fence option eager=raises
    ("examples/annotations.py", "recompiles"),  # the fence option recompiles=yes, not Did's word
}


def compared_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants that a comparison (==, !=, in, not in) holds something against."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        for side in [node.left, *node.comparators]:
            items = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
            found += [
                (node.lineno, item.value)
                for item in items
                if isinstance(item, ast.Constant) and isinstance(item.value, str)
            ]
    return found


@pytest.mark.parametrize("vocabulary", [State, Kind, Mode, Did], ids=lambda v: v.__name__)
def test_no_module_compares_with_a_copy_of_a_word(vocabulary: type) -> None:
    words = {str(member) for member in vocabulary}
    stray = [
        f"{path.relative_to(SOURCE)}:{line}: {text!r}"
        for path in sorted(SOURCE.rglob("*.py"))
        if path.relative_to(SOURCE).as_posix() not in APART
        for line, text in compared_strings(ast.parse(path.read_text(encoding="utf-8")))
        if text in words and (path.relative_to(SOURCE).as_posix(), text) not in HOMONYMS
    ]
    assert stray == []


def test_the_finder_sees_a_stray_word() -> None:
    code = 'if page.status == "verified" or kind in ("gb-fix", "other"):\n    pass\n'
    assert compared_strings(ast.parse(code)) == [(1, "verified"), (1, "gb-fix"), (1, "other")]

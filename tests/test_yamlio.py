"""Registry YAML round-trips any text exactly: nothing a snapshot holds is altered on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO
from gbsite.registry import store as registry
from gbsite.registry import yamlio
from gbsite.registry.model import Entry, Revision, Text

# Any Unicode text except what YAML cannot carry at all (surrogates; most C0 controls are
# escaped by the emitter and must come back unchanged).
texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=80)


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, max_size=4), texts, texts)
def test_entry_yaml_round_trips(hints: list[str], gb_type: str, explanation: str) -> None:
    entry = Entry(
        "GB0001", "1.0.0", None, [Revision(Text(gb_type, "", explanation, tuple(hints)), "1.0.0")]
    )
    text = registry.entry_yaml(entry)
    data = yamlio.load(Path("x.yaml"), text)
    assert data["history"][0]["gb_type"] == gb_type
    assert data["history"][0]["explanation"] == explanation
    assert data["history"][0]["hints"] == hints


def test_multiline_hints_are_literal_blocks() -> None:
    entry = Entry(
        "GB0001",
        "1.0.0",
        None,
        [Revision(Text("t", "", "", ("Use one of:\n", "* `a`\n", "* `b`")), "1.0.0")],
    )
    text = registry.entry_yaml(entry)
    assert "  - |\n    Use one of:\n" in text


def scanned_depth(text: str) -> int:
    """The most collections open at once in libyaml's scan of `text`, up to an error."""
    depth = most = 0
    try:
        for token in yaml.scan(text, Loader=yaml.CSafeLoader):
            if isinstance(token, yamlio._OPEN):
                depth += 1
                most = max(most, depth)
            elif isinstance(token, yamlio._CLOSE):
                depth -= 1
    except yaml.YAMLError:
        pass
    return most


# Pieces that open, close and indent collections, and the scalars, breaks and blanks between.
PIECES = st.sampled_from(
    [
        "- ",
        "-",
        "? ",
        "?",
        ": ",
        ":",
        "a",
        "b: ",
        "- a: ",
        "[",
        "]",
        "{",
        "}",
        ", ",
        "\n",
        "  ",
        " ",
        "\n  ",
        "\n    ",
        "\n      ",
        "\t",
        "\r",
        "\r\n",
        "\x85",
        "\u2028",
        "|\n",
        ">\n",
        '"',
        "'",
        "&x ",
        "*x",
        "!t ",
        "# c",
        "---\n",
        "...\n",
    ]
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(PIECES, max_size=80).map("".join))
def test_the_depth_bound_is_never_below_the_scanned_depth(text: str) -> None:
    assert scanned_depth(text) <= yamlio.depth_bound(text)


@pytest.mark.parametrize(
    "text",
    [
        "- - -\n      - - -\n            - - - c\n",  # compact entries, deeper each line
        "- - - a:\n          - - - b:\n                    - - - c\n",
        "a:\n  b:\n  - c:\n      d: [e, {f: g}]\n  h:\n    - - i\n",
        "? - a\n  - ? b\n    : c\n: d\n",
        "- " * 60 + "x\n",
        "".join(f"{'  ' * n}k{n}:\n" for n in range(60)),
    ],
)
def test_the_depth_bound_holds_for_deep_and_mixed_nesting(text: str) -> None:
    assert 0 < scanned_depth(text) <= yamlio.depth_bound(text)


@pytest.mark.parametrize("brk", ["\r", "\r\n", "\x85", "\u2028", "\u2029"])
def test_the_depth_bound_knows_every_line_break_of_yaml(brk: str) -> None:
    text = f"- - -{brk}      - - -{brk}            - - - c{brk}"
    assert scanned_depth(text) == 9 <= yamlio.depth_bound(text)


@pytest.mark.repo_data
def test_the_committed_yaml_is_within_bounds_without_a_scan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The record and registry/resolved/ are long: the bound, not a scan, lets them through."""
    paths = [REPO / "docs" / "verified-examples.yaml", *(REPO / "registry").rglob("*.yaml")]
    long = [p for p in paths if p.read_text().count("\n") > yamlio.MAX_DEPTH]
    assert len(long) > 3
    monkeypatch.setattr(yaml, "scan", lambda *a, **k: pytest.fail("scanned"))
    for path in long:
        yamlio.check_bounds(path, path.read_text())

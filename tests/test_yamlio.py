"""Registry YAML round-trips any text exactly: nothing a snapshot holds is altered on disk."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

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

"""sections: a contributor block cut at its headings, each section's role, and the reader's
order (the short why and the first fix first)."""

from __future__ import annotations

from gbsite.docs import links
from gbsite.docs.sections import Role, reading, split_fixes
from gbsite.docs.sections import cut as cut_tokens

BLOCK = """```yaml gb-status
status: internal
until: 2.13.0
reason: r
source: torch/x.py
function: f
```

### Why this happens

First paragraph of why.

Second paragraph of why.

### Example

An example:

```python gb-repro
fn(1)
```

### How to fix it

**Do the first thing.** Lead of the first fix.

```python gb-fix
fn(1)
```

What the first fix costs.

**Do the second thing.** Lead of the second fix.

```python gb-fix
fn(2)
```

### With newer torch

Something else.

### What was tried

Lab notes.
"""


def cut(markdown: str) -> list:  # type: ignore[type-arg]
    return cut_tokens(links.parser().parse(markdown))


def text(tokens: tuple) -> str:  # type: ignore[type-arg]
    return " ".join(t.content for t in tokens if t.type in ("inline", "fence"))


def test_sections_have_their_roles() -> None:
    roles = [(c.role, c.title) for c in cut(BLOCK)]
    assert roles == [
        (Role.LEAD, ""),
        (Role.WHY, "Why this happens"),
        (Role.EXAMPLE, "Example"),
        (Role.FIX, "How to fix it"),
        (Role.OTHER, "With newer torch"),
        (Role.TRIED, "What was tried"),
    ]


def test_the_reader_gets_the_short_why_and_the_first_fix_first() -> None:
    read = reading(cut(BLOCK))
    assert [c.role for c in read.answer] == [Role.LEAD, Role.WHY, Role.FIX]
    assert text(read.answer[1].body) == "First paragraph of why."
    assert text(read.why_more[0].body) == "Second paragraph of why."
    first_fix = text(read.answer[2].body)
    assert "first thing" in first_fix and "costs" in first_fix and "second" not in first_fix
    assert [c.role for c in read.example] == [Role.EXAMPLE]
    assert "second thing" in text(read.more_fixes[0].body)
    assert [c.title for c in read.rest] == ["With newer torch"]
    assert [c.title for c in read.tried] == ["What was tried"]
    # Nothing is lost, nothing is shown twice.
    shown = [t for c in read.cuts for t in (*c.heading, *c.body)]
    assert len(shown) == len(links.parser().parse(BLOCK))


def test_a_page_without_a_fix_leads_with_what_to_do() -> None:
    block = "### What the check guards against\n\nA.\n\n### If you see it\n\nB.\n"
    read = reading(cut(block))
    assert [c.title for c in read.answer] == ["If you see it", "What the check guards against"]
    assert read.why_more == () and read.more_fixes == ()


def test_a_second_fix_without_a_bold_lead_starts_at_its_introduction() -> None:
    block = (
        "Read it from the original:\n\n```python gb-fix\nfn(1)\n```\n\n"
        "Alternatively wrap it once:\n\n```python gb-fix\nfn(2)\n```\n"
    )
    first, rest = split_fixes(tuple(links.parser().parse(block)))
    assert text(first) == "Read it from the original: fn(1)\n"
    assert text(rest).startswith("Alternatively wrap it once:")


def test_a_section_titled_example_without_a_repro_is_other() -> None:
    assert [c.role for c in cut("### Example\n\nProse only.\n")] == [Role.OTHER]

"""Inputs that made `gbsite lookup` (and the site's search) work for minutes (issue 35), made
from the committed registry's texts: tests/test_faults.py runs them against a time limit and
benchmarks/limits.py times them before and after the fix."""

from __future__ import annotations

import re
from pathlib import Path

from gbsite.registry import store

REPO = Path(__file__).resolve().parent.parent
MB = 1_000_000


def _texts(registry: Path) -> list[tuple[str, str, str]]:
    """(id, field, text) of every current text of the registry."""
    reg = store.load(registry)
    out = []
    for gb_id, entry in sorted(reg.entries.items()):
        current = entry.history[0].text
        out += [(gb_id, "gb_type", current.gb_type), (gb_id, "context", current.context)]
        out += [(gb_id, "explanation", current.explanation)]
    return out


def _parts(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\{[^{}]*\}", text) if p.strip()]


def backtracking_log(registry: Path = REPO / "registry") -> str:
    """A 1.9 KB log whose developer context repeats the literal parts of a registry context
    out of order (the last part only at the start), so that every part is there but never in
    order: a template regex with a lazy gap between parts tried every combination of their
    places. The context with the most parts, and of those the shortest (the most repeats)."""

    def worst(t: tuple[str, str, str]) -> tuple[int, int]:
        parts = _parts(t[2])
        return len(parts), -len("".join(parts[1:-1]))

    gb_id, _, context = max((t for t in _texts(registry) if t[1] == "context"), key=worst)
    parts = _parts(context)
    assert len(parts) >= 4, (gb_id, context)
    middle = "".join(parts[1:-1])
    body = parts[0] + " " + parts[-1]
    while len(body) < 1850:
        body += middle
    return f"Graph Break Reason: x\n  Explanation: y\n  Developer debug context: {body}\n"


def explanation_lines() -> str:
    """1 MB of 66,666 `Explanation:` lines, each a different record."""
    return "".join(f"Explanation: {n:x}\n" for n in range(66_666))


def unsupported_headers(registry: Path = REPO / "registry") -> str:
    """About 1 MB of 8,000 exception headers, one per line, naming the registry's types in turn
    with a number after each, so that no two are the same."""
    types = sorted({t[2] for t in _texts(registry) if t[1] == "gb_type" and "{" not in t[2]})
    lines = [f"torch._dynamo.exc.Unsupported: {types[n % len(types)]} {n}" for n in range(8000)]
    text = "\n".join(lines)
    return text + " " * max(0, MB - len(text))


def one_word(registry: Path = REPO / "registry") -> str:
    """A 1 MB word: the first registry type without placeholders, its spaces removed, over
    and over."""
    gb_type = next(t[2] for t in _texts(registry) if t[1] == "gb_type" and "{" not in t[2])
    word = "".join(gb_type.split())
    return (word * (MB // len(word) + 1))[:MB]


CASES = {
    "a 1.9 KB log repeating a context's parts out of order": backtracking_log,
    "1 MB of 66,666 Explanation: lines": explanation_lines,
    "1 MB of 8,000 Unsupported: headers": unsupported_headers,
    "a 1 MB word": one_word,
}

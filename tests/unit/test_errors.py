"""errors.py: what a command prints, its control and bidi characters escaped."""

from __future__ import annotations

import json

from gbsite import errors

TEXTS = [
    "",
    "plain text: GB0003, torch.compile(fn)",
    "two\nlines\twith a tab",
    "an escape \x1b]52;c;aGk=\x07 for the clipboard",
    "a carriage\rreturn, a form\x0cfeed, a C1 \x9b2J and a DEL \x7f",
    "bidi: \u202eevil\u202c and \u2066isolate\u2069 and \u061c and \u200e",
    "separators \u2028 and \u2029",
    "printable or not, but never escaped: no\u00a0break, zero\u200bwidth, é, 中文, 🙂",
]


def test_no_character_to_escape_passes_isprintable() -> None:
    """The premise of the quick check: each character the pattern escapes is one
    str.isprintable() refuses, on this Python's Unicode tables."""
    pattern = errors._unprintable(False)
    escaped = [c for c in map(chr, range(0x110000)) if pattern.fullmatch(c)]
    assert len(escaped) > 60
    assert not [c for c in escaped if c.isprintable()]


def test_texts_are_escaped_as_the_pattern_says() -> None:
    def by_pattern(text: str, lines: bool) -> str:
        return errors._unprintable(lines).sub(errors._escaped, text)

    for text in TEXTS:
        assert errors.one_line(text) == by_pattern(text, False), text
        assert errors.printable(text) == by_pattern(text, True), text
        dumped = json.dumps({"text": text}, ensure_ascii=False, indent=2)
        shown = errors.json_printable(dumped)
        assert json.loads(shown) == {"text": text}
        assert not errors._unprintable(True).search(shown)
    assert errors.one_line("a\nb\x1b") == "a\\nb\\x1b"
    assert errors.printable("a\nb\t\u202e") == "a\nb\t\\u202e"

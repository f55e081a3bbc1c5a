"""show/text.py: Markdown as terminal text, and the width it is wrapped at."""

from __future__ import annotations

import pytest

from gbsite.show import text
from gbsite.show.text import PLAIN, Style, inline


def printed(markdown: str, style: Style = PLAIN) -> str:
    return " ".join(shown for _, shown in inline(markdown, style))


def test_inline_markdown_is_text() -> None:
    assert printed("**Remove the call.** Then `f(*args)` works") == (
        "Remove the call. Then f(*args) works"
    )
    assert printed("see [the docs](https://x.org/a) or <https://x.org/b>") == (
        "see the docs (https://x.org/a) or https://x.org/b"
    )


def test_on_a_terminal_bold_is_bold_and_code_is_coloured() -> None:
    words = inline("**Do it** with `x`", Style(color=True))
    assert words[0] == ("Do", "\033[1mDo\033[0m")
    assert words[-1] == ("x", "\033[36mx\033[0m")


def test_a_note_alert_and_wrapping_by_what_is_printed() -> None:
    lines = text._markdown("> [!NOTE]\n> **Bold** words " + "word " * 30, Style(True, 40), "  ")
    assert lines[0].startswith("  > ") and "Note:" in lines[0]
    # Escapes do not count towards the width: every line fits once they are removed.
    plain = [line.replace("\033[1m", "").replace("\033[0m", "") for line in lines]
    assert all(len(line) <= 40 for line in plain)
    assert all(line.startswith("  > ") for line in plain)


def test_the_width_is_columns_when_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    class Pipe:
        def isatty(self) -> bool:
            return False

    monkeypatch.setenv("COLUMNS", "80")
    assert text.terminal_style(Pipe()) == Style(color=False, width=79)
    monkeypatch.setenv("COLUMNS", "200")
    assert text.terminal_style(Pipe()).width == text.WIDTH


def test_code_is_highlighted_at_full_weight_on_a_terminal() -> None:
    lines = Style(color=True).program("import torch\nx = 1\n")
    assert len(lines) == 2 and "\033[2m" not in "".join(lines)  # never dim
    assert "\033[" in lines[0]
    assert PLAIN.program("import torch\nx = 1\n") == ["import torch", "x = 1"]

"""highlight_code: marked lines, on a formatter shared between blocks."""

from __future__ import annotations

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from gbsite.docs.highlight import highlight_code

CODE = "import torch\n\ndef f(x):\n    return x.sin()\n\nf = torch.compile(f)\n"


def test_marked_lines_are_wrapped_as_pygments_wraps_them() -> None:
    html = highlight_code(CODE, "python", (6,))
    lines = html.splitlines()
    assert [i for i, line in enumerate(lines, 1) if 'class="hll"' in line] == [6]
    fresh = HtmlFormatter(nowrap=True, hl_lines=[6])
    assert html == highlight(CODE, PythonLexer(), fresh)


def test_a_block_after_a_marked_one_keeps_its_own_marks() -> None:
    highlight_code(CODE, "python", (1, 3))
    assert 'class="hll"' not in highlight_code(CODE, "python")
    again = highlight_code(CODE, "python", (4,))
    assert [i for i, line in enumerate(again.splitlines(), 1) if "hll" in line] == [4]

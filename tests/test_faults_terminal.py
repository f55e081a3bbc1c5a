"""Terminal-safe output: what a page or the registry says cannot act on the reader's terminal.

A contributor's page (docs/gb/) and the registry (registry/gb/) are written by others. Their
escape sequences (OSC 52 writes the clipboard, CSI 2J clears the screen, OSC 8 hides a link, a
lone C1 CSI) and bidi controls (U+202E, U+2066: code that reads other than it runs) must reach
the terminal as visible escapes (`\\x1b`, `\\u202e`), in prose, registry text and code alike,
while tabs, line breaks and ordinary Unicode stay as written, and gbsite's own colours work.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from conftest import Project, ids_of, page
from gbsite import config
from gbsite.errors import Problem, one_line
from gbsite.show import page as show_page
from gbsite.show.text import Style, render
from test_faults import gbsite

# The `show`, `lookup` and `coverage` commands run in child processes.
pytestmark = [pytest.mark.slow, pytest.mark.repo_data]

ESC, BEL = "\x1b", "\x07"
HOSTILE = (
    f"clip{ESC}]52;c;aGFja2Vk{BEL} wipe{ESC}[2J "
    f"link{ESC}]8;;https://evil.example/{ESC}\\docs{ESC}]8;;{ESC}\\ "
    "rlo\u202eevil\u202c iso\u2066x\u2069 c1\x9b31m"
)
# As the reader must see it: written out by hand, not by the code under test.
SHOWN = (
    r"clip\x1b]52;c;aGFja2Vk\x07 wipe\x1b[2J "
    r"link\x1b]8;;https://evil.example/\x1b\docs\x1b]8;;\x1b\ "
    r"rlo\u202eevil\u202c iso\u2066x\u2069 c1\x9b31m"
)
UNICODE = "café 日本 🎉"
# Raw characters no output may hold: C0 but tab and newline, DEL, C1, line separators, bidi.
RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
WORD = "zyxwvutsr"  # finds the hostile entry with `lookup --words`
GB_ID = "GB0025"

REPRO = f'''\
import torch


def fn(x):
    s = r"{HOSTILE} {UNICODE}"  # {HOSTILE}
    y = x  \t# a tab
    torch._dynamo.graph_break()
    return y


fn(torch.randn(8))
'''
FIX = f"""\
import torch


def fn(x):
    # {HOSTILE}
    return x.sin()


fn(torch.randn(8))
"""
PAGE = f"""
### Why this happens

Prose {HOSTILE} {UNICODE}; entities &#x202e;rtl&rlm; too.

### Example

```python gb-repro
{REPRO}```

### How to fix it

Lead {HOSTILE}.

```python gb-fix
{FIX}```
"""


def flat(text: str) -> str:
    """`text` with its runs of white space one space: prose is wrapped at the terminal's width."""
    return " ".join(text.split())


def assert_inert(text: str) -> None:
    found = RAW.search(text)
    assert found is None, (
        f"raw {found.group()!r} at {found.start()}: {text[max(0, found.start() - 40) :][:80]!r}"
    )


@pytest.fixture
def hostile(project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The project with GB0025's page and registry entry holding HOSTILE everywhere."""
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))  # lookup's index
    monkeypatch.setenv("COLUMNS", "100")
    page(project, GB_ID, PAGE)
    path = project.registry / "gb" / f"{GB_ID}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for text in data["history"]:
        text["gb_type"] = f"{WORD} call {HOSTILE}"
        text["explanation"] = f"Expl {HOSTILE} {UNICODE}"
        text["context"] = f"Ctx {HOSTILE}"
        text["hints"] = [f"Hint {HOSTILE}"]
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return project


def assert_page_shown(out: str) -> None:
    """`show`'s text: every hostile text escaped where it belongs, the rest as written."""
    assert_inert(out)
    lines = out.split("\n")
    assert lines[0] == f"{GB_ID}: {WORD} call {SHOWN}"
    # The code keeps its lines, its tab and its Unicode; what it hides is shown.
    assert f'        s = r"{SHOWN} {UNICODE}"  # {SHOWN}' in lines
    assert "        y = x  \t# a tab" in lines
    assert f"        # {SHOWN}" in lines  # the fix
    for code in (REPRO, FIX):
        for line in code.rstrip("\n").split("\n"):
            if HOSTILE not in line:
                assert (f"    {line}".rstrip() if line else "") in lines, line
    text = flat(out)
    assert flat(f"Prose {SHOWN} {UNICODE}; entities \\u202ertl\\u200f too.") in text
    assert flat(f"Lead {SHOWN}.") in text
    assert flat(f"Explanation: Expl {SHOWN} {UNICODE}") in text
    assert flat(f"Context: Ctx {SHOWN}") in text
    assert flat(f"- Hint {SHOWN}") in text


def test_show_escapes_the_page_and_the_registry(hostile: Project) -> None:
    result = gbsite(hostile, "show", GB_ID)
    assert result.returncode == 0, result.stderr
    assert_page_shown(result.stdout)
    assert_inert(result.stderr)


def test_lookup_show_escapes_as_show(hostile: Project) -> None:
    result = gbsite(hostile, "lookup", "--show", "--words", WORD)
    assert result.returncode == 0, result.stderr
    assert_page_shown(result.stdout)
    assert result.stdout == gbsite(hostile, "show", GB_ID).stdout


def test_lookup_escapes_the_matches(hostile: Project) -> None:
    result = gbsite(hostile, "lookup", "--words", WORD)
    assert result.returncode == 0, result.stderr
    assert_inert(result.stdout + result.stderr)
    first, url = result.stdout.split("\n")[:2]
    assert first == f"{GB_ID}  {WORD} call {SHOWN}"
    assert url.strip().startswith("https://") and url.endswith("]")


def test_json_is_the_same_data_and_inert(hostile: Project) -> None:
    """JSON keeps the text exact for a tool, non-ASCII as it is, but a terminal that shows it
    gets the bidi controls and C1 as `\\uXXXX` (json leaves them raw with ensure_ascii=False)."""
    shown = gbsite(hostile, "show", GB_ID, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert_inert(shown.stdout)
    assert UNICODE in shown.stdout and "\\u202e" in shown.stdout and "\\u009b" in shown.stdout
    data = json.loads(shown.stdout)
    assert data["type"] == f"{WORD} call {HOSTILE}"
    assert data["registry"]["explanation"] == f"Expl {HOSTILE} {UNICODE}"
    [repro] = [e for e in data["examples"] if e["kind"] == "gb-repro"]
    assert repro["code"] == REPRO
    assert gbsite(hostile, "lookup", "--show", "--json", "--words", WORD).stdout == shown.stdout
    found = gbsite(hostile, "lookup", "--json", "--words", WORD)
    assert_inert(found.stdout)
    assert json.loads(found.stdout)[0]["type"] == f"{WORD} call {HOSTILE}"


def test_coverage_escapes_a_repeated_paragraph(hostile: Project) -> None:
    """`coverage --list` quotes a paragraph that three pages repeat."""
    newest = config.load(hostile.root).example_releases[-1]
    others = [i for i in ids_of(newest) if i != GB_ID][:2]
    paragraph = f"Repeated {HOSTILE} on every one of these pages, word for word."
    for gb_id in (GB_ID, *others):
        page(hostile, gb_id, f"### Why this happens\n\n{paragraph}\n")
    for args in (["--list"], ["--format", "json"]):
        result = gbsite(hostile, "coverage", *args)
        assert result.returncode == 0, result.stderr
        assert_inert(result.stdout + result.stderr)
    text = gbsite(hostile, "coverage", "--list").stdout
    [line] = [ln for ln in text.split("\n") if ln.startswith("repeated on 3 pages")]
    assert r": Repeated clip\x1b]52;c;aGFja2Vk\x07 wipe\x1b[2J" in line
    data = json.loads(gbsite(hostile, "coverage", "--format", "json").stdout)
    assert paragraph in [r["text"] for r in data["repeated_paragraphs"]]


def test_on_a_terminal_the_only_escapes_are_the_styling(hostile: Project) -> None:
    """With colour (as on a terminal) the page's texts are escaped before they are styled:
    once gbsite's own SGR sequences are taken out, nothing raw is left, and the text reads as
    it does without colour."""
    found = show_page.shown(config.load(hostile.root), GB_ID)
    styled = render(found, Style(color=True, width=100))
    assert f"\x1b[1m{GB_ID}: {WORD} call {SHOWN}\x1b[0m" in styled
    unstyled = re.sub(r"\x1b\[[0-9;]*m", "", styled)
    assert_inert(unstyled)
    plain = render(found, Style(color=False, width=100))
    # Alike but for the indent of blank lines in the code (highlighted, they are not empty).
    assert [ln.rstrip() for ln in unstyled.split("\n")] == plain.split("\n")


def test_the_one_helper_keeps_tabs_lines_and_unicode() -> None:
    from gbsite.errors import json_printable, printable

    text = f"a\tb\n{HOSTILE} {UNICODE}\r\n"
    assert printable(text) == f"a\tb\n{SHOWN} {UNICODE}\\r\n"
    assert one_line(text) == f"a\tb\\n{SHOWN} {UNICODE}\\r\\n"
    dumped = json.dumps({"t": text}, ensure_ascii=False)
    assert json.loads(json_printable(dumped)) == {"t": text}
    assert_inert(json_printable(dumped))
    annotation = Problem(f"bad {HOSTILE}").github()
    assert_inert(annotation)
    assert "\\x1b[2J" in annotation

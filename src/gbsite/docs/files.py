"""docs/gb/gbXXXX.md: a generated part for GitHub readers, plus the block contributors edit.

A file has three parts: what comes before the START marker, the block (kept byte for byte), and
what comes after the END marker. Everything outside the block is regenerated from the registry,
so sync must never overwrite text a person wrote there. Two cases:

* Files gbsite wrote carry a checksum of their generated part in their first line. If the part
  still matches it, regenerating loses nothing; if not, someone edited it and we refuse.
* Files of the previous site (Jekyll front matter, same markers, or an older form without
  markers) have no checksum. Every line outside their block must be one the old generator could
  have written for this id from some text the registry has for it; any other line was written by
  a person, and we refuse.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gbsite.errors import GbsiteError, Problem
from gbsite.fs.files import ReadBytes, check_input, decode_utf8
from gbsite.registry.model import Entry, Text

START_MARKER = "<!-- ADDITIONAL INFORMATION START - Add custom information below this line -->"
END_MARKER = "<!-- ADDITIONAL INFORMATION END -->"
EMPTY_BLOCK = "\n\n"  # one empty line between the markers, ready to type into

# Both marker forms of the previous site are accepted: any text after START, any case/spacing.
_START = re.compile(r"<!--[ \t]*ADDITIONAL[ \t]+INFORMATION[ \t]+START\b.*?-->", re.I | re.S)
_END = re.compile(r"<!--[ \t]*ADDITIONAL[ \t]+INFORMATION[ \t]+END\b.*?-->", re.I | re.S)
_HEADER = re.compile(r"<!-- gbsite: .*\bchecksum ([0-9a-f]{12}) -->")
DOC_NAME = re.compile(r"gb([0-9]{4})\.md")
_TEMP_FILE = re.compile(r"\.gb[0-9]{4}\.md\..*\.tmp")
_MENTION = re.compile(r"\b[Gg][Bb]([0-9]{4})\b")


@dataclass(frozen=True, slots=True)
class Line:
    number: int  # 1-based, in the file
    text: str  # with trailing white space removed


@dataclass(frozen=True, slots=True)
class Doc:
    """A parsed docs file."""

    path: Path
    text: str
    block: str  # exact text between the markers ("" if the file has none)
    block_lines: tuple[int, int]  # lines of the START and END markers (0, 0 without markers)
    outside: tuple[Line, ...]  # non-blank lines outside the block, checksum header excluded
    checksum: str | None  # recorded by gbsite in the first line, None for other files
    form: str  # "gbsite", "markers" (previous site), "heading" (oldest form), "bare"

    @property
    def has_content(self) -> bool:
        return bool(self.block.strip())

    def block_line_of(self, offset: int) -> int:
        """File line of a character offset inside the block."""
        return self.block_lines[0] + self.block[:offset].count("\n")


def header(gb_id: str, checksum: str) -> str:
    return (
        f"<!-- gbsite: generated from registry/gb/{gb_id}.yaml; edit only between the "
        f"ADDITIONAL INFORMATION markers. checksum {checksum} -->\n"
    )


def _line_no(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _line_numbers(text: str, offsets: list[int]) -> list[int]:
    """Lines of increasing offsets, in one pass."""
    out, line, pos = [], 1, 0
    for offset in offsets:
        line += text.count("\n", pos, offset)
        pos = offset
        out.append(line)
    return out


def _lines(text: str, first_line: int) -> list[Line]:
    out = []
    for i, raw in enumerate(text.split("\n")):
        stripped = raw.rstrip()  # also drops the \r of CRLF files
        if stripped:
            out.append(Line(first_line + i, stripped))
    return out


def checksum_of(lines: Iterable[Line]) -> str:
    joined = "\n".join(line.text for line in lines)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:12]


# The oldest files have no markers: their hand-written text sits under "## Additional
# Information" and ends at the "[Back to Registry]" link.
_AI_HEADING = re.compile(r"^##[ \t]+Additional Information[ \t]*\r?$", re.M)
_BACK_LINK = re.compile(r"^\[Back to Registry\]", re.M)
_CLICK_LINK = re.compile(
    r"^\[(?:Click here to add Additional Info|Edit this page on GitHub)\]\(.*\)[ \t]*\r?$", re.M
)


def parse(path: Path, text: str, *, outside: bool = True) -> Doc:
    """Split a docs file into its parts; marker errors raise with the line to fix.

    `outside=False` skips collecting the lines outside the block: the site build needs only the
    block, and that collection is most of the parsing time of a file.
    """
    starts = list(_START.finditer(text))
    ends = list(_END.finditer(text))
    for kind, found in (("START", starts), ("END", ends)):
        if len(found) > 1:
            lines = ", ".join(map(str, _line_numbers(text, [m.start() for m in found[:20]])))
            raise GbsiteError.at(
                path,
                _line_no(text, found[1].start()),
                f"second ADDITIONAL INFORMATION {kind} marker ({kind} markers on lines "
                f"{lines}); keep exactly one START and one END marker",
            )
    if starts and not ends:
        raise GbsiteError.at(
            path,
            _line_no(text, starts[0].start()),
            f"ADDITIONAL INFORMATION START marker without an END marker; add the line "
            f"{END_MARKER} after your text",
        )
    if ends and not starts:
        raise GbsiteError.at(
            path,
            _line_no(text, ends[0].start()),
            f"ADDITIONAL INFORMATION END marker without a START marker; add the line "
            f"{START_MARKER} before your text",
        )

    checksum = None
    skip_first = False
    first_line = text.split("\n", 1)[0]
    if match := _HEADER.fullmatch(first_line.rstrip()):
        checksum = match.group(1)
        skip_first = True

    if starts:
        start, end = starts[0], ends[0]
        if end.start() < start.end():
            raise GbsiteError.at(
                path,
                _line_no(text, end.start()),
                f"ADDITIONAL INFORMATION END marker comes before the START marker on line "
                f"{_line_no(text, start.start())}; put START first",
            )
        block = text[start.end() : end.start()]
        form = "gbsite" if checksum else "markers"
        block_lines = (_line_no(text, start.start()), _line_no(text, end.start()))
        outside_lines: list[Line] = []
        if outside:
            outside_lines = _lines(text[: start.start()], 1)
            outside_lines += _lines(text[end.end() :], _line_no(text, end.end()))
    else:
        block, outside_lines, block_lines = _legacy_block(text)
        form = "heading" if block_lines != (0, 0) else "bare"
    if skip_first:
        outside_lines = [line for line in outside_lines if line.number != 1]
    return Doc(path, text, block, block_lines, tuple(outside_lines), checksum, form)


def _legacy_block(text: str) -> tuple[str, list[Line], tuple[int, int]]:
    """The block of a file without markers: the text under "## Additional Information".

    The previous site's generator treated it that way (until "[Back to Registry]"), minus its
    own "Click here" link. The adopted block keeps those lines exactly, without the blank lines
    around them.
    """
    heading = _AI_HEADING.search(text)
    if heading is None:
        return "", _lines(text, 1), (0, 0)
    body_start = heading.end() + 1 if heading.end() < len(text) else heading.end()
    back = _BACK_LINK.search(text, body_start)
    body_end = back.start() if back else len(text)
    body = text[body_start:body_end]
    first = _line_no(text, body_start)
    kept: list[str] = []
    generated: list[Line] = []
    for i, raw in enumerate(body.split("\n")):
        if _CLICK_LINK.fullmatch(raw):
            generated.append(Line(first + i, raw.rstrip()))
        else:
            kept.append(raw)
    while kept and not kept[0].strip():
        kept.pop(0)
    while kept and not kept[-1].strip():
        kept.pop()
    block = "\n" + "\n".join(kept) + "\n" if kept else EMPTY_BLOCK
    outside = (
        _lines(text[: heading.end()], 1)
        + generated
        + (_lines(text[body_end:], _line_no(text, body_end)) if back else [])
    )
    return block, outside, (_line_no(text, heading.start()), _line_no(text, body_end))


def with_block(text: str, block: str) -> str:
    """A docs file's text with the text between its markers replaced by `block`."""
    start, end = _START.search(text), _END.search(text)
    if start is None or end is None or end.start() < start.end():
        raise ValueError("the text has no ADDITIONAL INFORMATION block")
    return text[: start.end()] + block + text[end.start() :]


def scan(docs_dir: Path) -> tuple[dict[str, Path], list[Problem]]:
    """Docs files by id, and files in docs/gb/ that are not docs files."""
    found: dict[str, Path] = {}
    unexpected: list[Problem] = []
    if not docs_dir.is_dir():
        return found, unexpected
    for entry in sorted(os.scandir(docs_dir), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue  # editor swap files, our own temp files
        path = Path(entry.path)
        if not entry.is_file(follow_symlinks=False):  # known from the listing: no system call
            check_input(path)  # a named pipe or a link out of the project: an error
            if not path.is_file():
                continue
        match = DOC_NAME.fullmatch(path.name)
        if match is None:
            hint = (
                f"; rename it to {path.name.lower()}"
                if DOC_NAME.fullmatch(path.name.lower())
                else ""
            )
            unexpected.append(
                Problem(f"not a docs file (names are like gb0025.md){hint}; left alone", path)
            )
            continue
        found[f"GB{match.group(1)}"] = path
    return found, unexpected


# A page's hand-written part is a few KB (the longest is 6 KB); rendering costs about 200 times
# a block's size in memory, so a 100 MB block would exhaust the machine that builds it.
MAX_BYTES = 1024 * 1024


def read(path: Path, *, outside: bool = True, read: ReadBytes = Path.read_bytes) -> Doc:
    try:
        data = read(path)
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror}") from None
    if len(data) > MAX_BYTES:
        raise GbsiteError.at(
            path,
            None,
            f"{len(data) / 1024 / 1024:.1f} MB, more than the {MAX_BYTES // 1024 // 1024} MB a "
            "docs file may have; a page's notes take a few KB: trim them",
        )
    return parse(path, decode_utf8(path, data), outside=outside)


# ---- what the previous site's generator could have written --------------------------------

_LEGACY_FIXED = {
    "---",
    "layout: default",
    "## Graph-Break Type",
    "*Short name describing what triggered the graph break*",
    "## Context",
    "*Values or code snippet captured at the break point*",
    "## Explanation",
    "*Explanation of why the graph break was triggered*",
    "## Hints",
    "*Hints on how to resolve the graph break*",
    # captions of the earlier JavaScript generator
    "*Why this specific graph break happened*",
    "*Suggestions for fixing or working around the break*",
    "## Additional Information",
    "*No hints provided.*",
    "*No context provided.*",
    "*No explanation provided.*",
    "*No Gb_type provided.*",
    "[Back to Registry](../index.html)",
    "[Back to Registry](../index.md)",
}
# Footer links of the different generator versions (organisation and wording changed).
_LEGACY_EDIT_LINK = re.compile(
    r"\[(?:Click here to add Additional Info|Edit this page on GitHub)\]"
    r"\(https://github\.com/[\w.-]+/[\w.-]+/edit/[\w./-]+/gb(\d{4})\.md\)"
)


def _legacy_lines(entry: Entry) -> set[str]:
    """Every line the previous generator could have written for this id, from any of its texts."""
    texts: list[Text] = [r.text for r in (*entry.history, *entry.replaced)]
    lines = set(_LEGACY_FIXED) | {f"# {entry.id}"}
    for text in texts:
        for value in (text.gb_type, text.context, text.explanation):
            lines.update(ln.rstrip() for ln in value.split("\n"))
        for hint in text.hints:
            hint_lines = f"- {hint}".split("\n")
            lines.update(ln.rstrip() for ln in hint_lines)
    lines.discard("")
    return lines


# ---- comparing a file with what it should be ----------------------------------------------


def hand_edit_problem(doc: Doc, expected: Doc) -> Problem | None:
    """Report the first difference between a gbsite file's generated part and what we'd write."""
    have = [line.text for line in doc.outside]
    want = [line.text for line in expected.outside]
    matcher = difflib.SequenceMatcher(a=have, b=want, autojunk=False)
    for tag, i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        where = doc.outside[i1].number if i1 < len(doc.outside) else doc.outside[-1].number
        block = _block_range(doc)
        if tag == "insert":
            return Problem(
                f"generated text was deleted here (expected {want[j1]!r}). Only the text between "
                f"the ADDITIONAL INFORMATION markers{block} is edited by hand; undo the deletion",
                doc.path,
                where,
            )
        what = "added" if tag == "delete" else "changed"
        return Problem(
            f"text {what} outside the ADDITIONAL INFORMATION block: {have[i1]!r}. Everything "
            f"outside the block is regenerated from the registry, so this would be lost; move "
            f"it between the markers{block} (or delete it to discard it)",
            doc.path,
            where,
        )
    return None


def _block_range(doc: Doc) -> str:
    start, end = doc.block_lines
    return f" (lines {start}-{end})" if start else ""


def legacy_problem(doc: Doc, entry: Entry, ours: Doc) -> Problem | None:
    """First line of a previous-site file that neither generator could have written."""
    allowed = _legacy_lines(entry) | {line.text for line in ours.outside}
    for line in doc.outside:
        if line.text in allowed:
            continue
        link = _LEGACY_EDIT_LINK.fullmatch(line.text)
        if link and link.group(1) == entry.id[2:]:
            continue
        return Problem(
            f"text outside the ADDITIONAL INFORMATION block that the registry does not explain: "
            f"{line.text!r}. It was probably written by hand, and regenerating the page would "
            f"lose it; move it between the markers{_block_range(doc)} (or delete it to discard "
            "it). If it is registry text from a PyTorch version not imported yet, import that "
            "version first",
            doc.path,
            line.number,
        )
    return None


def mentions(doc: Doc) -> list[tuple[str, int]]:
    """(GBxxxx, line) for each graph-break id mentioned in the block, lines counted as we go
    (counting from the start for each mention made a 10 MB block take minutes)."""
    found = []
    line, pos = doc.block_lines[0], 0
    for m in _MENTION.finditer(doc.block):
        line += doc.block.count("\n", pos, m.start())
        pos = m.start()
        found.append((f"GB{m.group(1)}", line))
    return found


def is_temp_file(name: str) -> bool:
    return bool(_TEMP_FILE.fullmatch(name))

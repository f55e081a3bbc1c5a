"""docs/gb/gbXXXX.md: a generated part for GitHub readers, plus the block contributors edit.

A file has three parts: what comes before the START marker, the block (kept byte for byte), and
what comes after the END marker. Everything outside the block is regenerated from the registry,
so sync must never overwrite text a person wrote there. The first line carries a checksum of the
generated part: if the part still matches it, regenerating loses nothing; if not, someone edited
it, and sync refuses unless the part is already what it would write.
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
from gbsite.fs.files import InputTooLarge, ReadBytes, check_input, decode_utf8, read_input

START_MARKER = "<!-- ADDITIONAL INFORMATION START - Add custom information below this line -->"
END_MARKER = "<!-- ADDITIONAL INFORMATION END -->"
EMPTY_BLOCK = "\n\n"  # one empty line between the markers, ready to type into

# Matched in any case and spacing, with any text after START, so that a doubled or mistyped
# marker is reported rather than taken for text of the block.
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
    block_lines: tuple[int, int]  # lines of the START and END markers
    outside: tuple[Line, ...]  # non-blank lines outside the block, checksum header excluded
    checksum: str | None  # recorded by gbsite in the first line; None if that line is gone

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
    if not starts:
        raise GbsiteError.at(
            path,
            1,
            "no ADDITIONAL INFORMATION markers, so the hand-written part cannot be told from the "
            f"generated one; put the lines {START_MARKER} and {END_MARKER} around your text, or "
            "delete the file and run `gbsite sync` to write it afresh",
        )
    start, end = starts[0], ends[0]
    if end.start() < start.end():
        raise GbsiteError.at(
            path,
            _line_no(text, end.start()),
            f"ADDITIONAL INFORMATION END marker comes before the START marker on line "
            f"{_line_no(text, start.start())}; put START first",
        )
    block = text[start.end() : end.start()]
    too_deep = html_too_deep(block)
    if too_deep is not None:
        raise GbsiteError.at(
            path,
            _line_no(text, start.end() + too_deep),
            f"HTML tags nested more than {MAX_HTML_DEPTH} levels deep; a page's notes need a "
            "few levels: close the tags you open",
        )
    recorded = _HEADER.fullmatch(text.split("\n", 1)[0].rstrip())
    outside_lines: list[Line] = []
    if outside:
        outside_lines = _lines(text[: start.start()], 1)
        outside_lines += _lines(text[end.end() :], _line_no(text, end.end()))
        if recorded:  # the checksum does not cover the line that records it
            outside_lines = [line for line in outside_lines if line.number != 1]
    return Doc(
        path,
        text,
        block,
        (_line_no(text, start.start()), _line_no(text, end.start())),
        tuple(outside_lines),
        recorded.group(1) if recorded else None,
    )


# Raw HTML in a block is nested at most this deep. The sanitizer's work grows faster than the
# square of the depth (20,000 nested <div>s: 3 s; 150,000 in a 0.75 MB block: minutes), and a
# page's notes use a few levels. Markdown's own nesting is bounded by markdown-it.
MAX_HTML_DEPTH = 400
_TAG = re.compile(r"<(/?)([A-Za-z][^\s/>]*)")
# Elements that never hold others. (`<div/>` opens a div in HTML: the slash does not close it.)
_VOID = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split()  # noqa: SIM905
)


def html_too_deep(block: str) -> int | None:
    """The offset of the first tag nested deeper than MAX_HTML_DEPTH in `block`, if any. Counts
    as a browser might at worst: every start tag but a void one opens a level (tags in code
    and comments too), every end tag closes one."""
    if block.count("<") <= MAX_HTML_DEPTH:
        return None
    depth = 0
    for match in _TAG.finditer(block):
        if match.group(1):
            depth = max(0, depth - 1)
        elif match.group(2).lower() not in _VOID:
            depth += 1
            if depth > MAX_HTML_DEPTH:
                return match.start()
    return None


def markers(text: str) -> tuple[re.Match[str] | None, re.Match[str] | None]:
    """The first START and END markers of a text, if any (parse() says what is wrong)."""
    return _START.search(text), _END.search(text)


def block_span(text: str) -> tuple[int, int] | None:
    """Where the text between the first START and END markers begins and ends; None without
    both markers in that order (parse() says what is wrong)."""
    start, end = markers(text)
    if start is None or end is None or end.start() < start.end():
        return None
    return start.end(), end.start()


def with_block(text: str, block: str) -> str:
    """A docs file's text with the text between its markers replaced by `block`."""
    span = block_span(text)
    if span is None:
        raise ValueError("the text has no ADDITIONAL INFORMATION block")
    return text[: span[0]] + block + text[span[1] :]


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


def read(path: Path, *, outside: bool = True, read: ReadBytes | None = None) -> Doc:
    return parse(path, read_text(path, read=read), outside=outside)


def read_text(path: Path, *, read: ReadBytes | None = None) -> str:
    """A docs file's text, within the size limit and strictly UTF-8, not parsed yet. `read`:
    how the bytes are got (a build's snapshot); by default the guarded read, which stops at the
    limit before reading more."""
    try:
        data = read(path) if read else read_input(path, limit=MAX_BYTES)
    except InputTooLarge as exc:
        raise _too_large(path, exc.size) from None
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror}") from None
    if len(data) > MAX_BYTES:
        raise _too_large(path, len(data))
    return decode_utf8(path, data)


def _too_large(path: Path, size: int) -> GbsiteError:
    return GbsiteError.at(
        path,
        None,
        f"{size / 1024 / 1024:.1f} MB, more than the {MAX_BYTES // 1024 // 1024} MB a docs file "
        "may have; a page's notes take a few KB: trim them",
    )


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
    return f" (lines {start}-{end})"


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

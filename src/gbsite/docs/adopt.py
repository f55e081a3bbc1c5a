"""`gbsite adopt DIR`: the notes of the previous (Jekyll) site's docs files, brought into ours.

That site wrote each `docs/gb/gbXXXX.md` in this shape, from PyTorch's registry of the day:

    ---                                   Jekyll's front matter
    layout: default
    ---
    # GB0029
    ## Graph-Break Type                   four sections, each with an italic line saying what
    *Short name describing what ...*      it holds, then the registry's text
    ...
    ## Additional Information
    <!-- ADDITIONAL INFORMATION START - Add custom information below this line -->
    the notes: written by hand          (older files: no markers; the section's body, up to
    <!-- ADDITIONAL INFORMATION END -->    the links at the end, is the notes)
    [Click here to add Additional Info](https://github.com/.../edit/main/docs/gb/gb0029.md)
    [Back to Registry](../index.html)

Only the notes are taken, byte for byte. The rest of that shape was generated, so leaving it
behind loses nothing; any other text outside the notes was written by a person, and the file is
refused as `sync` refuses such text. The registry text under the headings may come from
another release than ours and is not judged, with one exception: where it starts with a text
our registry has for that section of the id and goes on, what follows was added by hand (the
previous site lost such an edit).

Bad input (that text, marker errors, invalid UTF-8) stops the whole run: nothing is written.
Notes that differ from notes we already have are a conflict: reported, ours kept (or, with
--replace, theirs taken), and the other files are still adopted.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gbsite.config import Config
from gbsite.docs import files
from gbsite.errors import GbsiteError, Problem, display_path
from gbsite.fs.files import check_input
from gbsite.registry.model import Entry, Registry, Text

if TYPE_CHECKING:
    import jinja2

    from gbsite.registry.views import EntryView

INFO_HEADING = "## Additional Information"
# The previous site's sections, in its order: heading, the italic line under it, and how the
# section's registry text was written from an upstream item.
_SECTIONS: tuple[tuple[str, str], ...] = (
    ("## Graph-Break Type", "*Short name describing what triggered the graph break*"),
    ("## Context", "*Values or code snippet captured at the break point*"),
    ("## Explanation", "*Explanation of why the graph break was triggered*"),
    ("## Hints", "*Hints on how to resolve the graph break*"),
)
_HINTS = 3
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
_FOOTER = re.compile(
    r"\[Back to Registry\]\(\.\./index\.html\)"
    r"|\[Click here to add Additional Info\]\(https://github\.com/[\w.-]+/[\w.-]+/edit/"
    r"[\w./-]+/docs/gb/gb[0-9]{4}\.md\)"
)
_OWN_FORM = "<!-- gbsite:"  # the first line of the files gbsite writes


@dataclass(frozen=True, slots=True)
class Notes:
    """The hand-written block of one of the previous site's files."""

    path: Path
    block: str  # byte for byte
    line: int  # where it starts: the START marker, or the old form's heading


@dataclass
class Plan:
    """What adopt would write, and what it reports."""

    writes: dict[Path, str] = field(default_factory=dict)
    created: set[Path] = field(default_factory=set)
    replaced: set[str] = field(default_factory=set)  # ids whose notes replace ours
    unchanged: int = 0  # nothing to take: no notes, or the same as ours
    conflicts: list[Problem] = field(default_factory=list)  # ours kept
    problems: list[Problem] = field(default_factory=list)  # bad input: nothing is written
    skipped: list[Problem] = field(default_factory=list)  # ids the registry lacks: left alone

    @property
    def adopted(self) -> int:
        return len(self.writes)


# ---- one file of the previous site --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Line:
    number: int  # 1-based, in the file
    start: int  # offset of its first character
    end: int  # offset after its line break
    text: str  # trailing white space (and the \r of CRLF) removed


def _lines(text: str, offset: int = 0, number: int = 1) -> list[_Line]:
    out = []
    for raw in text[offset:].split("\n"):
        end = offset + len(raw) + 1
        out.append(_Line(number, offset, min(end, len(text)), raw.rstrip()))
        offset, number = end, number + 1
    return out


def read(path: Path, entry: Entry) -> Notes:
    """The notes of a file in the previous site's shape; anything else raises, located."""
    text = files.read_text(path)
    if text.startswith(_OWN_FORM):
        raise GbsiteError.at(
            path,
            1,
            "already in gbsite's form, not the previous site's: copy it into docs/gb/ instead",
        )
    start, end = files.markers(text)
    if start is not None or end is not None:
        doc = files.parse(path, text, outside=False)  # a missing, doubled or inverted marker
        assert start is not None and end is not None
        first, last = doc.block_lines
        notes = Notes(path, doc.block, first)
        # What shares a line with a marker counts as that line's text.
        before = _lines(text[: start.start()])
        after = _lines(text, end.end(), text.count("\n", 0, end.end()) + 1)
        where = f"between the ADDITIONAL INFORMATION markers (lines {first}-{last})"
    else:  # the oldest form: the section's body, up to the links at the end, is the notes
        lines = _lines(text)
        heading = next((i for i, line in enumerate(lines) if line.text == INFO_HEADING), None)
        if heading is None:
            notes = Notes(path, "", 1)
            before, after = lines, []
            where = f"under a new `{INFO_HEADING}` heading"
        else:
            footer = next(
                (i for i in range(heading + 1, len(lines)) if _FOOTER.fullmatch(lines[i].text)),
                len(lines),
            )
            body_end = lines[footer].start if footer < len(lines) else len(text)
            block = text[lines[heading].end : body_end]
            notes = Notes(path, block, lines[heading].number)
            before, after = lines[: heading + 1], lines[footer:]
            where = f"into the `{INFO_HEADING}` section (line {lines[heading].number})"
    lost = _hand_written(before, after, entry)
    if lost is not None:
        raise GbsiteError.at(
            path,
            lost.number,
            f"text outside the notes that the previous site did not generate: {lost.text!r}. "
            f"Only the notes are adopted, so this would be lost; move it {where} (or delete it "
            "to discard it), then run `gbsite adopt` again",
        )
    return notes


def _hand_written(before: list[_Line], after: list[_Line], entry: Entry) -> _Line | None:
    """The first line outside the notes that the previous site did not write, if any."""
    return min(_not_generated(before, after, entry), key=lambda line: line.number, default=None)


def _not_generated(before: list[_Line], after: list[_Line], entry: Entry) -> Iterator[_Line]:
    """Lines outside the notes that the previous site did not write (the first of them where
    the shape breaks, then any in the sections' text)."""
    written = [line for line in before if line.text]
    if written and written[0].text == "---":  # front matter: Jekyll's settings, not the page's
        closing = next((i for i, line in enumerate(written[1:], 1) if line.text == "---"), None)
        if closing is not None:
            written = written[closing + 1 :]
    section = -1  # index in _SECTIONS of the section we are in, -1 before the first
    state = "top"  # top, title, section, info (after INFO_HEADING), footer
    bodies: list[list[_Line]] = [[] for _ in _SECTIONS]
    headings = [heading for heading, _ in _SECTIONS]
    for line in written:
        if _FOOTER.fullmatch(line.text):
            state = "footer"
        elif state == "footer":
            yield line
            break
        elif line.text == INFO_HEADING and state != "info":
            state = "info"
        elif line.text in headings and state in ("top", "title", "section"):
            index = headings.index(line.text)
            if index <= section:  # a section again, or out of order: not what was generated
                yield line
                break
            section, state = index, "section"
        elif state == "top" and line.text == f"# {entry.id}":
            state = "title"
        elif state == "section" and _HEADING.match(line.text):
            yield line  # no registry text has a heading: a person wrote it
            break
        elif state == "section":
            bodies[section].append(line)
        else:
            yield line
            break
    yield from (line for line in after if line.text and not _FOOTER.fullmatch(line.text))
    for index, body in enumerate(bodies):
        added = _added_to_registry_text(index, body, entry)
        if added is not None:
            yield added


def _added_to_registry_text(section: int, body: list[_Line], entry: Entry) -> _Line | None:
    """The first line of a section's body after a text our registry has for it, if the body
    starts with one and goes on. A body that is none of our texts is the registry text of
    another release: not judged."""
    said = [line.text for line in body]
    if said and said[0] == _SECTIONS[section][1]:
        said, body = said[1:], body[1:]
    longest = 0
    for known in _texts(entry, section):
        if said == known:
            return None
        if known and said[: len(known)] == known:
            longest = max(longest, len(known))
    if not longest:
        return None
    if section == _HINTS:  # a hint our registry lacks is written as the site wrote its hints
        return next((line for line in body[longest:] if not line.text.startswith("- ")), None)
    return body[longest]


def _texts(entry: Entry, section: int) -> Iterator[list[str]]:
    """Each text of the id our registry has for a section, as the previous site wrote it, as
    its non-blank lines."""
    revisions: Iterable[Text] = (r.text for r in (*entry.history, *entry.replaced))
    for text in revisions:
        if section == 0:
            written = text.gb_type
        elif section == 1:
            written = text.context
        elif section == 2:
            written = text.explanation
        else:
            written = "\n".join(f"- {hint}" for hint in text.hints) or "*No hints provided.*"
        yield [line.rstrip() for line in written.split("\n") if line.strip()]


# ---- the folder, against docs/gb/ -----------------------------------------------------------


def _same(ours: str, theirs: str) -> bool:
    """Notes that differ only in line endings, trailing spaces or blank lines around them."""

    def normal(block: str) -> list[str]:
        lines = [line.rstrip() for line in block.split("\n")]
        while lines and not lines[0]:
            lines.pop(0)
        while lines and not lines[-1]:
            lines.pop()
        return lines

    return normal(ours) == normal(theirs)


def scan(cfg: Config, source: Path) -> tuple[dict[str, Path], list[Problem]]:
    """The previous site's docs files in `source` by id, and those that cannot be read."""
    if not source.is_dir():
        what = "not a folder" if source.exists() else "no such folder"
        raise GbsiteError(f"{source}: {what}; name the previous site's docs/gb/ folder")
    if source.resolve() == cfg.docs_dir.resolve():
        raise GbsiteError(
            f"{source}: the project's own docs folder; name the previous site's docs/gb/ folder"
        )
    found: dict[str, Path] = {}
    problems: list[Problem] = []
    for entry in sorted(os.scandir(source), key=lambda e: e.name):
        # GB0029.md is GB0029's too: Jekyll serves it (at its own URL), and on a file system
        # that ignores case it is the same file as gb0029.md.
        match = files.DOC_NAME.fullmatch(entry.name.lower())
        if match is None:
            continue  # the site's other files (index.md, _config.yml...): not notes
        path = Path(entry.path)
        try:
            check_input(path)  # a named pipe or a device would hang or flood the read
        except GbsiteError as exc:
            problems += exc.problems
            continue
        gb_id = f"GB{match.group(1)}"
        if path.is_file() and gb_id in found:  # which notes to keep is the user's call
            problems.append(
                Problem(
                    f"{found[gb_id].name} and {path.name} are both {gb_id}'s notes (their names "
                    "differ only in case); keep one of them, merged by hand, and run adopt again",
                    path,
                )
            )
        elif path.is_file():
            found[gb_id] = path
    if not found and not problems:
        raise GbsiteError(
            f"{source}: no gbXXXX.md files here; name the previous site's docs/gb/ folder"
        )
    return found, problems


def plan(cfg: Config, registry: Registry, source: Path, *, replace: bool = False) -> Plan:
    """Read every file of `source` and decide each id; write nothing."""
    from gbsite import templating
    from gbsite.docs import sync
    from gbsite.registry.views import entry_views

    theirs, problems = scan(cfg, source)
    result = Plan(problems=problems)
    ours, _others = files.scan(cfg.docs_dir)
    rendering: tuple[jinja2.Environment, dict[str, EntryView]] | None = None

    def created(gb_id: str, block: str) -> str:
        """The file sync would write for an id, with these notes (made ready on first use)."""
        nonlocal rendering
        if rendering is None:
            env = templating.environment(cfg.templates_dir, html=False)
            rendering = env, {v.id: v for v in entry_views(registry)}
        env, views = rendering
        return sync.render_doc(env, cfg, views[gb_id], block)

    for gb_id, path in theirs.items():
        entry = registry.entries.get(gb_id)
        if entry is None:
            result.skipped.append(
                Problem(
                    f"{gb_id} is not in the registry, so its notes are left alone; if the id is "
                    "in a newer PyTorch, import that registry first",
                    path,
                )
            )
            continue
        target = cfg.docs_dir / f"{entry.slug}.md"
        try:
            notes = read(path, entry)
            doc = files.read(target, outside=False) if gb_id in ours else None
        except GbsiteError as exc:
            result.problems += exc.problems
            continue
        if not notes.block.strip():
            result.unchanged += 1  # nothing written by hand
        elif doc is None:  # not synced yet
            result.writes[target] = created(gb_id, notes.block)
            result.created.add(target)
        elif not doc.has_content:
            result.writes[target] = files.with_block(doc.text, notes.block)
        elif _same(doc.block, notes.block):
            result.unchanged += 1
        elif replace:
            result.writes[target] = files.with_block(doc.text, notes.block)
            result.replaced.add(gb_id)
        else:
            first, last = doc.block_lines
            result.conflicts.append(
                Problem(
                    f"these notes differ from those of {display_path(target)} (lines "
                    f"{first}-{last}), which are kept; merge them there by hand, or run "
                    "`gbsite adopt --replace` to take these instead",
                    path,
                    notes.line,
                )
            )
    return result

"""Reading, validating and writing `registry/`.

Layout (documented in registry/README.md, with JSON Schemas in registry/schema/):

    registry/sources.yaml      the imported snapshots, oldest first
    registry/categories.yaml   categories and the canned hint texts that identify them
    registry/gb/GB0000.yaml    one file per id: lifecycle and every text it ever had

Loading validates everything and reports every problem as `path:line: message`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gbsite.registry import yamlio
from gbsite.errors import GbsiteError, Problem
from gbsite.fs.files import ReadBytes, check_input, decode_utf8, write_if_changed
from gbsite.registry.model import GB_ID, Category, Entry, Registry, Revision, Source, Text

SOURCES_FILE = "sources.yaml"
CATEGORIES_FILE = "categories.yaml"
ENTRIES_DIR = "gb"
ENTRY_FILE = re.compile(r"(GB[0-9]{4})\.yaml")
LABEL = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_@-]{0,63}")
SHA256 = re.compile(r"[0-9a-f]{64}")
CATEGORY_KEY = re.compile(r"[a-z][a-z0-9-]*")

ENTRY_HEADER = "# yaml-language-server: $schema=../schema/entry.schema.json\n"
SOURCES_HEADER = (
    "# yaml-language-server: $schema=schema/sources.schema.json\n"
    "# Registry snapshots imported with `gbsite import`, oldest first. Do not edit by hand.\n"
)

TEXT_FIELDS = ("gb_type", "context", "explanation", "hints")


def _kind(value: object) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


@dataclass
class _Checker:
    """Collects problems for one file as key paths; lines are looked up only if any exist."""

    path: Path
    text: str
    found: list[tuple[list[str | int], str]] = field(default_factory=list)

    def error(self, keypath: list[str | int], message: str) -> None:
        self.found.append((keypath, message))

    def problems(self) -> list[Problem]:
        where = yamlio.Locator(self.text)  # composed once for all of them
        return [Problem(msg, self.path, where.line(kp)) for kp, msg in self.found]

    def mapping(
        self,
        value: object,
        kp: list[str | int],
        required: Iterable[str],
        optional: Iterable[str] = (),
    ) -> dict[str, Any] | None:
        where = _where(kp)
        if not isinstance(value, dict):
            self.error(kp, f"{where} must be a mapping, not {_kind(value)}")
            return None
        required = tuple(required)
        allowed = required + tuple(optional)
        for key in value:
            if key not in allowed:
                self.error(
                    [*kp, key], f"unknown field {key!r} in {where} (allowed: {', '.join(allowed)})"
                )
        for key in required:
            if key not in value:
                self.error(kp, f"{where} is missing the field {key!r}")
        return value

    def string(
        self,
        value: object,
        kp: list[str | int],
        pattern: re.Pattern[str] | None = None,
        hint: str = "",
    ) -> str | None:
        if not isinstance(value, str):
            extra = "; quote it" if isinstance(value, int | float | bool) else ""
            extra = extra or ("; write '' for an empty text" if value is None else "")
            self.error(kp, f"{_where(kp)} must be a string, not {_kind(value)}{extra}")
            return None
        if pattern is not None and not pattern.fullmatch(value):
            self.error(kp, f"{_where(kp)} {value!r} is not valid{hint}")
            return None
        return value

    def count(self, value: object, kp: list[str | int]) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.error(kp, f"{_where(kp)} must be a whole number >= 0, not {value!r}")
            return None
        return value

    def label(
        self, value: object, kp: list[str | int], labels: dict[str, int], nullable: bool
    ) -> str | None:
        if value is None and nullable:
            return None
        label = self.string(value, kp)
        if label is not None and label not in labels:
            self.error(kp, f"{_where(kp)} {label!r} is not an imported source (see {SOURCES_FILE})")
            return None
        return label


def _where(kp: list[str | int]) -> str:
    if not kp:
        return "the file"
    out = ""
    for step in kp:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def _load_sources(path: Path, read: ReadBytes) -> list[Source]:
    if not path.exists():
        return []
    check_input(path)
    text = decode_utf8(path, read(path))
    data = yamlio.load(path, text)
    check = _Checker(path, text)
    sources: list[Source] = []
    top = check.mapping(data, [], ["sources"])
    items = top.get("sources") if top else None
    if top is not None and "sources" in top and not isinstance(items, list):
        check.error(["sources"], f"sources must be a list, not {_kind(items)}")
    seen: dict[str, int] = {}
    for i, item in enumerate(items if isinstance(items, list) else []):
        kp: list[str | int] = ["sources", i]
        m = check.mapping(item, kp, ["label", "sha256", "entries", "items"])
        if m is None:
            continue
        label = check.string(
            m.get("label"),
            [*kp, "label"],
            LABEL,
            " (use letters, digits and . + _ @ -, e.g. 2.15.0 or main@2026-11-20)",
        )
        sha = check.string(
            m.get("sha256"), [*kp, "sha256"], SHA256, " (expected 64 lower-case hex digits)"
        )
        entries = check.count(m.get("entries"), [*kp, "entries"])
        n_items = check.count(m.get("items"), [*kp, "items"])
        if label is not None and label in seen:
            check.error(
                [*kp, "label"], f"source {label!r} is listed twice (also item {seen[label]})"
            )
        if label is not None:
            seen[label] = i
        if label and sha and entries is not None and n_items is not None:
            sources.append(Source(label, sha, entries, n_items))
    if check.found:
        raise GbsiteError(check.problems())
    return sources


def _load_categories(path: Path, read: ReadBytes) -> list[Category]:
    if not path.exists():
        raise GbsiteError.at(path, None, "missing: the category table is part of the registry")
    check_input(path)
    text = decode_utf8(path, read(path))
    data = yamlio.load(path, text)
    check = _Checker(path, text)
    top = check.mapping(data, [], ["categories"])
    items = top.get("categories") if top else None
    if top is not None and "categories" in top and not isinstance(items, list):
        check.error(["categories"], f"categories must be a list, not {_kind(items)}")
    out: list[Category] = []
    keys: set[str] = set()
    texts: dict[str, str] = {}
    for i, item in enumerate(items if isinstance(items, list) else []):
        kp: list[str | int] = ["categories", i]
        m = check.mapping(item, kp, ["key", "constant", "label", "summary", "texts"])
        if m is None:
            continue
        key = check.string(
            m.get("key"), [*kp, "key"], CATEGORY_KEY, " (lower-case words joined by -)"
        )
        constant = check.string(m.get("constant"), [*kp, "constant"])
        label = check.string(m.get("label"), [*kp, "label"])
        summary = check.string(m.get("summary"), [*kp, "summary"])
        raw_texts = m.get("texts")
        cat_texts: list[str] = []
        if not isinstance(raw_texts, list) or not raw_texts:
            check.error(
                [*kp, "texts"], f"{_where([*kp, 'texts'])} must be a non-empty list of strings"
            )
        else:
            for j, t in enumerate(raw_texts):
                s = check.string(t, [*kp, "texts", j])
                if s is None:
                    continue
                if s.strip() in texts:
                    check.error([*kp, "texts", j], f"text already identifies {texts[s.strip()]!r}")
                texts[s.strip()] = key or "?"
                cat_texts.append(s)
        if key is not None and key in keys:
            check.error([*kp, "key"], f"category {key!r} is defined twice")
        if key is not None:
            keys.add(key)
        if key and constant and label and summary is not None and cat_texts:
            out.append(Category(key, constant, label, summary, tuple(cat_texts)))
    if check.found:
        raise GbsiteError(check.problems())
    return out


def _revision(
    check: _Checker, value: object, kp: list[str | int], labels: dict[str, int], replaced: bool
) -> Revision | None:
    required = [*TEXT_FIELDS, "current_since", *(["last_seen"] if replaced else [])]
    m = check.mapping(value, kp, required)
    if m is None:
        return None
    gb_type = check.string(m.get("gb_type"), [*kp, "gb_type"])
    context = check.string(m.get("context"), [*kp, "context"])
    explanation = check.string(m.get("explanation"), [*kp, "explanation"])
    raw_hints = m.get("hints")
    hints: list[str] | None = []
    if not isinstance(raw_hints, list):
        check.error(
            [*kp, "hints"],
            f"{_where([*kp, 'hints'])} must be a list of strings, "
            f"not {_kind(raw_hints)} (write [] for none)",
        )
        hints = None
    else:
        for j, h in enumerate(raw_hints):
            s = check.string(h, [*kp, "hints", j])
            if s is None:
                hints = None
            elif hints is not None:
                hints.append(s)
    since = check.label(m.get("current_since"), [*kp, "current_since"], labels, nullable=True)
    last_seen = None
    if replaced:
        last_seen = check.label(m.get("last_seen"), [*kp, "last_seen"], labels, nullable=False)
        if since is not None and last_seen is not None and labels[since] > labels[last_seen]:
            check.error(
                [*kp, "last_seen"], f"last_seen {last_seen!r} is before current_since {since!r}"
            )
    if gb_type is None or context is None or explanation is None or hints is None:
        return None
    return Revision(Text(gb_type, context, explanation, tuple(hints)), since, last_seen)


def _load_entry(
    path: Path, expected_id: str, labels: dict[str, int], file_ids: set[str], read: ReadBytes
) -> tuple[Entry | None, list[Problem]]:
    text = decode_utf8(path, read(path))
    data = yamlio.load(path, text)
    check = _Checker(path, text)
    m = check.mapping(data, [], ["id", "added", "removed", "history"], ["replaced"])
    if m is None:
        return None, check.problems()
    gb_id = check.string(m.get("id"), ["id"], GB_ID, " (expected GB followed by four digits)")
    if gb_id is not None and gb_id != expected_id:
        check.error(
            ["id"],
            f"id {gb_id!r} does not match the file name {path.name}"
            + (f" (duplicate: {gb_id}.yaml defines it)" if gb_id in file_ids else ""),
        )
    added = check.label(m.get("added"), ["added"], labels, nullable=False)
    removed = check.label(m.get("removed"), ["removed"], labels, nullable=True)
    if added is not None and removed is not None and labels[removed] <= labels[added]:
        check.error(["removed"], f"removed {removed!r} is not after added {added!r}")
    history: list[Revision] = []
    raw = m.get("history")
    if "history" in m and (not isinstance(raw, list) or not raw):
        check.error(["history"], "history must be a non-empty list (newest text first)")
    for i, item in enumerate(raw if isinstance(raw, list) else []):
        rev = _revision(check, item, ["history", i], labels, replaced=False)
        if rev is not None:
            history.append(rev)
    if history and history[0].current_since is None:
        check.error(
            ["history", 0, "current_since"],
            "the current text (first history item) needs current_since",
        )
    replaced: list[Revision] = []
    raw_r = m.get("replaced", [])
    if not isinstance(raw_r, list):
        check.error(["replaced"], f"replaced must be a list, not {_kind(raw_r)}")
    for i, item in enumerate(raw_r if isinstance(raw_r, list) else []):
        rev = _revision(check, item, ["replaced", i], labels, replaced=True)
        if rev is not None:
            replaced.append(rev)
    if check.found or gb_id is None or added is None:
        return None, check.problems()
    return Entry(gb_id, added, removed, history, replaced), []


def entry_files(folder: Path) -> tuple[list[tuple[str, Path]], list[Problem]]:
    """(id, path) of every entry file, sorted; anything else in the folder is a problem."""
    found: list[tuple[str, Path]] = []
    problems: list[Problem] = []
    if not folder.is_dir():
        return found, problems
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue  # editor swap files, our own temp files
        match = ENTRY_FILE.fullmatch(path.name)
        try:
            check_input(path)  # a named pipe or a link out of the project
        except GbsiteError as exc:
            problems += exc.problems
            continue
        if match is None or not path.is_file():
            problems.append(
                Problem("unexpected file; entry files are named like GB0025.yaml", path)
            )
            continue
        found.append((match.group(1), path))
    return found, problems


def load(folder: Path, *, must_exist: bool = True, read: ReadBytes = Path.read_bytes) -> Registry:
    """Load and validate the whole registry; raises GbsiteError listing every problem."""
    if not folder.is_dir():
        if must_exist:
            raise GbsiteError.at(folder, None, "no registry here; create it with `gbsite import`")
        return Registry([], {}, [])
    problems: list[Problem] = []
    sources: list[Source] = []
    categories: list[Category] = []
    try:
        sources = _load_sources(folder / SOURCES_FILE, read)
    except GbsiteError as exc:
        problems.extend(exc.problems)
    try:
        categories = _load_categories(folder / CATEGORIES_FILE, read)
    except GbsiteError as exc:
        problems.extend(exc.problems)
    labels = {s.label: i for i, s in enumerate(sources)}
    files, file_problems = entry_files(folder / ENTRIES_DIR)
    problems.extend(file_problems)
    entries: dict[str, Entry] = {}
    file_ids = {gb_id for gb_id, _ in files}
    for gb_id, path in files:
        try:
            entry, entry_problems = _load_entry(path, gb_id, labels, file_ids, read)
        except GbsiteError as exc:
            entry, entry_problems = None, exc.problems
        problems.extend(entry_problems)
        if entry is not None:
            entries[gb_id] = entry
    if not problems:
        problems.extend(_check_totals(folder, sources, entries))
    if problems:
        raise GbsiteError(problems)
    return Registry(sources, entries, categories)


def _check_totals(folder: Path, sources: list[Source], entries: dict[str, Entry]) -> list[Problem]:
    """The newest snapshot's counts must match the current entries: catches lost files."""
    if not sources:
        if entries:
            return [Problem("entries exist but no source is listed", folder / SOURCES_FILE)]
        return []
    newest = sources[-1]
    current = [e for e in entries.values() if not e.is_removed]
    items = sum(len(e.history) for e in current)
    if len(current) == newest.entries and items == newest.items:
        return []
    path = folder / SOURCES_FILE
    text = path.read_text(encoding="utf-8")
    line = yamlio.locate(text, ["sources", len(sources) - 1])
    return [
        Problem(
            f"the newest source {newest.label!r} has {newest.entries} ids and {newest.items} "
            f"texts, but {folder / ENTRIES_DIR} has {len(current)} current ids with {items} texts; "
            "was an entry file deleted or edited by hand?",
            path,
            line,
        )
    ]


# ---- writing -------------------------------------------------------------------------------


def _revision_data(rev: Revision, replaced: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "gb_type": rev.text.gb_type,
        "context": rev.text.context,
        "explanation": rev.text.explanation,
        "hints": list(rev.text.hints),
        "current_since": rev.current_since,
    }
    if replaced:
        data["last_seen"] = rev.last_seen
    return data


def entry_yaml(entry: Entry) -> str:
    data: dict[str, Any] = {
        "id": entry.id,
        "added": entry.added,
        "removed": entry.removed,
        "history": [_revision_data(r, False) for r in entry.history],
    }
    if entry.replaced:
        data["replaced"] = [_revision_data(r, True) for r in entry.replaced]
    return yamlio.dump(data, ENTRY_HEADER)


def sources_yaml(sources: list[Source]) -> str:
    data = {
        "sources": [
            {"label": s.label, "sha256": s.sha256, "entries": s.entries, "items": s.items}
            for s in sources
        ]
    }
    return yamlio.dump(data, SOURCES_HEADER)


def save(
    registry: Registry, folder: Path, on_write: Callable[[Path], None] | None = None
) -> list[Path]:
    """Write every file whose bytes changed. Entries first, sources.yaml last: it is the record
    of what was imported, so it only claims a snapshot once the entries reflect it."""
    written: list[Path] = []
    targets = [
        (folder / ENTRIES_DIR / f"{e.id}.yaml", entry_yaml(e)) for e in registry.entries.values()
    ]
    targets.append((folder / SOURCES_FILE, sources_yaml(registry.sources)))
    for path, text in targets:
        if write_if_changed(path, text.encode("utf-8")):
            written.append(path)
            if on_write is not None:
                on_write(path)
    return written

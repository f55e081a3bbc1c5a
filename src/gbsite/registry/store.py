"""Reading and writing `registry/` (layout in model.py, each file's rules in validate.py).

Loading validates every file, then checks them against each other, and reports every problem
as `path:line: message`. Saving writes only files whose bytes changed. The snapshots kept in
`registry/snapshots/` are checked by `gbsite check` only (snapshot_problems): nothing else reads
them, and every command loads the registry.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gbsite.errors import GbsiteError, Problem
from gbsite.fs.files import (
    ReadBytes,
    check_input,
    decode_utf8,
    read_input,
    read_input_text,
    write_if_changed,
)
from gbsite.registry import validate, yamlio
from gbsite.registry.model import (
    CATEGORIES_FILE,
    ENTRY_FILE,
    RESOLVED_DIR,
    SNAPSHOTS_DIR,
    SOURCES_FILE,
    Category,
    Entry,
    Registry,
    Resolution,
    Revision,
    Source,
)
from gbsite.registry.model import ENTRIES_DIR as ENTRIES_DIR
from gbsite.registry.validate import LABEL as LABEL

ENTRY_HEADER = "# yaml-language-server: $schema=../schema/entry.schema.json\n"
RESOLVED_HEADER = (
    "# yaml-language-server: $schema=../schema/resolved.schema.json\n"
    "# The fields of the snapshot imported as {label} whose text is a Python name, with the text\n"
    "# the torch source of that release gives the name. Written by `gbsite import` and\n"
    "# `gbsite release resolve`. Do not edit by hand.\n"
)
SOURCES_HEADER = (
    "# yaml-language-server: $schema=schema/sources.schema.json\n"
    "# Registry snapshots imported with `gbsite import`, oldest first. Do not edit by hand.\n"
)


def _read_text(path: Path, read: ReadBytes) -> str:
    check_input(path)
    return decode_utf8(path, read(path))


def _load_sources(path: Path, read: ReadBytes) -> list[Source]:
    return validate.sources(path, _read_text(path, read)) if path.exists() else []


def _load_categories(path: Path, read: ReadBytes) -> list[Category]:
    if not path.exists():
        raise GbsiteError.at(path, None, "missing: the category table is part of the registry")
    return validate.categories(path, _read_text(path, read))


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


def load(folder: Path, *, must_exist: bool = True, read: ReadBytes = read_input) -> Registry:
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
            # entry_files has already refused what is not a plain file in the project
            text = decode_utf8(path, read(path))
            entry, entry_problems = validate.entry(path, text, gb_id, labels, file_ids)
        except GbsiteError as exc:
            entry, entry_problems = None, exc.problems
        problems.extend(entry_problems)
        if entry is not None:
            entries[gb_id] = entry
    if not problems:
        problems.extend(_check_totals(folder, sources, entries))
    resolutions: dict[str, Resolution] = {}
    if not problems:
        resolutions, resolved_problems = _load_resolutions(folder, sources, entries, read)
        problems.extend(resolved_problems)
    if problems:
        raise GbsiteError(problems)
    return Registry(sources, entries, categories, resolutions)


def _load_resolutions(
    folder: Path, sources: list[Source], entries: dict[str, Entry], read: ReadBytes
) -> tuple[dict[str, Resolution], list[Problem]]:
    """registry/resolved/LABEL.yaml of the snapshots that have one, in the order of sources.
    A file of a label not imported is left alone here (rebuilding the registry imports the
    snapshots one by one beside them) and reported by `gbsite check` (resolved_problems)."""
    where = folder / RESOLVED_DIR
    if not where.is_dir():
        return {}, []
    labels = [s.label for s in sources]
    found: dict[str, Resolution] = {}
    problems: list[Problem] = []
    for path in sorted(where.iterdir()):
        label = path.name.removesuffix(".yaml")
        if path.name.startswith(".") or label not in labels or not path.name.endswith(".yaml"):
            continue
        try:
            found[label] = validate.resolution(path, _read_text(path, read), label, entries)
        except GbsiteError as exc:
            problems.extend(exc.problems)
    return {label: found[label] for label in labels if label in found}, problems


def load_sources(folder: Path) -> list[Source]:
    """registry/sources.yaml, validated: the imported labels, oldest first."""
    return _load_sources(folder / SOURCES_FILE, read_input)


def load_entry(folder: Path, gb_id: str) -> Registry | None:
    """The registry with one entry (and all its sources and categories), validated as load()
    validates it, or None when the id has no file: `gbsite show` needs one entry, and reading
    one file rather than ~600 keeps it fast. The totals of sources.yaml are not checked."""
    path = folder / ENTRIES_DIR / f"{gb_id}.yaml"
    if not folder.is_dir():
        raise GbsiteError.at(folder, None, "no registry here; create it with `gbsite import`")
    if not path.is_file():
        return None
    sources = _load_sources(folder / SOURCES_FILE, read_input)
    categories = _load_categories(folder / CATEGORIES_FILE, read_input)
    labels = {s.label: i for i, s in enumerate(sources)}
    file_ids = {gb_id for gb_id, _ in entry_files(folder / ENTRIES_DIR)[0]}
    entry, problems = validate.entry(path, _read_text(path, read_input), gb_id, labels, file_ids)
    if problems or entry is None:
        raise GbsiteError(problems)
    return Registry(sources, {gb_id: entry}, categories)


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
    text = read_input_text(path)
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


def resolution_yaml(resolution: Resolution) -> str:
    data = {
        "torch": resolution.torch,
        "resolved": [
            {"id": r.id, "field": r.field, "name": r.name, "source": r.source, "text": r.text}
            for r in sorted(resolution.resolved, key=lambda r: (r.id, r.field, r.name))
        ],
    }
    if resolution.raised:
        data["raised"] = [
            {"id": r.id, "source": f"{r.source}:{r.line}", "function": r.function}
            for r in sorted(resolution.raised, key=lambda r: (r.id, r.source, r.line))
        ]
    return yamlio.dump(data, RESOLVED_HEADER.format(label=resolution.label))


def resolution_path(folder: Path, label: str) -> Path:
    return folder / RESOLVED_DIR / f"{label}.yaml"


def snapshot_path(folder: Path, label: str) -> Path:
    """Where the snapshot imported as `label` is kept (labels are safe file names: LABEL)."""
    return folder / SNAPSHOTS_DIR / f"{label}.json.gz"


def compress(data: bytes) -> bytes:
    """`data` as a gzip file whose bytes depend on `data` alone: no file name, time 0, the best
    level (gzip.compress writes the same, but its header has changed between Python versions).
    So importing the same snapshot gives the same file, and git sees no change."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflate.compress(data) + deflate.flush()
    # magic, deflate, no flags, mtime 0, "best compression", OS unknown (RFC 1952)
    header = b"\x1f\x8b\x08\x00" + b"\x00\x00\x00\x00" + b"\x02\xff"
    return header + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def snapshot_problems(folder: Path, sources: list[Source]) -> list[Problem]:
    """Every source of sources.yaml has its snapshot, whose JSON has the sha256 listed there,
    and the folder holds nothing else: the snapshots are what the registry is rebuilt from."""
    from gbsite.registry import fetch

    problems: list[Problem] = []
    listed: set[str] = set()
    for source in sources:
        path = snapshot_path(folder, source.label)
        listed.add(path.name)
        if not path.exists():
            problems.append(
                Problem(
                    f"missing: the snapshot imported as {source.label} (in sources.yaml); "
                    "restore it from git, or import that snapshot again into a new registry",
                    path,
                )
            )
            continue
        try:
            data = fetch.gunzip(path, read_input(path), fetch.Limits())
        except GbsiteError as exc:
            problems += exc.problems
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest != source.sha256:
            problems.append(
                Problem(
                    f"corrupt: its JSON has sha256 {digest[:12]}..., sources.yaml lists "
                    f"{source.sha256[:12]}... for {source.label}; restore it from git",
                    path,
                )
            )
    extra = folder / SNAPSHOTS_DIR
    for path in sorted(extra.iterdir()) if extra.is_dir() else []:
        if path.name not in listed and not path.name.startswith("."):
            problems.append(
                Problem("not the snapshot of a source in sources.yaml; remove it", path)
            )
    return problems


def resolved_problems(folder: Path, sources: list[Source]) -> list[Problem]:
    """Files in registry/resolved/ that are not LABEL.yaml of an imported snapshot."""
    where = folder / RESOLVED_DIR
    labels = {f"{s.label}.yaml" for s in sources}
    return [
        Problem("not the resolved texts of a source in sources.yaml (LABEL.yaml); remove it", p)
        for p in (sorted(where.iterdir()) if where.is_dir() else [])
        if p.name not in labels and not p.name.startswith(".")
    ]


def save(
    registry: Registry,
    folder: Path,
    on_write: Callable[[Path], None] | None = None,
    snapshots: Mapping[str, bytes] | None = None,
) -> list[Path]:
    """Write every file whose bytes changed, and `snapshots` (label -> the JSON imported) into
    registry/snapshots/. Entries and snapshots first, sources.yaml last: it is the record of
    what was imported, so it only claims a snapshot once the entries reflect it."""
    written: list[Path] = []
    targets = [
        (folder / ENTRIES_DIR / f"{e.id}.yaml", entry_yaml(e).encode("utf-8"))
        for e in registry.entries.values()
    ]
    for label, data in (snapshots or {}).items():
        targets.append((snapshot_path(folder, label), compress(data)))
    for label, resolution in registry.resolutions.items():
        targets.append((resolution_path(folder, label), resolution_yaml(resolution).encode()))
    targets.append((folder / SOURCES_FILE, sources_yaml(registry.sources).encode("utf-8")))
    for path, data in targets:
        if write_if_changed(path, data):
            written.append(path)
            if on_write is not None:
                on_write(path)
    return written

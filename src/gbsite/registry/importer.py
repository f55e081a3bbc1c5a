"""`gbsite import`: read an upstream registry snapshot and merge it into `registry/`.

The lifecycle of each id is derived from importing snapshots in release order, so snapshots must
arrive oldest first; an older one is refused rather than guessed into place.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gbsite import releases
from gbsite.errors import GbsiteError, Problem
from gbsite.fs.files import InputTooLarge, read_input
from gbsite.registry import fetch, resolve
from gbsite.registry.model import GB_ID, Entry, Registry, Resolution, Revision, Source, Text
from gbsite.registry.torchtree import TorchTree
from gbsite.registry.validate import LABEL

WHEEL_MEMBER = "torch/_dynamo/graph_break_registry.json"
UPSTREAM_KEYS = ("Gb_type", "Context", "Explanation", "Hints")


@dataclass(frozen=True, slots=True)
class UpstreamSnapshot:
    """A parsed upstream registry file: id -> texts, newest first."""

    origin: str  # what the user gave us, for messages
    label: str | None  # inferred from a wheel or file name, if possible
    sha256: str
    texts: dict[str, list[Text]]
    data: bytes = b""  # the JSON itself, kept in registry/snapshots/ by the import
    wheel: bytes = b""  # a wheel's bytes: its torch source resolves the fields that are names

    @property
    def items(self) -> int:
        return sum(len(v) for v in self.texts.values())


@dataclass(frozen=True, slots=True)
class ImportResult:
    label: str
    added: list[str]
    changed: list[str]
    removed: list[str]
    skipped_reason: str | None = None


def _label_from_name(name: str) -> str | None:
    """`torch-2.15.0-cp312-...whl` or `torch-2.15.0.json` -> `2.15.0` (local `+cpu` dropped);
    a snapshot kept in registry/snapshots/ is named by its label: `2.15.0.json.gz`,
    `main@2026-11-20.json.gz`."""
    match = re.match(r"torch-(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?)(?:\+[\w.]+)?[-.]", name)
    if match:
        return match.group(1)
    stem = re.sub(r"\.json(\.gz)?$", "", name)
    if stem != name and (releases.version(stem) or releases.date(stem)):
        return stem
    return None


def read_source(source: str, limits: fetch.Limits | None = None) -> UpstreamSnapshot:
    """Read a registry JSON file (optionally gzipped), an http(s) URL of one, or a PyTorch wheel,
    within `limits` (fetch.py).

    The sha256 is of the JSON itself, so a gzipped copy is recognised as the same snapshot.
    """
    limits = limits or fetch.Limits()
    name = source.rsplit("/", 1)[-1].split("?")[0]
    if re.match(r"https?://", source):
        data = fetch.download(source, limits)
        origin_path = None
    else:
        origin_path = Path(source)
        try:
            data = _read_file(origin_path, limits)
        except FileNotFoundError:
            raise GbsiteError.at(origin_path, None, "no such file") from None
        except OSError as exc:
            raise GbsiteError.at(origin_path, None, f"cannot read: {exc.strerror}") from None
    where = origin_path or Path(source)
    wheel = b""
    if name.endswith(".whl"):
        wheel, data = data, fetch.wheel_member(where, data, WHEEL_MEMBER, limits)
    elif data[:2] == b"\x1f\x8b":  # gzip magic: the compressed copies under tests/data/upstream
        data = fetch.gunzip(where, data, limits)
    elif len(data) > limits.expanded:
        raise GbsiteError.at(where, None, "larger than --max-json; is it a registry?")
    texts = parse_registry_json(where, data)
    sha256 = hashlib.sha256(data).hexdigest()
    return UpstreamSnapshot(source, _label_from_name(name), sha256, texts, data, wheel)


def _read_file(path: Path, limits: fetch.Limits) -> bytes:
    """A local source: a regular file (not a FIFO or a device) no larger than a download."""
    try:
        # A file the user named: it may be anywhere (root "/"), but it is read the guarded way.
        return read_input(path, root=Path(path.absolute().anchor), limit=limits.download)
    except InputTooLarge:
        raise GbsiteError.at(path, None, "larger than --max-download; is it a registry?") from None


_STRING = re.compile(r'("(?:[^"\\]|\\.)*")(\s*:)?', re.S)


class KeyLines:
    """The lines of every object key of a JSON text, found in one pass when first needed (a
    search per problem made a registry with thousands of bad ids take minutes)."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self._lines: dict[str, list[int]] | None = None

    def of(self, key: str) -> list[int]:
        if self._lines is None:
            self._lines = {}
            line, pos = 1, 0
            for match in _STRING.finditer(self.raw):
                if match.group(2) is None:
                    continue  # a string value, not a key
                line += self.raw.count("\n", pos, match.start())
                pos = match.start()
                try:
                    name = json.loads(match.group(1))
                except ValueError:
                    continue
                self._lines.setdefault(name, []).append(line)
        return self._lines.get(key, [])

    def first(self, key: str) -> int | None:
        lines = self.of(key)
        return lines[0] if lines else None


def parse_registry_json(path: Path, data: bytes) -> dict[str, list[Text]]:
    """Validate the upstream shape strictly: any surprise there is better reported than guessed."""
    doubled: list[str] = []

    def no_doubles(pairs: list[tuple[str, object]]) -> dict[str, object]:
        seen: dict[str, object] = {}
        for key, value in pairs:
            if key in seen:
                doubled.append(key)
            seen[key] = value
        return seen

    try:
        raw = data.decode("utf-8")
        doc = json.loads(raw, object_pairs_hook=no_doubles)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise GbsiteError.at(path, line, "invalid UTF-8 in registry JSON") from None
    except json.JSONDecodeError as exc:
        raise GbsiteError.at(path, exc.lineno, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise GbsiteError.at(path, 1, "JSON nested too deeply to be a registry") from None
    except ValueError as exc:  # a number too long for Python (more than 4,300 digits)
        long_number = re.search(r"[0-9]{4000,}", raw)
        at = raw.count("\n", 0, long_number.start()) + 1 if long_number else None
        raise GbsiteError.at(path, at, f"invalid JSON: {exc}".split(";")[0]) from None
    lines = KeyLines(raw)
    if doubled:
        twice = []
        for key in dict.fromkeys(doubled):
            found = lines.of(key)
            where = f" (lines {', '.join(map(str, found))})" if len(found) > 1 else ""
            first = found[0] if found else None
            twice.append(
                Problem(f"{key} appears twice{where}; a registry has each key once", path, first)
            )
        raise GbsiteError(twice)
    if not isinstance(doc, dict):
        raise GbsiteError.at(path, 1, "expected a JSON object keyed by graph-break id")
    problems: list[Problem] = []
    out: dict[str, list[Text]] = {}
    for gb_id, items in doc.items():

        def bad(message: str, gb_id: str = gb_id) -> None:
            problems.append(Problem(f"{gb_id}: {message}", path, lines.first(gb_id)))

        if not GB_ID.fullmatch(gb_id):
            bad("not a graph-break id (expected GB followed by four digits)")
            continue
        if not isinstance(items, list) or not items:
            bad("expected a non-empty list of items")
            continue
        texts: list[Text] = []
        for i, item in enumerate(items):
            if not isinstance(item, dict) or set(item) != set(UPSTREAM_KEYS):
                keys = sorted(item) if isinstance(item, dict) else type(item).__name__
                bad(f"item {i} must have exactly the keys {', '.join(UPSTREAM_KEYS)} (has {keys})")
                continue
            strings = [item[k] for k in UPSTREAM_KEYS[:3]]
            hints = item["Hints"]
            if not all(isinstance(s, str) for s in strings):
                bad(f"item {i}: Gb_type, Context and Explanation must be strings")
                continue
            if not isinstance(hints, list) or not all(isinstance(h, str) for h in hints):
                bad(f"item {i}: Hints must be a list of strings")
                continue
            if not all(_is_unicode(t) for t in (*strings, *hints)):
                bad(f"item {i}: a text has a lone surrogate (a \\udXXX escape), not valid Unicode")
                continue
            texts.append(Text(strings[0], strings[1], strings[2], tuple(hints)))
        out[gb_id] = texts
    if problems:
        raise GbsiteError(problems)
    return out


def _is_unicode(text: str) -> bool:
    """False for text with lone surrogates, which no file can hold as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_order(registry: Registry, label: str) -> None:
    """Refuse a snapshot older than one already imported: its lifecycle would be wrong. Releases
    are compared with releases and dated snapshots with dated snapshots: a release comes out
    after snapshots of main that are newer than its branch, and is imported after them."""
    for kind, key in (("release", releases.version), ("snapshot", releases.date)):
        new = key(label)
        if new is None:
            continue
        newer = [s.label for s in registry.sources if (k := key(s.label)) is not None and k > new]
        if newer:
            raise GbsiteError(
                f"cannot import {kind} {label} after {newer[-1]}: snapshots must be imported "
                "oldest first, because each id's lifecycle is derived from the import order. "
                "To insert an older release, import all of them again in order into an empty "
                "registry (see docs/maintaining.md, 'Importing a registry')."
            )


def merge(
    registry: Registry, snapshot: UpstreamSnapshot, label: str
) -> tuple[Registry, ImportResult]:
    """Return the registry with `snapshot` imported as release `label`, and what changed."""
    labels = registry.labels
    previous = labels[-1] if labels else None
    added: list[str] = []
    changed: list[str] = []
    removed: list[str] = []
    entries: dict[str, Entry] = {}
    for gb_id in sorted(set(registry.entries) | set(snapshot.texts)):
        old = registry.entries.get(gb_id)
        texts = snapshot.texts.get(gb_id)
        if texts is None:
            assert old is not None
            if old.removed is None:
                removed.append(gb_id)
                old = Entry(old.id, old.added, label, old.history, old.replaced)
            entries[gb_id] = old
        elif old is None:
            added.append(gb_id)
            history = [Revision(t, label if i == 0 else None) for i, t in enumerate(texts)]
            entries[gb_id] = Entry(gb_id, label, None, history)
        else:
            last_present = (
                previous if old.removed is None else labels[labels.index(old.removed) - 1]
            )
            entry = _merge_entry(old, texts, label, last_present)
            if entry.current != old.current or old.removed is not None:
                changed.append(gb_id)
            entries[gb_id] = entry
    source = Source(label, snapshot.sha256, len(snapshot.texts), snapshot.items)
    new = Registry(
        [*registry.sources, source], entries, registry.categories, dict(registry.resolutions)
    )
    return new, ImportResult(label, added, changed, removed)


def _merge_entry(old: Entry, texts: list[Text], label: str, last_present: str | None) -> Entry:
    # Texts are matched by content, as a multiset: upstream lists can hold the same text twice
    # (after rewriting an old item in place), and their positions carry no identity.
    pool: list[tuple[Revision, bool]] = [(r, False) for r in old.history]
    pool += [(r, True) for r in old.replaced]
    history: list[Revision] = []
    for i, text in enumerate(texts):
        match = next((p for p in pool if p[0].text == text), None)
        since = None
        if match is not None:
            pool.remove(match)
            since = match[0].current_since
        if i == 0 and (match is None or match[0] is not old.history[0]):
            since = label  # it became the current text in this release
        history.append(Revision(text, since))
    # What upstream no longer lists is kept, newest first, with the last release that had it.
    replaced = [Revision(r.text, r.current_since, last_present) for r, was in pool if not was]
    replaced += [r for r, was in pool if was]
    return Entry(old.id, old.added, None, history, replaced)


def import_snapshot(
    registry: Registry, snapshot: UpstreamSnapshot, label: str | None
) -> tuple[Registry, ImportResult]:
    label = label or snapshot.label
    if label is None:
        raise GbsiteError(
            f"{snapshot.origin}: cannot tell which release this is; pass --label "
            "(for example --label 2.15.0, or --label main@2026-11-20 for a snapshot of main)"
        )
    if not LABEL.fullmatch(label):
        raise GbsiteError(f"--label {label!r}: use letters, digits and . + _ @ - only")
    for source in registry.sources:
        if source.label == label and source.sha256 != snapshot.sha256:
            raise GbsiteError(
                f"{snapshot.origin}: a different snapshot was already imported as {label}; "
                "choose another --label"
            )
    same = [s.label for s in registry.sources if s.sha256 == snapshot.sha256]
    # A snapshot seen before changes nothing, unless it is a release not imported yet: the
    # examples need every release as a label, even one whose registry equals a snapshot of main.
    if same and (label in same or releases.version(label) is None):
        return registry, ImportResult(
            label, [], [], [], f"identical to {same[-1]}, already imported; nothing to do"
        )
    check_order(registry, label)
    return merge(registry, snapshot, label)


def with_resolution(
    registry: Registry, label: str, texts: dict[str, list[Text]], tree: TorchTree
) -> tuple[Registry, resolve.Outcome]:
    """The registry with the fields of snapshot `label` that are Python names resolved from
    `tree`, the torch source of that release (registry/resolved/LABEL.yaml)."""
    if releases.version(label) is not None and releases.version(tree.version) is not None:
        # A patch release keeps its minor release's registry (and its texts).
        have, want = releases.version(tree.version), releases.version(label)
        assert have is not None and want is not None
        if have[:2] != want[:2] or have < want:
            raise GbsiteError(
                f"the torch source given is torch {tree.version}, not {label}: resolve a "
                "snapshot with the source of its own release"
            )
    from gbsite.registry import sites

    outcome = resolve.resolve(tree, texts)
    resolutions = dict(registry.resolutions)
    raised = tuple(sites.raised(tree, texts, outcome.skipped))
    resolutions[label] = Resolution(label, outcome.torch, tuple(outcome.resolved), raised)
    order = [s.label for s in registry.sources]
    ordered = {k: resolutions[k] for k in order if k in resolutions}
    return Registry(registry.sources, registry.entries, registry.categories, ordered), outcome


def upstream_json(registry: Registry) -> dict[str, Any]:
    """The newest snapshot in upstream's shape: current ids, their whole upstream lists."""
    return {
        gb_id: [rev.text.to_upstream() for rev in entry.history]
        for gb_id, entry in registry.entries.items()
        if not entry.is_removed
    }


def dumps_upstream(registry: Registry) -> str:
    # indent=2 without ASCII escaping is the formatting PyTorch's own file uses.
    return json.dumps(upstream_json(registry), indent=2, ensure_ascii=False) + "\n"

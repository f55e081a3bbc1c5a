"""What each file of `registry/` must hold: its text checked and turned into model objects.

Every problem in a file is reported at once, as `path:line: message`. Reading the files and
checking them against each other is store.py's part.
"""

from __future__ import annotations

import re
from pathlib import Path

from gbsite.errors import GbsiteError, Problem
from gbsite.registry import yamlio
from gbsite.registry.checker import Checker, KeyPath, kind, where
from gbsite.registry.model import (
    GB_ID,
    SOURCES_FILE,
    Category,
    Entry,
    Raised,
    Resolution,
    Resolved,
    Revision,
    Source,
    Text,
)

LABEL = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_@-]{0,63}")
SHA256 = re.compile(r"[0-9a-f]{64}")
CATEGORY_KEY = re.compile(r"[a-z][a-z0-9-]*")
TEXT_FIELDS = ("gb_type", "context", "explanation", "hints")


def sources(path: Path, text: str) -> list[Source]:
    """The snapshots listed in sources.yaml, oldest first."""
    data = yamlio.load(path, text)
    check = Checker(path, text)
    out: list[Source] = []
    top = check.mapping(data, [], ["sources"])
    items = top.get("sources") if top else None
    if top is not None and "sources" in top and not isinstance(items, list):
        check.error(["sources"], f"sources must be a list, not {kind(items)}")
    seen: dict[str, int] = {}
    for i, item in enumerate(items if isinstance(items, list) else []):
        kp: KeyPath = ["sources", i]
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
            out.append(Source(label, sha, entries, n_items))
    if check.found:
        raise GbsiteError(check.problems())
    return out


def categories(path: Path, text: str) -> list[Category]:
    """The category table; no canned text may identify two categories."""
    data = yamlio.load(path, text)
    check = Checker(path, text)
    top = check.mapping(data, [], ["categories"])
    items = top.get("categories") if top else None
    if top is not None and "categories" in top and not isinstance(items, list):
        check.error(["categories"], f"categories must be a list, not {kind(items)}")
    out: list[Category] = []
    keys: set[str] = set()
    texts: dict[str, str] = {}
    for i, item in enumerate(items if isinstance(items, list) else []):
        kp: KeyPath = ["categories", i]
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
                [*kp, "texts"], f"{where([*kp, 'texts'])} must be a non-empty list of strings"
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


def entry(
    path: Path, text: str, expected_id: str, labels: dict[str, int], file_ids: set[str]
) -> tuple[Entry | None, list[Problem]]:
    """One entry file; `labels` orders the imported sources, `file_ids` are all entry files'."""
    data = yamlio.load(path, text)
    check = Checker(path, text)
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
    added = _label(check, m.get("added"), ["added"], labels, nullable=False)
    removed = _label(check, m.get("removed"), ["removed"], labels, nullable=True)
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
        check.error(["replaced"], f"replaced must be a list, not {kind(raw_r)}")
    for i, item in enumerate(raw_r if isinstance(raw_r, list) else []):
        rev = _revision(check, item, ["replaced", i], labels, replaced=True)
        if rev is not None:
            replaced.append(rev)
    if check.found or gb_id is None or added is None:
        return None, check.problems()
    return Entry(gb_id, added, removed, history, replaced), []


def _label(
    check: Checker, value: object, kp: KeyPath, labels: dict[str, int], nullable: bool
) -> str | None:
    """A release label that must name an imported source."""
    if value is None and nullable:
        return None
    label = check.string(value, kp)
    if label is not None and label not in labels:
        check.error(kp, f"{where(kp)} {label!r} is not an imported source (see {SOURCES_FILE})")
        return None
    return label


def _revision(
    check: Checker, value: object, kp: KeyPath, labels: dict[str, int], replaced: bool
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
            f"{where([*kp, 'hints'])} must be a list of strings, "
            f"not {kind(raw_hints)} (write [] for none)",
        )
        hints = None
    else:
        for j, h in enumerate(raw_hints):
            s = check.string(h, [*kp, "hints", j])
            if s is None:
                hints = None
            elif hints is not None:
                hints.append(s)
    since = _label(check, m.get("current_since"), [*kp, "current_since"], labels, nullable=True)
    last_seen = None
    if replaced:
        last_seen = _label(check, m.get("last_seen"), [*kp, "last_seen"], labels, nullable=False)
        if since is not None and last_seen is not None and labels[since] > labels[last_seen]:
            check.error(
                [*kp, "last_seen"], f"last_seen {last_seen!r} is before current_since {since!r}"
            )
    if gb_type is None or context is None or explanation is None or hints is None:
        return None
    return Revision(Text(gb_type, context, explanation, tuple(hints)), since, last_seen)


_PY_NAME = re.compile(r"[A-Za-z_]\w*")
_SOURCE_LINE = re.compile(r"torch/[\w./-]+\.py:[1-9][0-9]*")
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}")


def resolution(path: Path, text: str, label: str, entries: dict[str, Entry]) -> Resolution:
    """registry/resolved/LABEL.yaml: the texts the torch source of release LABEL gives the fields
    of its snapshot that are a Python name. Each names an id, a field of one of its texts whose
    whole value is that name, the text and where torch binds it."""
    data = yamlio.load(path, text)
    check = Checker(path, text)
    top = check.mapping(data, [], ["torch", "resolved"], ["raised"])
    torch = check.string(top.get("torch"), ["torch"], _VERSION) if top else None
    items = top.get("resolved") if top else None
    if top is not None and "resolved" in top and not isinstance(items, list):
        check.error(["resolved"], f"resolved must be a list, not {kind(items)}")
    out: list[Resolved] = []
    seen: set[tuple[str, str, str]] = set()
    for i, item in enumerate(items if isinstance(items, list) else []):
        kp: KeyPath = ["resolved", i]
        m = check.mapping(item, kp, ["id", "field", "name", "text", "source"])
        if m is None:
            continue
        gb_id = check.string(m.get("id"), [*kp, "id"], GB_ID, " (GB and four digits)")
        field = check.string(m.get("field"), [*kp, "field"])
        name = check.string(m.get("name"), [*kp, "name"], _PY_NAME, " (a Python name)")
        value = check.string(m.get("text"), [*kp, "text"])
        source = check.string(
            m.get("source"), [*kp, "source"], _SOURCE_LINE, " (torch/FILE.py:LINE)"
        )
        if field is not None and field not in TEXT_FIELDS:
            check.error([*kp, "field"], f"field {field!r} is not one of {', '.join(TEXT_FIELDS)}")
            continue
        if None in (gb_id, field, name, value, source):
            continue
        assert gb_id and field and name and value is not None and source
        entry = entries.get(gb_id)
        if entry is None:
            check.error([*kp, "id"], f"{gb_id} is not in the registry")
            continue
        texts = [r.text for r in (*entry.history, *entry.replaced)]
        if not any(_has(t, field, name) for t in texts):
            check.error(
                [*kp, "name"],
                f"no text of {gb_id} has {name!r} as its {field}; was it re-imported?",
            )
            continue
        if (gb_id, field, name) in seen:
            check.error(kp, f"{gb_id}'s {field} {name!r} is resolved twice")
            continue
        seen.add((gb_id, field, name))
        out.append(Resolved(gb_id, field, name, value, source))
    raised = _raised(check, top.get("raised") if top else None, entries)
    if check.found:
        raise GbsiteError(check.problems())
    assert torch is not None
    return Resolution(label, torch, tuple(out), raised)


def _raised(check: Checker, items: object, entries: dict[str, Entry]) -> tuple[Raised, ...]:
    """`raised:` of a resolved file: where that torch raises each id (optional)."""
    if items is None:
        return ()
    if not isinstance(items, list):
        check.error(["raised"], f"raised must be a list, not {kind(items)}")
        return ()
    out: list[Raised] = []
    for i, item in enumerate(items):
        kp: KeyPath = ["raised", i]
        m = check.mapping(item, kp, ["id", "source", "function"])
        if m is None:
            continue
        gb_id = check.string(m.get("id"), [*kp, "id"], GB_ID, " (GB and four digits)")
        source = check.string(
            m.get("source"), [*kp, "source"], _SOURCE_LINE, " (torch/FILE.py:LINE)"
        )
        function = check.string(m.get("function"), [*kp, "function"])
        if gb_id is None or source is None or function is None:
            continue
        if gb_id not in entries:
            check.error([*kp, "id"], f"{gb_id} is not in the registry")
            continue
        path, line = source.rsplit(":", 1)
        out.append(Raised(gb_id, path, int(line), function))
    return tuple(out)


def _has(text: Text, field: str, name: str) -> bool:
    if field == "hints":
        return any(h.strip() == name for h in text.hints)
    return bool(getattr(text, field).strip() == name)

"""The registry as plain data: what `registry/` stores and where, nothing derived.

Layout (documented in registry/README.md, with JSON Schemas in registry/schema/):

    registry/sources.yaml      the imported snapshots, oldest first
    registry/categories.yaml   categories and the canned hint texts that identify them
    registry/gb/GB0000.yaml    one file per id: lifecycle and every text it ever had
    registry/snapshots/L.json.gz   each imported snapshot's JSON as it came, gzipped, by label
    registry/resolved/L.yaml   the texts of the fields of snapshot L that name a Python value,
                               read from that release's torch source (resolve.py)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# An id is also a file name and a URL path segment, so nothing else may pass.
GB_ID = re.compile(r"GB[0-9]{4}")

SOURCES_FILE = "sources.yaml"
CATEGORIES_FILE = "categories.yaml"
ENTRIES_DIR = "gb"
ENTRY_FILE = re.compile(r"(GB[0-9]{4})\.yaml")
SNAPSHOTS_DIR = "snapshots"
RESOLVED_DIR = "resolved"


@dataclass(frozen=True, slots=True)
class Text:
    """One upstream registry item: the wording of a graph break at some point in time."""

    gb_type: str
    context: str
    explanation: str
    hints: tuple[str, ...]

    def to_upstream(self) -> dict[str, object]:
        """The item in the shape of PyTorch's graph_break_registry.json."""
        return {
            "Gb_type": self.gb_type,
            "Context": self.context,
            "Explanation": self.explanation,
            "Hints": list(self.hints),
        }


@dataclass(frozen=True, slots=True)
class Revision:
    """A text with when it was current.

    ``current_since`` is the first imported release in which this text was the id's current
    (first) item, or None if it never was in any imported release. ``last_seen`` is set only for
    texts upstream no longer lists (it rewrote them in place): the last release that had it.
    """

    text: Text
    current_since: str | None
    last_seen: str | None = None


@dataclass(slots=True)
class Entry:
    """One graph-break id and everything known about its texts across releases."""

    id: str
    added: str
    removed: str | None
    # Upstream's list for this id, newest first, exactly as in the newest snapshot that had it.
    history: list[Revision]
    # Texts earlier snapshots had that upstream later rewrote in place; newest first.
    replaced: list[Revision] = field(default_factory=list)

    @property
    def current(self) -> Text:
        return self.history[0].text

    @property
    def is_removed(self) -> bool:
        return self.removed is not None

    @property
    def slug(self) -> str:
        """The lower-case form PyTorch uses in page URLs and doc file names."""
        return self.id.lower()


@dataclass(frozen=True, slots=True)
class Source:
    """One imported registry snapshot."""

    label: str
    sha256: str
    entries: int
    items: int


@dataclass(frozen=True, slots=True)
class Category:
    """A kind of graph break, recognised by one of PyTorch's canned hint texts."""

    key: str
    constant: str
    label: str
    summary: str
    texts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Resolved:
    """A registry field whose text is the name of a Python value (`_ASYNC_OP_REMAP_ERROR`),
    with the text torch's source gives that name."""

    id: str
    field: str  # gb_type, context, explanation or hints (one of them)
    name: str  # the registry's text, as it is
    text: str  # what the name holds in the torch source
    source: str  # where it is bound there: torch/...py:LINE


@dataclass(frozen=True, slots=True)
class Raised:
    """A place where a release's torch source raises an id: a call passing its graph-break
    type as `gb_type=`."""

    id: str
    source: str  # torch/...py
    line: int
    function: str  # Class.method there, "" at module level


@dataclass(frozen=True, slots=True)
class Resolution:
    """What the torch source of one imported snapshot's release resolved."""

    label: str  # the snapshot's label
    torch: str  # the version of the torch source read (2.14.1+cpu for the 2.14.0 snapshot)
    resolved: tuple[Resolved, ...]
    raised: tuple[Raised, ...] = ()  # where that source raises each id (sites.py)


@dataclass(slots=True)
class Registry:
    sources: list[Source]
    entries: dict[str, Entry]  # sorted by id
    categories: list[Category]
    resolutions: dict[str, Resolution] = field(default_factory=dict)  # by label, oldest first

    def resolved_texts(self, gb_id: str) -> list[tuple[Resolution, Resolved]]:
        """The resolved fields of an id, newest snapshot first."""
        return [
            (res, r)
            for res in reversed(self.resolutions.values())
            for r in res.resolved
            if r.id == gb_id
        ]

    @property
    def labels(self) -> list[str]:
        return [s.label for s in self.sources]

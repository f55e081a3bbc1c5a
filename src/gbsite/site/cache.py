"""What a build keeps for the next one in the same process (`gbsite serve`), so that a save in
docs/gb/ costs what it changes: parsed inputs, entry page models, rendered blocks and files.

Everything is keyed by the inputs it came from. The registry, the record of examples, the
templates, gbsite.toml and gbsite's own code together form the cache's generation: when any of
them changes, everything is dropped. Within a generation, a docs file is parsed again only when
its bytes change, an entry page's model only when its block does (the dashboard and release
pages only when what they count does: content.py's model), and each file of the site is
rendered again only when the key the page table gives it changes (pages.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from gbsite.docs.blocks import RenderedBlock
    from gbsite.docs.files import Doc
    from gbsite.errors import Problem
    from gbsite.examples.pages import PageExamples
    from gbsite.examples.record import Record
    from gbsite.registry.model import Registry
    from gbsite.registry.views import EntryView
    from gbsite.search.adjacent import AdjacentMessage
    from gbsite.search.legacy import LegacyMessage
    from gbsite.site.content import SiteModel
    from gbsite.site.fingerprint import ReadInputs
    from gbsite.site.renderer import Renderer


class Scanned(NamedTuple):
    """docs/gb/ listed."""

    listed: tuple[Path, ...]  # the files the fingerprint found
    found: dict[str, Path]  # the docs files, by id
    unexpected: list[Problem]  # the other files


class KeptDoc(NamedTuple):
    data: bytes  # the docs file's bytes
    doc: Doc  # parsed
    hand_edit: Problem | None  # text written outside its block, if any


class KeptPage(NamedTuple):
    block: str  # the docs file's block
    examples: PageExamples | None  # its annotated blocks and status block


class KeptBlock(NamedTuple):
    source: str  # the block's Markdown
    rendered: RenderedBlock


class Shared(NamedTuple):
    """The inputs that do not change within a generation, parsed."""

    registry: Registry
    views: list[EntryView]
    record: Record
    older: tuple[LegacyMessage, ...]  # registry/legacy-messages.json: ~10 ms to read each time
    beside: tuple[AdjacentMessage, ...]  # registry/adjacent-messages.json


@dataclass
class BuildCache:
    snapshot: ReadInputs | None = None  # the last fingerprint: its files need no reading again
    generation: str = ""  # fingerprint.ReadInputs.generation of what the rest holds
    shared: Shared | None = None
    renderer: Renderer | None = None
    scanned: Scanned | None = None
    docs: dict[str, KeptDoc] = field(default_factory=dict)  # by id
    pages: dict[str, KeptPage] = field(default_factory=dict)  # by id
    model: SiteModel | None = None  # the last build's: its entry pages and release pages
    blocks: dict[str, KeptBlock] = field(default_factory=dict)  # by id
    files: dict[str, tuple[object, bytes]] = field(default_factory=dict)  # path: key, bytes
    written_to: Path | None = None  # the folder that holds exactly `files`, if any

    def renew(self, generation: str) -> None:
        """Keep what was derived from `generation`'s inputs; drop everything else."""
        if generation != self.generation:
            fresh = BuildCache(self.snapshot, generation)
            for f in fields(self):
                setattr(self, f.name, getattr(fresh, f.name))

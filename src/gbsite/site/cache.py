"""What a build keeps for the next one in the same process (`gbsite serve`), so that a save in
docs/gb/ costs what it changes: parsed inputs, entry page models, rendered blocks and files.

Everything is keyed by the inputs it came from. The registry, the record of examples, the
templates, gbsite.toml and gbsite's own code together form the cache's generation: when any of
them changes, everything is dropped. Within a generation, a docs file is parsed again only when
its bytes change, an entry page's model only when its block does, and each file of the site is
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
    from gbsite.examples.coverage import Page
    from gbsite.examples.record import Record
    from gbsite.registry.model import Registry
    from gbsite.registry.views import EntryView
    from gbsite.site.content import SiteModel
    from gbsite.site.fingerprint import ReadInputs
    from gbsite.site.renderer import Renderer


class Shared(NamedTuple):
    """The inputs that do not change within a generation, parsed."""

    registry: Registry
    views: list[EntryView]
    record: Record


@dataclass
class BuildCache:
    snapshot: ReadInputs | None = None  # the last fingerprint: its files need no reading again
    generation: str = ""  # fingerprint.ReadInputs.generation of what the rest holds
    shared: Shared | None = None
    renderer: Renderer | None = None
    # docs/gb/ listed: the files the fingerprint found, the docs files by id, the other files
    scanned: tuple[tuple[Path, ...], dict[str, Path], list[Problem]] | None = None
    # by id: the docs file's bytes, parsed, and text written outside its block, if any
    docs: dict[str, tuple[bytes, Doc, Problem | None]] = field(default_factory=dict)
    pages: dict[str, tuple[str, Page | None]] = field(default_factory=dict)  # block, examples
    model: SiteModel | None = None  # the last build's: its entry pages and release pages
    blocks: dict[str, tuple[str, RenderedBlock]] = field(default_factory=dict)  # source, HTML
    files: dict[str, tuple[object, bytes]] = field(default_factory=dict)  # path: key, bytes
    written_to: Path | None = None  # the folder that holds exactly `files`, if any

    def renew(self, generation: str) -> None:
        """Keep what was derived from `generation`'s inputs; drop everything else."""
        if generation != self.generation:
            fresh = BuildCache(self.snapshot, generation)
            for f in fields(self):
                setattr(self, f.name, getattr(fresh, f.name))

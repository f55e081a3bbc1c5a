"""What the load phase hands on (load.py): everything a build reads, validated, as data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbsite.docs.files import Doc
    from gbsite.examples.pages import PageExamples
    from gbsite.examples.record import Record
    from gbsite.registry.model import Registry
    from gbsite.registry.views import EntryView
    from gbsite.search.adjacent import AdjacentMessage
    from gbsite.search.legacy import LegacyMessage


@dataclass(frozen=True, slots=True)
class Examples:
    """What the coverage of the pages is derived from (examples/states.py)."""

    pages: dict[str, PageExamples]  # each docs file's annotated blocks and status block
    record: Record  # what each block did with each release
    releases: tuple[str, ...]  # the torch releases the examples run against, oldest first

    @property
    def release(self) -> str:
        """The release the dashboard counts: the newest."""
        return self.releases[-1]


@dataclass(frozen=True, slots=True)
class Inputs:
    """Everything a build reads, validated."""

    registry: Registry
    views: list[EntryView]  # what each page shows of its entry (registry/views.py)
    docs: dict[str, Doc]  # by id: the docs files of ids the registry has
    examples: Examples  # each page's examples and status block, and the record of runs
    legacy: tuple[LegacyMessage, ...] = ()  # messages of torch before the registry (search.legacy)
    adjacent: tuple[
        AdjacentMessage, ...
    ] = ()  # other messages that lead to a page (search.adjacent)

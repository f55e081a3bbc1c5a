"""What search ranks: an entry's wordings as the search index holds them, and a match."""

from __future__ import annotations

from gbsite.lean_typing import NamedTuple


# Named tuples, not dataclasses: `gbsite lookup` makes ~1,300 of them from the index on every
# call (a frozen dataclass takes several times as long to construct, and importing dataclasses
# alone costs a few milliseconds).
class SearchText(NamedTuple):
    """One wording of an entry, as the search needs it."""

    gb_type: str
    explanation: str
    context: str
    hints: tuple[str, ...]  # raw upstream hints without canned ones (categories cover those)
    period: str  # "" for the current text; "earlier wording: 2.8.0 to 2.13.0"; RUNTIME_PERIOD
    # A wording from outside today's registry (a message of torch before 2.8): any match with a
    # registry text outranks it, and it is shown beside that match, not instead of it.
    older: bool = False


class SearchEntry(NamedTuple):
    id: str
    slug: str
    removed: str | None  # the release it was removed in
    categories: tuple[str, ...]
    added: str
    has_info: bool
    texts: tuple[SearchText, ...]  # current first
    info: str  # contributor text, plain
    keys: str = ""  # what the pre-filter keys it by (search.match.keys_of); "": worked out


class Match(NamedTuple):
    entry: SearchEntry
    score: float
    why: str

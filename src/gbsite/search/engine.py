"""Finding the right graph break from what a user has: an id, a URL, words, or a pasted log.

1. Ids: `GB0025`, `gb0025`, `0025` or a pasted page URL name the entry directly.
2. Logs: the graph breaks PyTorch printed, each matched to its entry (search.logs).
3. Words: entries ranked by where the words occur (search.words).

templates/assets/search.js runs the same steps in the browser, with the rules of search.rules
that the search index carries; `gbsite lookup` (search.command) runs them on the command line.
Both are tested against the same real logs of torch 2.13.0 (tests/data/logs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gbsite.search.legacy import Matcher, lookup_legacy
from gbsite.search.logs import lookup_log
from gbsite.search.model import Match, SearchEntry
from gbsite.search.rules import LOG_SCORES, LOG_SIGNS, LOG_SIGNS_ANY_CASE, pattern
from gbsite.search.words import lookup_words


def lookup(
    query: str,
    entries: Sequence[SearchEntry],
    with_info: Callable[[], Sequence[SearchEntry]] | None = None,
    legacy: Matcher | None = None,
) -> list[Match]:
    """Best first; for a log with several graph breaks, each one in log order. `legacy`: the
    messages of torch releases before the registry (search.legacy), found in logs and words."""
    if match := pattern("id_query").match(query):
        gb_id = f"GB{match.group(1)}"
        found = [e for e in entries if e.id == gb_id]
        return [Match(found[0], LOG_SCORES["link"], "its id")] if found else []
    older = lookup_legacy(query, legacy, entries)
    if looks_like_log(query):
        matches = lookup_log(query, entries)
        matches += [m for m in older if all(m.entry.id != x.entry.id for x in matches)]
        if matches:
            return matches
    if older:
        return older
    # Contributed text counts for words only: `with_info` gives it when `entries` lack it.
    return lookup_words(query, with_info() if with_info else entries)


def kind_of(query: str) -> str:
    """How `lookup` reads the query: as an "id", a "log" or "words". Only words need the
    contributed text (a log too, if it matches nothing), which is most of the search index."""
    if pattern("id_query").match(query):
        return "id"
    return "log" if looks_like_log(query) else "words"


def looks_like_log(query: str) -> bool:
    """A pasted log or part of one, rather than words to look for."""
    lower = query.lower()
    return (
        any(sign in query for sign in LOG_SIGNS)
        or any(sign in lower for sign in LOG_SIGNS_ANY_CASE)
        or bool(pattern("url_id").search(query) or pattern("exception_header").search(query))
    )

"""Finding the right graph break from what a user has: an id, a URL, words, or a pasted log.

1. Ids: `GB0025`, `gb0025`, `0025` or a pasted page URL name the entry directly; an id the
   registry lacks gets a note that says so (and whether it may be newer than the registry).
2. Logs: the graph breaks PyTorch printed, each matched to its entry (search.logs).
3. Quotes: a type or explanation quoted in prose, without the rest of the log (search.logs).
4. Words: entries ranked by where the words occur (search.words).

templates/assets/search-engine.js runs the same steps in the browser (each function named after
its twin here), with the rules of search.rules that the search index carries; `gbsite lookup`
(search.command) runs them on the command line. Both are tested against the same real logs of
torch 2.13.0 (tests/data/logs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gbsite.search.logs import Budget, linked_ids, lookup_log, lookup_quoted
from gbsite.search.model import Match, SearchEntry
from gbsite.search.rules import LOG_SCORES, LOG_SIGNS, LOG_SIGNS_ANY_CASE, NOTES, pattern
from gbsite.search.words import WEAK, lookup_words


class Found:
    __slots__ = ("matches", "notes")

    def __init__(self, matches: list[Match], notes: list[str]) -> None:
        self.matches = matches
        self.notes = notes  # what the user should know besides the matches


def page_path(gb_id: str) -> str:
    return f"gb/{gb_id.lower()}.html"


def lookup(
    query: str,
    entries: Sequence[SearchEntry],
    with_info: Callable[[], Sequence[SearchEntry]] | None = None,
) -> list[Match]:
    """Best first; for a log with several graph breaks, each one in log order."""
    return find(query, entries, with_info=with_info).matches


def find(
    query: str,
    entries: Sequence[SearchEntry],
    *,
    newest: str = "",
    link: Callable[[str], str] = page_path,
    with_info: Callable[[], Sequence[SearchEntry]] | None = None,
    seconds: float | None = None,
) -> Found:
    """The matches of a query and notes about it. `newest` is the newest release imported and
    `link` gives an id's page URL (for the note on an id the registry lacks); `with_info`
    gives the entries with their contributed text when `entries` lack it (words use it)."""
    budget = Budget(seconds)
    known = {e.id for e in entries}
    if match := pattern("id_query").match(query):
        gb_id = f"GB{int(match.group(1)):04d}"
        found = [e for e in entries if e.id == gb_id]
        if found:
            return Found([Match(found[0], LOG_SCORES["link"], "its id")], [])
        return Found([], [unknown_id(gb_id, known, newest, link)])
    notes = []
    if looks_like_log(query):
        notes = [unknown_id(i, known, newest, link) for i in linked_ids(query) if i not in known]
        matches = lookup_log(query, entries, budget)
        if budget.stopped:
            done, total = budget.stopped
            notes.append(
                NOTES["stopped"].format(seconds=f"{budget.seconds:g}", done=done, total=total)
            )
        if matches or budget.stopped:
            return Found(matches, notes)
    quoted = lookup_quoted(query, entries, budget)
    if notes:  # a log that links a page the registry lacks: its words would find noise
        return Found(quoted, notes)
    # Contributed text counts for words only: `with_info` gives it when `entries` lack it.
    words = lookup_words(query, with_info() if with_info else entries)
    ids = {m.entry.id for m in quoted}
    if not quoted and words and words[0].why == WEAK:
        notes.append(NOTES["weak"])  # none has every word: say so above the weak ones
    return Found(quoted + [m for m in words if m.entry.id not in ids], notes)


def unknown_id(gb_id: str, known: set[str], newest: str, link: Callable[[str], str]) -> str:
    """What to say of an id the registry lacks. Ids are `GB` and four digits, so their order as
    strings is their order as numbers."""
    beyond = bool(known) and gb_id > max(known)
    return NOTES["newer" if beyond else "unknown"].format(
        id=gb_id, newest=newest or "none", link=link(gb_id), highest=max(known, default="")
    )


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

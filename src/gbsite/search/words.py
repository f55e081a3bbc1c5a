"""Ranking entries by the words of a query: every word must occur in the entry (the last one may
be a prefix, as you type); a word in the type weighs most, then explanation, hints, context and
contributed text (search.rules.WEIGHTS). templates/assets/search-engine.js ranks the same way."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gbsite.search.model import Match, SearchEntry
from gbsite.search.rules import LIMITS, STOP_WORDS, WEIGHTS, WORD_CHARS, WORD_SCORES, pattern

WEAK = "matches some of your words"  # a match without every word of the query


def query_words(query: str) -> list[str]:
    words = pattern("word").findall(query.lower())
    meaningful = [w for w in words if w not in STOP_WORDS]
    return meaningful or words


def _words_of(text: str) -> str:
    return " ".join(pattern("word").findall(text.lower()))


_APART = "\0"  # between the fields of an entry in one text: no query word holds it


def _fields(entry: SearchEntry, words: Sequence[str]) -> list[tuple[float, str]] | None:
    """(weight, lower-case text) of each field of the entry that has text; None when no field
    holds any of the words. The fields are lower-cased as one text, and split only when one of
    the words is in it: most entries hold none of them."""
    weights: list[float] = []
    values: list[str] = []
    for n, t in enumerate(entry.texts):
        weights += (
            WEIGHTS["type" if n == 0 else "old_type"],
            WEIGHTS["explanation"],
            WEIGHTS["context"],
            WEIGHTS["hints"],
        )
        values += (t.gb_type, t.explanation, t.context, " ".join(t.hints))
    weights.append(WEIGHTS["info"])
    values.append(entry.info)
    text = _APART.join(values).lower()
    if not any(word in text for word in words):
        return None
    lowered = text.split(_APART)
    if len(lowered) != len(values):  # a field held the separator itself
        lowered = [value.lower() for value in values]
    return [(weight, value) for weight, value in zip(weights, lowered, strict=True) if value]


class _Word:
    """A query word and how it can occur in a field: as a whole word, as the start of one (the
    last word, as you type) or inside one. Searching for the word where it stands alone is
    what a field's set of words would tell, without splitting every long field into words."""

    __slots__ = ("_prefix", "_whole", "inside", "last", "text")

    def __init__(self, text: str, last: bool) -> None:
        self.text = text
        self.last = last
        self.inside = len(text) >= WORD_SCORES["inside_min_chars"]
        self._whole: re.Pattern[str] | None = None
        self._prefix: re.Pattern[str] | None = None

    def _patterns(self) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
        """Compiled when the word first occurs in a field: a word in no field (a pasted 1 MB
        line) is never compiled. The word, then a look back at what precedes it: a pattern
        that starts with the literal lets `re` skip to its occurrences (twenty times faster on
        long fields)."""
        if self._whole is None:
            literal = re.escape(self.text)
            start = rf"{literal}(?<![{WORD_CHARS}]{literal})"
            self._whole = re.compile(rf"{start}(?![{WORD_CHARS}])")
            self._prefix = re.compile(start) if self.last else None
        return self._whole, self._prefix

    def score(self, fields: Sequence[tuple[float, str]]) -> float:
        best = 0.0
        for weight, value in fields:
            if self.text not in value or weight <= best:
                continue
            whole, prefix = self._patterns()
            if whole.search(value):
                best = weight
            elif prefix and prefix.search(value):
                best = max(best, weight * WORD_SCORES["prefix"])
            elif self.inside:
                best = max(best, weight * WORD_SCORES["inside"])
        return best


def lookup_words(query: str, entries: Sequence[SearchEntry]) -> list[Match]:
    """Entries with every word; if none has them all, those with at least half of them."""
    # Each distinct word once, and at most max_words of them: a whole log with no graph break
    # in it has tens of thousands, and scoring each against every entry took minutes.
    texts = list(dict.fromkeys(query_words(query)))[: LIMITS["max_words"]]
    if not texts:
        return []
    words = [_Word(w, i == len(texts) - 1) for i, w in enumerate(texts)]
    phrase = _words_of(query)  # "data dependent" finds "Data-dependent"
    # A phrase is two words or more: one word is scored by the fields it is in, and a share of
    # a type's length would favour short types over the one meant ("generator").
    phrase_counts = len(phrase) >= WORD_SCORES["phrase_min_chars"] and " " in phrase
    phrase_words = len(phrase.split(" "))
    scored: list[tuple[int, Match]] = []
    for entry in entries:
        fields = _fields(entry, texts)
        if fields is None:
            continue
        scores = [w.score(fields) for w in words]
        matched = sum(1 for x in scores if x)
        if not matched:
            continue
        total = sum(scores)
        if phrase_counts:
            type_words = _words_of(entry.texts[0].gb_type)
            if phrase in type_words:
                # The more of the type's words you typed, the closer (this order of operations
                # in search-engine.js too: the same float, the same ties).
                bonus = WORD_SCORES["phrase_type"]
                total += bonus + bonus * phrase_words / len(type_words.split(" "))
            elif any(phrase in _words_of(t.explanation) for t in entry.texts):
                total += WORD_SCORES["phrase_explanation"]
        if entry.removed:
            total -= WORD_SCORES["removed"]
        why = "matches your words" if matched == len(words) else WEAK
        scored.append((matched, Match(entry, total, why)))
    complete = [m for n, m in scored if n == len(words)]
    if not complete:
        half = (len(words) + 1) // 2
        complete = [m for n, m in scored if n >= max(half, 1)]
    complete.sort(key=lambda m: (-m.score, m.entry.id))
    return complete

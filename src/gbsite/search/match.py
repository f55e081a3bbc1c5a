"""Registry texts against a log's text, in time linear in the log's length.

A registry text is its literal parts: the text between its {placeholders}, compared loosely
(search.rules "loose": without white space, backticks, asterisks and underscores). The parts
are found in order with `str.find`, each as early as it can be: for a concatenation of
literals and "anything" gaps, the earliest place of each part is as good as any later one, so
nothing is ever tried twice (the regexes this replaces backtracked, roughly O(n^4) on a log that
repeats a template's parts out of order: issue 35).

Modes: "suffix" (the type: at the end of the text before `Explanation:`, starting at the start,
after white space or after one of rules.BOUNDARY), "header" (an older wording's type: the same,
but starting at the start or after one of rules.BOUNDARY only, as an exception's message or a
Reason does, not after the white space of a traceback line such as `in call_function`),
"prefix" (explanation and context: PyTorch appends details), "any" (hints; and quoted texts,
which start at a boundary too).

A log text cut short (`...`) matches a registry text it is the start of (`cut_match`).

`Candidates` is the pre-filter: a few characters of each text (keys_of, kept in the search
index), looked up in a set of the log text's own; it never leaves out a text that could match.
templates/assets/search-engine.js does the same (its header maps its functions to these).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gbsite.search.model import SearchEntry
from gbsite.search.rules import BOUNDARY, LIMITS, LOG_SCORES, pattern

GRAM = 8  # characters of a text the pre-filter keys on


# Plain classes rather than named tuples: `gbsite lookup` imports this module on every run, and
# each named tuple costs a few tenths of a millisecond to define.
class Text:
    """A registry text, ready to match."""

    __slots__ = ("chars", "open_end", "open_start", "parts", "strict", "usable")

    def __init__(
        self, parts: tuple[str, ...], strict: tuple[str, ...], open_start: bool, open_end: bool
    ) -> None:
        self.parts = parts  # loose literal parts, in order
        self.strict = strict  # the same without white space only (for the exact-match check)
        self.open_start = open_start  # starts with a placeholder
        self.open_end = open_end  # ends with a placeholder
        self.chars = sum(len(p) for p in parts)  # loose literal characters
        self.usable = False  # can match a log: not empty, not a bare run-time expression


class Target:
    """A log's text, ready to be matched against."""

    __slots__ = ("bounds", "cuts", "loose", "order", "strict", "strong", "strong_order")

    def __init__(
        self,
        loose: str,
        strict: str,
        bounds: Iterable[int],
        cuts: tuple[int, ...],
        strong: Iterable[int] = (),
    ) -> None:
        self.loose = loose
        self.strict = strict
        self.bounds = frozenset(bounds)  # positions in `loose` a type may start at
        self.order = tuple(sorted(self.bounds))  # the same, in order
        self.cuts = cuts  # positions in `loose` where the text was cut short (`...`)
        # The bounds at the start or after one of BOUNDARY: where an older wording may start.
        self.strong = frozenset(strong)
        self.strong_order = tuple(sorted(self.strong))


# The "loose" pattern's characters out (white space as str.split sees it, which is what the
# pattern's \s matches), four times as fast as the pattern: a lookup makes thousands.
_MARKUP = str.maketrans("", "", "`*_")


def loose(text: str) -> str:
    return "".join(text.split()).translate(_MARKUP)


def has_cut(loose_text: str) -> bool:
    return "..." in loose_text or "\u2026" in loose_text


# A registry text's loose literal parts, whether it starts and whether it ends with a
# placeholder: all the pre-filter needs, made for every text.
_Parts = tuple[tuple[str, ...], bool, bool]
_parts: dict[str, _Parts] = {}
_texts: dict[tuple[str, bool], Text] = {}


def parts_of(value: str) -> _Parts:
    found = _parts.get(value)
    if found is None:
        pieces = pattern("placeholder").split(value) if "{" in value else [value]
        loose_pieces = [loose(p) for p in pieces]
        found = _parts[value] = (
            tuple(p for p in loose_pieces if p),
            not loose_pieces[0],
            not loose_pieces[-1],
        )
    return found


def compile_text(value: str, literal: bool = False) -> Text:
    """A registry text ready to match. Unless `literal` (an older or adjacent message, which is
    text as printed), a text that is only a Python expression (`msg`) is not usable: the
    registry has the expression, not what it printed."""
    found = _texts.get((value, literal))
    if found is None:
        parts, open_start, open_end = parts_of(value)
        pieces = pattern("placeholder").split(value) if "{" in value else [value]
        strict = tuple(s for s in ("".join(p.split()) for p in pieces if loose(p)) if s)
        found = _texts[(value, literal)] = Text(parts, strict, open_start, open_end)
        stripped = value.strip()
        found.usable = (
            bool(parts)
            and (literal or not pattern("runtime_expression").match(stripped))
            and bool(pattern("placeholder").sub("", stripped).strip())
        )
    return found


EMPTY = Target("", "", (), ())


def target(text: str, *, bounds: bool = False) -> Target:
    """`text` as matching needs it; `bounds` only for the type and quoted texts."""
    if not text:
        return EMPTY
    out = loose(text)
    found: set[int] = set()
    strong: set[int] = set()
    if bounds:
        strong = {0, *(i + 1 for i, c in enumerate(out) if c in BOUNDARY)}
        removed = 0
        for m in pattern("loose").finditer(text):
            found.add(m.start() - removed)
            removed += m.end() - m.start()
        found |= strong
    cuts: tuple[int, ...] = ()
    if has_cut(out):
        cuts = tuple(m.start() for m in pattern("cut").finditer(out))[: LIMITS["cuts"]]
    return Target(out, "".join(text.split()), found, cuts, strong)


def _rest_in_order(parts: Sequence[str], target: str, pos: int) -> int:
    """The end of `parts` found in order from `pos`, each as early as it can be, or -1."""
    for part in parts:
        found = target.find(part, pos)
        if found < 0:
            return -1
        pos = found + len(part)
    return pos


def _first_at_bound(part: str, t: Target, bounds: frozenset[int] | None = None) -> int:
    """The earliest place of `part` in the target that is a boundary (of `bounds`, by default
    the target's), or -1."""
    bounds = t.bounds if bounds is None else bounds
    found = t.loose.find(part)
    while found >= 0 and found not in bounds:
        found = t.loose.find(part, found + 1)
    return found


def matches(text: Text, t: Target, mode: str) -> bool:
    """Whether the registry text matches the target in this mode (see the module's doc)."""
    if not text.usable or not t.loose:
        return False
    parts, s = text.parts, t.loose
    if mode == "prefix":
        if not text.open_start and not s.startswith(parts[0]):
            return False
        return _rest_in_order(parts, s, 0) >= 0
    if mode == "any" and text.open_start:
        return _rest_in_order(parts, s, 0) >= 0
    if mode == "any":
        start = _first_at_bound(parts[0], t)
        return start >= 0 and _rest_in_order(parts[1:], s, start + len(parts[0])) >= 0
    # suffix and header: ends at the end of the target, starts at a boundary
    bounds = t.strong if mode == "header" else t.bounds
    last = parts[-1]
    if text.open_end:
        limit = len(s)
    elif not s.endswith(last):
        return False
    else:
        limit = len(s) - len(last)
        if len(parts) == 1:
            return text.open_start or limit in bounds
        parts = parts[:-1]
    if text.open_start:
        end = _rest_in_order(parts, s, 0)
    else:
        start = _first_at_bound(parts[0], t, bounds)
        end = -1 if start < 0 else _rest_in_order(parts[1:], s, start + len(parts[0]))
    return 0 <= end <= limit


def exact(text: Text, t: Target) -> bool:
    """Whether the text's parts occur as they are, white space apart (not only loosely)."""
    return all(part in t.strict for part in text.strict)


def _cut_from(text: Text, s: str, start: int) -> bool:
    """Whether s[start:] is the start of something the registry text matches."""
    rest = s[start:] if start else s
    first = text.parts[0]
    if len(rest) < LIMITS["cut_min_chars"]:
        return False
    if first.startswith(rest):
        return True
    if (len(text.parts) == 1 and not text.open_end) or not rest.startswith(first):
        return False
    # The first part whole, then a placeholder: the rest of `rest` is anything, so it matches
    # if enough of the text is there (the first part, and any later ones found in order).
    chars, pos = len(first), len(first)
    for part in text.parts[1:]:
        found = rest.find(part, pos)
        if found < 0:
            break
        chars, pos = chars + len(part), found + len(part)
    return chars >= LIMITS["cut_min_chars"]


def cut_match(text: Text, t: Target, mode: str) -> bool:
    """Whether the target, cut short at one of its `...`, is the start of a text the registry
    text matches. Only for texts that start with enough fixed text to be recognised."""
    if not text.usable or text.open_start or len(text.parts[0]) < GRAM or not t.cuts:
        return False
    for cut in t.cuts:
        s = t.loose[:cut]
        if mode == "prefix":
            if _cut_from(text, s, 0):
                return True
        elif any(
            _cut_from(text, s, b)
            for b in (t.strong_order if mode == "header" else t.order)
            if b < cut
        ):
            return True
    return False


def keys_of(entry: SearchEntry) -> str:
    """What Candidates keys an entry by, as the search index keeps it (SearchEntry.keys): for
    each text that counts (below), `g:` and GRAM characters from the middle of its longest
    part (every place of a text's parts is in a target it matches), or `w:` and that part
    whole when it is shorter; and `s:` with the first GRAM characters of its first part, for
    cut-short targets. Loose text has no white space: the keys are joined with spaces."""
    keys: dict[str, None] = {}
    for t in entry.texts:
        # Only the texts that can lift an entry to the threshold: the type, the explanation,
        # and the hints when there are enough of them to, with the context. The context
        # alone never can: an entry it alone matches need not be scored.
        hints = [h for h in t.hints if len(" ".join(h.split())) >= LOG_SCORES["hint_min_chars"]]
        most = LOG_SCORES["context"] + LOG_SCORES["current"] + LOG_SCORES["hint"] * len(hints)
        counted = hints if most >= LOG_SCORES["threshold"] else []
        for value in (t.gb_type, t.explanation, *counted):
            if not value or not compile_text(value, t.older).usable:  # a bare `msg` never matches
                continue
            parts, open_start, _ = parts_of(value)
            longest = max(parts, key=len)
            middle = (len(longest) - GRAM) // 2
            key = f"g:{longest[middle : middle + GRAM]}" if middle >= 0 else f"w:{longest}"
            keys[key] = None
            if not open_start and len(parts[0]) >= GRAM:
                keys[f"s:{parts[0][:GRAM]}"] = None
    return " ".join(keys)


class Candidates:
    """Which entries could match a target, by the keys of each (keys_of): a key is in every
    target the entry can match, so no entry that could match is left out."""

    def __init__(self, entries: Sequence[SearchEntry]) -> None:
        self.entries = entries
        self.grams: dict[str, set[int]] = {}
        self.starts: dict[str, set[int]] = {}
        self.shorts: dict[str, set[int]] = {}
        tables = {"g": self.grams, "s": self.starts, "w": self.shorts}
        for i, entry in enumerate(entries):
            for key in (entry.keys or keys_of(entry)).split():
                table = tables[key[0]]
                if key[2:] in table:
                    table[key[2:]].add(i)
                else:
                    table[key[2:]] = {i}

    def of(self, texts: Iterable[str], cut_starts: Iterable[str] = ()) -> list[int]:
        """The indexes of the entries that could match one of `texts` (loose), in entry
        order."""
        found: set[int] = set()
        grams = self.grams
        texts = [s for s in texts if s]
        for s in texts:
            keys = {s[i : i + GRAM] for i in range(len(s) - GRAM + 1)}
            for key in keys & grams.keys():
                found |= grams[key]
        joined = "\n".join(texts)  # loose text has no white space: no key spans two
        if joined:
            for key, ids in self.shorts.items():
                if key in joined:
                    found |= ids
        for key in cut_starts:
            found |= self.starts.get(key, set())
        return sorted(found)


def cut_starts(t: Target, mode: str) -> list[str]:
    """The keys (Candidates.starts) a cut-short target could match a text by."""
    out = []
    for cut in t.cuts:
        starts = [0] if mode == "prefix" else [b for b in t.order if b < cut]
        out += [t.loose[b : b + GRAM] for b in starts if cut - b >= LIMITS["cut_min_chars"]]
    return out

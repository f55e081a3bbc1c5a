"""Finding the right graph break from what a user has: an id, a URL, words, or a pasted log.

The same algorithm runs in the browser (templates/assets/search.js, which mirrors `lookup` and
`parse_log` step by step) and on the command line (`gbsite lookup`); both are tested against the
same real logs of torch 2.13.0 (tests/data/logs).

1. Ids: `GB0025`, `gb0025`, `0025` or a pasted page URL name the entry directly.
2. Logs: each `Explanation:` PyTorch prints starts one graph break. The text just before it ends
   with the graph-break type ("Graph Break Reason: <type>", or "...Unsupported: <type>" for a
   fullgraph error); then come the explanation, hints, developer context and, since 2.9, the
   page URL, which settles it. Without a URL, registry texts are matched as templates whose
   `{placeholders}` match anything: the type as a suffix, explanation and context as prefixes
   (PyTorch appends details), hints anywhere. Earlier texts match too, for older releases.
3. Words: every word must occur in the entry (the last one may be a prefix, as you type);
   matches in the type weigh most, then explanation, hints, context, contributor text.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gbsite.derive import Classifier, is_runtime_text
from gbsite.model import Registry
from gbsite.views import EntryView

# glog-style prefix PyTorch's logging puts before every line of a log record.
_LOG_PREFIX = re.compile(r"[VIWEDC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\] (?:\[[^\]\n]*\] ?)*")
_URL_ID = re.compile(r"gb/gb(\d{4})\.html?", re.I)
_ID_QUERY = re.compile(r"^\s*(?:gb\s*-?\s*)?(\d{4})\s*$", re.I)
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_MARKERS = re.compile(
    r"Graph Break Reason:|Explanation:|Hint:|Developer debug context:|For more details about "
    r"this graph break|Graph break in user code at|Graph break \(user stack suppressed[^)]*\) in "
    r"user code at|User code traceback:|from user code:|Set TORCHDYNAMO_VERBOSE"
)
_WORD = re.compile(r"[a-z0-9_]+")
_SPACE = re.compile(r"\s+")

WEIGHTS = {
    "type": 6.0,
    "old_type": 4.0,
    "explanation": 3.0,
    "hints": 2.0,
    "context": 1.5,
    "info": 1.5,
}


@dataclass(frozen=True, slots=True)
class SearchText:
    """One wording of an entry, as the search needs it."""

    gb_type: str
    explanation: str
    context: str
    hints: tuple[str, ...]  # raw upstream hints without canned ones (categories cover those)
    period: str  # when it was current; "" for the current text


@dataclass(frozen=True, slots=True)
class SearchEntry:
    id: str
    slug: str
    removed: str | None
    categories: tuple[str, ...]
    added: str
    has_info: bool
    texts: tuple[SearchText, ...]  # current first
    info: str  # contributor text, plain


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One graph break as printed in a log."""

    before: str  # text ending with the graph-break type
    explanation: str
    hints: str
    context: str
    url_id: str | None


@dataclass(frozen=True, slots=True)
class Match:
    entry: SearchEntry
    score: float
    why: str


def entries_for(
    registry: Registry, views: Sequence[EntryView], info_text: dict[str, str]
) -> list[SearchEntry]:
    classifier = Classifier(registry.categories)
    out = []
    for view in views:
        texts = [view.current, *view.earlier]
        out.append(
            SearchEntry(
                id=view.id,
                slug=view.slug,
                removed=view.entry.removed,
                categories=tuple(c.key for c in view.categories),
                added=view.entry.added,
                has_info=bool(info_text.get(view.id)),
                texts=tuple(
                    SearchText(
                        t.text.gb_type,
                        t.text.explanation,
                        t.text.context,
                        tuple(h for h in t.text.hints if not classifier.is_canned(h)),
                        "" if i == 0 else t.period,
                    )
                    for i, t in enumerate(texts)
                ),
                info=info_text.get(view.id, ""),
            )
        )
    return out


_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*$", re.M)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^>]+>")
_MARKUP = re.compile(r"[*`#>|~]+")


def plain_markdown(source: str, limit: int = 4000) -> str:
    """Contributor Markdown as words to search: markup, link targets and HTML tags out; text,
    headings and code kept (people search for the API they used). Underscores stay: they are
    part of names like register_hook."""
    text = _FENCE_LINE.sub(" ", source)
    text = _LINK.sub(r"\1", text)
    text = _MARKUP.sub(" ", _TAG.sub(" ", text))
    return _SPACE.sub(" ", html.unescape(text)).strip()[:limit]


# ---- logs ------------------------------------------------------------------------------------


def _squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


FIELD_CHARS = 4000  # of a log record's explanation, hints or context that are matched


def parse_log(text: str) -> list[LogRecord]:
    """The graph breaks in a pasted log, in order. Works with or without its line breaks."""
    text = _LOG_PREFIX.sub("", text.replace("\r\n", "\n"))
    marks = list(_MARKERS.finditer(text))
    explanations = [i for i, m in enumerate(marks) if m.group() == "Explanation:"]
    if not explanations:
        # Only "Graph Break Reason: <type>" lines: each one is a record with just a type.
        return [
            LogRecord(
                _squash(text[m.end() : _line_end(text, m.end(), marks[i + 1 :])]), "", "", "", None
            )
            for i, m in enumerate(marks)
            if m.group() == "Graph Break Reason:"
        ]
    records = []
    for n, i in enumerate(explanations):
        start = marks[explanations[n - 1]].end() if n else 0
        # The type is what precedes "Explanation:", after the last marker before it.
        previous = [m for m in marks[:i] if m.start() >= start]
        before_start = previous[-1].end() if previous else start
        before = text[before_start : marks[i].start()]
        end = marks[explanations[n + 1]].start() if n + 1 < len(explanations) else len(text)
        fields: dict[str, list[str]] = {
            "Explanation:": [],
            "Hint:": [],
            "Developer debug context:": [],
        }
        url_id = None
        for j in range(i, len(marks)):
            mark = marks[j]
            if mark.start() >= end:
                break
            stop = marks[j + 1].start() if j + 1 < len(marks) else len(text)
            body = text[mark.end() : min(stop, end)]
            if mark.group() in fields:
                fields[mark.group()].append(body)
            elif mark.group().startswith("For more details") and url_id is None:
                found = _URL_ID.search(body)
                url_id = f"GB{found.group(1)}" if found else None
        records.append(
            LogRecord(
                before=_squash(before[-500:]),  # the type is at its end; what precedes it varies
                # Registry texts are far shorter: a longer field is matched by its start.
                explanation=_squash(" ".join(fields["Explanation:"])[:FIELD_CHARS]),
                hints=_squash(" ".join(fields["Hint:"])[:FIELD_CHARS]),
                context=_squash(" ".join(fields["Developer debug context:"])[:FIELD_CHARS]),
                url_id=url_id,
            )
        )
    return records


def _line_end(text: str, start: int, later: Sequence[re.Match[str]]) -> int:
    newline = text.find("\n", start)
    stops = [m.start() for m in later[:1]] + ([newline] if newline >= 0 else [])
    return min(stops) if stops else len(text)


_template_cache: dict[tuple[str, str], re.Pattern[str]] = {}


def template(text: str, mode: str) -> re.Pattern[str]:
    """Registry text as a regex: placeholders match anything, white space is flexible."""
    key = (text, mode)
    if key not in _template_cache:
        parts = [re.escape(_squash(p)) for p in _PLACEHOLDER.split(_squash(text))]
        body = r"(?:.*?)".join(parts).replace(r"\ ", r"\s*")
        anchored = {"suffix": rf"(?:^|[\s:]){body}$", "prefix": rf"^{body}", "any": body}[mode]
        _template_cache[key] = re.compile(anchored, re.S)
    return _template_cache[key]


def _usable(value: str) -> bool:
    """Texts we can match: not empty, not a bare run-time expression like `msg`."""
    value = value.strip()
    return bool(value) and not is_runtime_text(value) and bool(_PLACEHOLDER.sub("", value).strip())


def score_record(record: LogRecord, entry: SearchEntry) -> tuple[float, str]:
    best, why = 0.0, ""
    for n, text in enumerate(entry.texts):
        score, reasons = 0.0, []
        if _usable(text.gb_type) and template(text.gb_type, "suffix").search(record.before):
            score += 100
            reasons.append("graph-break type")
        if _usable(text.explanation) and template(text.explanation, "prefix").search(
            record.explanation
        ):
            score += 60
            reasons.append("explanation")
        if _usable(text.context) and template(text.context, "prefix").search(record.context):
            score += 20
            reasons.append("context")
        hits = sum(
            1
            for h in text.hints
            if _usable(h) and len(_squash(h)) >= 12 and template(h, "any").search(record.hints)
        )
        if hits:
            score += 5 * hits
            reasons.append("hints")
        if score and n == 0:
            score += 1  # the current text wins a tie with an earlier one
        if score > best:
            best = score
            earlier = f" (earlier wording: {text.period})" if text.period else ""
            why = "matches the " + ", ".join(reasons) + earlier
    if best and entry.removed:
        best -= 0.5
    return best, why


def lookup_log(text: str, entries: Sequence[SearchEntry]) -> list[Match]:
    by_id = {e.id: e for e in entries}
    matches: list[Match] = []
    seen: set[str] = set()
    for record in parse_log(text):
        found: Match | None = None
        if record.url_id and record.url_id in by_id:
            found = Match(by_id[record.url_id], 1000.0, "the link in your log")
        else:
            scored = [(score_record(record, e), e) for e in entries]
            (score, why), entry = max(scored, key=lambda s: s[0][0])
            if score >= 60:  # at least the type, or explanation plus more
                found = Match(entry, score, why)
        if found and found.entry.id not in seen:
            seen.add(found.entry.id)
            matches.append(found)
    # Links without a parsed record (a log cut short) still name their entries.
    for m in _URL_ID.finditer(text):
        gb_id = f"GB{m.group(1)}"
        if gb_id in by_id and gb_id not in seen:
            seen.add(gb_id)
            matches.append(Match(by_id[gb_id], 1000.0, "the link in your log"))
    return matches


# ---- words -----------------------------------------------------------------------------------


def _fields(entry: SearchEntry) -> list[tuple[str, str]]:
    out = []
    for n, t in enumerate(entry.texts):
        out.append(("type" if n == 0 else "old_type", t.gb_type))
        out += [
            ("explanation", t.explanation),
            ("context", t.context),
            ("hints", " ".join(t.hints)),
        ]
    out.append(("info", entry.info))
    return out


# Words that say nothing about which graph break is meant.
STOP_WORDS = frozenset(  # one string keeps the list short; the JS holds the same string
    "a an and are at be by can do does error errors fix for from get got how i in is it my of "  # noqa: SIM905
    "on or the this to with why what when".split()
)


MAX_WORDS = 64  # distinct words of a query that are scored; the rest are ignored


def query_words(query: str) -> list[str]:
    words = _WORD.findall(query.lower())
    meaningful = [w for w in words if w not in STOP_WORDS]
    return meaningful or words


def _words_of(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _word_score(word: str, last: bool, fields: Sequence[tuple[float, set[str], str]]) -> float:
    best = 0.0
    for weight, vocab, value in fields:
        if word in vocab:
            best = max(best, weight)
        elif last and any(t.startswith(word) for t in vocab):
            best = max(best, weight * 0.6)
        elif len(word) >= 3 and word in value:
            best = max(best, weight * 0.3)
    return best


def lookup_words(query: str, entries: Sequence[SearchEntry]) -> list[Match]:
    """Entries with every word; if none has them all, those with at least half of them."""
    # Each distinct word once, and at most MAX_WORDS of them: a whole log with no graph break
    # in it has tens of thousands, and scoring each against every entry took minutes.
    words = list(dict.fromkeys(query_words(query)))[:MAX_WORDS]
    if not words:
        return []
    phrase = " ".join(_WORD.findall(query.lower()))  # "data dependent" finds "Data-dependent"
    scored: list[tuple[int, Match]] = []
    for entry in entries:
        values = [(WEIGHTS[name], value.lower()) for name, value in _fields(entry) if value]
        fields = [(w, set(_WORD.findall(v)), v) for w, v in values]
        scores = [_word_score(word, i == len(words) - 1, fields) for i, word in enumerate(words)]
        matched = sum(1 for x in scores if x)
        if not matched:
            continue
        total = sum(scores)
        if len(phrase) >= 8:
            type_words = _words_of(entry.texts[0].gb_type)
            if phrase in type_words:
                # Up to 40 for the whole type: the more of the type you typed, the closer.
                total += 20 + 20 * len(phrase) / len(type_words)
            elif any(phrase in _words_of(t.explanation) for t in entry.texts):
                total += 10
        if entry.removed:
            total -= 0.5
        why = "matches your words" if matched == len(words) else "matches some of your words"
        scored.append((matched, Match(entry, total, why)))
    complete = [m for n, m in scored if n == len(words)]
    if not complete:
        half = (len(words) + 1) // 2
        complete = [m for n, m in scored if n >= max(half, 1)]
    complete.sort(key=lambda m: (-m.score, m.entry.id))
    return complete


def lookup(query: str, entries: Sequence[SearchEntry]) -> list[Match]:
    """Best first; for a log with several graph breaks, each one in log order."""
    by_id = {e.id: e for e in entries}
    if match := _ID_QUERY.match(query):
        gb_id = f"GB{match.group(1)}"
        return [Match(by_id[gb_id], 1000.0, "its id")] if gb_id in by_id else []
    if "Explanation:" in query or "graph break" in query.lower() or _URL_ID.search(query):
        found = lookup_log(query, entries)
        if found:
            return found
    return lookup_words(query, entries)


# ---- the index the browser loads -------------------------------------------------------------


def index_js(
    entries: Iterable[SearchEntry], categories: Sequence[str], releases: Sequence[str]
) -> str:
    """`assets/search-index.js`: a script, not JSON, so that it loads from file:// too."""
    release_index = {label: i for i, label in enumerate(releases)}
    category_bit = {key: 1 << i for i, key in enumerate(categories)}
    rows = [
        [
            e.id,
            1 if e.removed else 0,
            sum(category_bit[c] for c in e.categories),
            release_index[e.added],
            1 if e.has_info else 0,
            [[t.gb_type, t.explanation, t.context, list(t.hints), t.period] for t in e.texts],
            e.info,
        ]
        for e in entries
    ]
    data = {"categories": list(categories), "releases": list(releases), "entries": rows}
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"window.GBSITE_SEARCH={payload};\n"

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
   A log without `Explanation:` lines is read by its other shapes: an exception's header line
   (`torch._dynamo.exc.Unsupported: <type>`), a `Graph Break Reason:` line with the type on
   the lines after it (glog prefixes removed first), and the `UserWarning` Dynamo prints for
   some breaks (its explanation, then its hints).
3. Words: every word must occur in the entry (the last one may be a prefix, as you type);
   matches in the type weigh most, then explanation, hints, context, contributor text.

Some explanations are worked out at run time: the registry records only a variable's name
(`explanation`). RUNTIME_TEXTS holds their wordings, from torch's source, as extra texts.

`gbsite build` writes every entry's search text into `assets/search-index.js`; `gbsite lookup`
reads that file when it is newer than the registry and docs (`load_index`), so that the command
line and the browser rank the same data, and a lookup costs one JSON parse rather than loading
the registry.
"""

from __future__ import annotations

import gc
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # `gbsite lookup` imports this module: it imports only what a lookup needs
    from gbsite.registry.model import Registry
    from gbsite.registry.views import EntryView

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
# The first line of an uncaught Dynamo exception: its message is the graph-break type.
_EXCEPTION_HEADER = re.compile(
    r"^[ \t]*(?:[\w.]+\.)?(?:Unsupported|TorchRuntimeError|UserError|InternalTorchDynamoError)"
    r"[ \t]*:[ \t]*(\S.*)$",
    re.M,
)
# A Python warning Dynamo prints (warn_once) with the explanation and hints of a break.
_USER_WARNING = re.compile(r"UserWarning: (.+)((?:\n(?![ \t]*torch\._dynamo\.utils)[^\n]*)*)")

# Explanations the registry records only by a variable's name, as torch words them at run time
# (torch/_dynamo/variables/functions.py, SkipFunctionVariable.call_function, torch 2.13-2.15).
RUNTIME_TEXTS: dict[str, tuple[str, ...]] = {
    "GB0007": (
        "Dynamo does not know how to trace the builtin `{module_name}.{qualname}.` This function "
        "is either a Python builtin (e.g. _warnings.warn) or a third-party C/C++ Python extension "
        "(perhaps created with pybind).",
        "Dynamo does not know how to trace the Python builtin `{module_name}.{qualname}`.",
        "Dynamo cannot trace optree C/C++ function {module_name}.{qualname}.",
        "Dynamo developers have intentionally marked that the function `{qualname}` in file "
        "`{path}` should not be traced.",
    ),
}
RUNTIME_PERIOD = "the wording torch prints at run time"

WEIGHTS = {
    "type": 6.0,
    "old_type": 4.0,
    "explanation": 3.0,
    "hints": 2.0,
    "context": 1.5,
    "info": 1.5,
}


# Named tuples, not dataclasses: `gbsite lookup` makes ~1,300 of them from the index on every
# call (a frozen dataclass takes several times as long to construct), and this module is all it
# imports to search.
class SearchText(NamedTuple):
    """One wording of an entry, as the search needs it."""

    gb_type: str
    explanation: str
    context: str
    hints: tuple[str, ...]  # raw upstream hints without canned ones (categories cover those)
    period: str  # "" for the current text; "earlier wording: 2.8.0 to 2.13.0"; RUNTIME_PERIOD


class SearchEntry(NamedTuple):
    id: str
    slug: str
    removed: str | None  # the release it was removed in
    categories: tuple[str, ...]
    added: str
    has_info: bool
    texts: tuple[SearchText, ...]  # current first
    info: str  # contributor text, plain


class LogRecord(NamedTuple):
    """One graph break as printed in a log."""

    before: str  # text ending with the graph-break type
    explanation: str
    hints: str
    context: str
    url_id: str | None


class Match(NamedTuple):
    entry: SearchEntry
    score: float
    why: str


def entries_for(
    registry: Registry, views: Sequence[EntryView], info_text: dict[str, str]
) -> list[SearchEntry]:
    from gbsite.registry.derive import Classifier

    classifier = Classifier(registry.categories)
    out = []
    for view in views:
        texts = [view.current, *view.earlier]
        search_texts = [
            SearchText(
                t.text.gb_type,
                t.text.explanation,
                t.text.context,
                tuple(h for h in t.text.hints if not classifier.is_canned(h)),
                "" if i == 0 else f"earlier wording: {t.period}",
            )
            for i, t in enumerate(texts)
        ]
        current = search_texts[0]
        search_texts += [
            SearchText(current.gb_type, wording, current.context, current.hints, RUNTIME_PERIOD)
            for wording in RUNTIME_TEXTS.get(view.id, ())
        ]
        out.append(
            SearchEntry(
                id=view.id,
                slug=view.slug,
                removed=view.entry.removed,
                categories=tuple(c.key for c in view.categories),
                added=view.entry.added,
                has_info=bool(info_text.get(view.id)),
                texts=tuple(search_texts),
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
    import html

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
        return _records_without_explanations(text, marks)
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


def _records_without_explanations(text: str, marks: Sequence[re.Match[str]]) -> list[LogRecord]:
    """The shapes of a log cut short: each `Graph Break Reason:` with the lines after it (the
    type follows a blank line), each exception header line, each Dynamo UserWarning."""
    found: list[tuple[int, LogRecord]] = []
    for i, m in enumerate(marks):
        if m.group() == "Graph Break Reason:":
            end = _reason_end(text, m.end(), marks[i + 1 : i + 2])
            found.append((m.start(), LogRecord(_squash(text[m.end() : end]), "", "", "", None)))
    for m in _EXCEPTION_HEADER.finditer(text):
        found.append((m.start(), LogRecord(_squash(m.group(1)), "", "", "", None)))
    for m in _USER_WARNING.finditer(text):
        record = LogRecord("", _squash(m.group(1)), _squash(m.group(2)), "", None)
        found.append((m.start(), record))
    return [record for _, record in sorted(found, key=lambda f: f[0])]


def _reason_end(text: str, start: int, later: Sequence[re.Match[str]]) -> int:
    """Where a Reason's text ends: its line; when that line ends with a colon ("Encountered
    graph break when attempting to trace CALL: ...:"), the next line with words on it, which
    is the type. Never past the next marker."""
    stop = later[0].start() if later else len(text)
    end = _line_end(text, start, later)
    if not text[start:end].rstrip().endswith(":"):
        return end
    pos = end + 1
    while pos < stop:
        line_end = _line_end(text, pos, later)
        if text[pos:line_end].strip():
            return line_end
        pos = line_end + 1
    return min(end, stop)


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


_literal_cache: dict[str, tuple[str, ...]] = {}


def _could_match(text: str, target: str) -> bool:
    """Whether every literal part of a registry text occurs in `target` (without white space):
    true for every text whose template matches, and cheap, so that only a few texts are ever
    compiled into regexes. An empty target matches nothing usable (see _usable)."""
    if not target:
        return False
    parts = _literal_cache.get(text)
    if parts is None:
        pieces = _PLACEHOLDER.split(text) if "{" in text else (text,)
        parts = tuple(p for p in ("".join(piece.split()) for piece in pieces) if p)
        _literal_cache[text] = parts
    return all(part in target for part in parts)


def _usable(value: str) -> bool:
    """Texts we can match: not empty, not a bare run-time expression like `msg`."""
    from gbsite.registry.derive import is_runtime_text  # here: _could_match lets few texts this far

    value = value.strip()
    return bool(value) and not is_runtime_text(value) and bool(_PLACEHOLDER.sub("", value).strip())


def _unspaced(record: LogRecord) -> tuple[str, str, str, str]:
    """The record's fields without white space, for _could_match."""
    return (
        "".join(record.before.split()),
        "".join(record.explanation.split()),
        "".join(record.context.split()),
        "".join(record.hints.split()),
    )


def score_record(
    record: LogRecord, entry: SearchEntry, unspaced: tuple[str, str, str, str] | None = None
) -> tuple[float, str]:
    best, why = 0.0, ""
    before, explanation, context, hints = unspaced or _unspaced(record)
    for n, text in enumerate(entry.texts):
        score, reasons = 0.0, []
        if (
            _could_match(text.gb_type, before)
            and _usable(text.gb_type)
            and template(text.gb_type, "suffix").search(record.before)
        ):
            score += 100
            reasons.append("graph-break type")
        if (
            _could_match(text.explanation, explanation)
            and _usable(text.explanation)
            and template(text.explanation, "prefix").search(record.explanation)
        ):
            score += 60
            reasons.append("explanation")
        if (
            _could_match(text.context, context)
            and _usable(text.context)
            and template(text.context, "prefix").search(record.context)
        ):
            score += 20
            reasons.append("context")
        hits = sum(
            1
            for h in text.hints
            if _could_match(h, hints)
            and _usable(h)
            and len(_squash(h)) >= 12
            and template(h, "any").search(record.hints)
        )
        if hits:
            score += 5 * hits
            reasons.append("hints")
        if score and n == 0:
            score += 1  # the current text wins a tie with an earlier one
        if score > best:
            best = score
            period = f" ({text.period})" if text.period else ""
            why = "matches the " + ", ".join(reasons) + period
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
            unspaced = _unspaced(record)
            scored = [(score_record(record, e, unspaced), e) for e in entries]
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


class _Field:
    """One field of an entry, lower case; its set of words is made only when a query word
    occurs in it at all (every way a word can match needs it to be a substring)."""

    __slots__ = ("_vocab", "value", "weight")

    def __init__(self, weight: float, value: str) -> None:
        self.weight, self.value = weight, value
        self._vocab: set[str] | None = None

    @property
    def vocab(self) -> set[str]:
        if self._vocab is None:
            self._vocab = set(_WORD.findall(self.value))
        return self._vocab


def _word_score(word: str, last: bool, fields: Sequence[_Field]) -> float:
    best = 0.0
    for field in fields:
        if word not in field.value:
            continue
        if word in field.vocab:
            best = max(best, field.weight)
        elif last and any(t.startswith(word) for t in field.vocab):
            best = max(best, field.weight * 0.6)
        elif len(word) >= 3:
            best = max(best, field.weight * 0.3)
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
        fields = [_Field(WEIGHTS[name], value.lower()) for name, value in _fields(entry) if value]
        if not any(word in field.value for field in fields for word in words):
            continue
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


def lookup(
    query: str,
    entries: Sequence[SearchEntry],
    with_info: Callable[[], Sequence[SearchEntry]] | None = None,
) -> list[Match]:
    """Best first; for a log with several graph breaks, each one in log order."""
    by_id = {e.id: e for e in entries}
    if match := _ID_QUERY.match(query):
        gb_id = f"GB{match.group(1)}"
        return [Match(by_id[gb_id], 1000.0, "its id")] if gb_id in by_id else []
    if looks_like_log(query):
        found = lookup_log(query, entries)
        if found:
            return found
    # Contributed text counts for words only: `with_info` gives it when `entries` lack it.
    return lookup_words(query, with_info() if with_info else entries)


def looks_like_log(query: str) -> bool:
    """A pasted log or part of one, rather than words to look for."""
    return (
        "Explanation:" in query
        or "graph break" in query.lower()
        or "UserWarning:" in query
        or bool(_URL_ID.search(query) or _EXCEPTION_HEADER.search(query))
    )


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
            e.removed or 0,
            sum(category_bit[c] for c in e.categories),
            release_index[e.added],
            1 if e.has_info else 0,
            [[t.gb_type, t.explanation, t.context, list(t.hints), t.period] for t in e.texts],
        ]
        for e in entries
    ]
    # The contributed text last and apart: `gbsite lookup` of a log never parses it.
    data = {
        "categories": list(categories),
        "releases": list(releases),
        "entries": rows,
        "info": [e.info for e in entries],
    }
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"{_INDEX_START}{payload};\n"


_INDEX_START = "window.GBSITE_SEARCH="


_INFO_KEY = ',"info":'  # a JSON string cannot hold it: its quotes would be escaped


def parse_index_js(text: str, *, info: bool = True) -> list[SearchEntry]:
    """The entries of `assets/search-index.js`, as index_js wrote them; without `info`, their
    contributed text is left unparsed (and empty)."""
    # Thousands of small objects, none of them in a cycle: the cyclic collector would walk
    # them over and over while they are made (three quarters of the time), so it waits.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _parse_index(text, info)
    finally:
        if collecting:
            gc.enable()


def _parse_index(text: str, info: bool) -> list[SearchEntry]:
    start, cut = len(_INDEX_START), text.index(_INFO_KEY)
    data = json.loads(text[start:cut] + "}")
    infos = json.loads(text[cut + len(_INFO_KEY) : text.rindex("}")]) if info else None
    categories, releases = data["categories"], data["releases"]
    return [
        SearchEntry(
            id=row[0],
            slug=row[0].lower(),
            removed=row[1] or None,
            categories=tuple(c for i, c in enumerate(categories) if row[2] & (1 << i)),
            added=releases[row[3]],
            has_info=bool(row[4]),
            texts=tuple(SearchText(t[0], t[1], t[2], tuple(t[3]), t[4]) for t in row[5]),
            info=infos[n] if infos else "",
        )
        for n, row in enumerate(data["entries"])
    ]


def load_index(
    index: Path, sources: Iterable[Path], *, info: bool = True
) -> list[SearchEntry] | None:
    """The built site's search index, or None when it is missing or older than a file or folder
    under `sources` (the registry and the docs). Older means: its status-change time (a build
    writes the file or links it anew, which sets it) is before their newest modification."""
    try:
        built = index.stat().st_ctime_ns
    except OSError:
        return None
    if any(_newest_mtime(source) > built for source in sources):
        return None
    return parse_index_js(index.read_text(encoding="utf-8"), info=info)


def _newest_mtime(folder: Path) -> int:
    newest = 0
    try:
        newest = folder.stat().st_mtime_ns
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    newest = max(newest, _newest_mtime(Path(entry.path)))
                else:
                    newest = max(newest, entry.stat(follow_symlinks=False).st_mtime_ns)
    except OSError:
        pass
    return newest

"""Finding graph breaks in a pasted log: parsing its records and matching registry texts.

Each `Explanation:` PyTorch prints starts one graph break. The text just before it ends with the
graph-break type ("Graph Break Reason: <type>", or "...Unsupported: <type>" for a fullgraph
error); then come the explanation, hints, developer context and, since 2.9, the page URL, which
settles it. Without a URL, registry texts are matched by their literal parts (search.match): the
type at the end, explanation and context at the start (PyTorch appends details), hints anywhere.
Earlier texts match too, for older releases. A log without `Explanation:` lines is read by its
other shapes: an exception's header (`torch._dynamo.exc.Unsupported: <type>`, anywhere in a
line, or a repr `Unsupported('<type>...`), a `Graph Break Reason:` line with the type on the
lines after it, and the `UserWarning` Dynamo prints for some breaks (its explanation, then its
hints). Before any of that, a repr's escapes (`\\n`) are decoded and the prefixes of logging
and pytest removed (rules "escape", "log_prefix").

The records are found in one pass; identical ones are scored once, and each against only the
entries the pre-filter (search.match.Candidates) leaves. A lookup that runs out of its time
(rules.SECONDS) stops and says how far it got.

templates/assets/search-engine.js does the same step by step, with the patterns and scores of
search.rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gbsite.lean_typing import NamedTuple
from gbsite.search import match
from gbsite.search.match import Candidates, Target
from gbsite.search.model import Match, SearchEntry
from gbsite.search.rules import LIMITS, LOG_SCORES, MARKS, SECONDS, pattern


class LogRecord(NamedTuple):
    """One graph break as printed in a log."""

    before: str  # text ending with the graph-break type
    explanation: str
    hints: str
    context: str
    url_id: str | None


class Budget:
    """The time a lookup may take (rules.SECONDS), and how far it got."""

    def __init__(self, seconds: float | None = None) -> None:
        import time

        self.seconds = SECONDS if seconds is None else seconds
        self._clock = time.monotonic
        self.deadline = self._clock() + self.seconds
        self.stopped: tuple[int, int] | None = None  # (records searched, records in all)

    def over(self) -> bool:
        return self._clock() >= self.deadline


def _squash(text: str) -> str:
    return " ".join(text.split())


_ESCAPES = {"n": "\n", "r": "\n", "t": " ", "'": "'", '"': '"', "\\": "\\"}


def prepare(text: str) -> str:
    """The log as the parser reads it: a repr's escapes decoded (`\\n` in a one-line
    `Unsupported('...')`), then the prefixes of logging and pytest removed."""
    text = text.replace("\r\n", "\n")
    if "\\" in text:
        text = pattern("escape").sub(lambda m: _ESCAPES[m.group()[-1]], text)
    return pattern("log_prefix").sub("", text)


def parse_log(text: str) -> list[LogRecord]:
    """The graph breaks in a pasted log, in order, in one pass over its markers. Works with or
    without its line breaks."""
    text = prepare(text)
    marks = list(pattern("markers").finditer(text))
    explanation = MARKS["explanation"]
    if not any(m.group() == explanation for m in marks):
        return _records_without_explanations(text, marks)
    field_chars = LIMITS["field_chars"]  # registry texts are far shorter: a field's start counts
    names = {MARKS["explanation"]: 0, MARKS["hint"]: 1, MARKS["context"]: 2}
    records = []
    fields: list[list[str]] | None = None  # of the record being read
    before, url_id = "", None

    def finish() -> None:
        if fields is not None:
            said, hints, context = (_squash(" ".join(f)[:field_chars]) for f in fields)
            records.append(LogRecord(before, said, hints, context, url_id))

    for i, mark in enumerate(marks):
        name = mark.group()
        # A mark's text runs to the next mark; only its start counts.
        stop = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = text[mark.end() : min(stop, mark.end() + field_chars)]
        if name == explanation:
            finish()
            # The type is what precedes "Explanation:", after the mark before it.
            start = marks[i - 1].end() if i else 0
            before = _squash(text[max(start, mark.start() - LIMITS["before_chars"]) : mark.start()])
            fields, url_id = [[], [], []], None
        if fields is None:
            continue
        if name in names:
            fields[names[name]].append(body)
        elif name.startswith(MARKS["link"]) and url_id is None:
            found = pattern("url_id").search(body)
            url_id = f"GB{found.group(1)}" if found else None
    finish()
    return records


def _records_without_explanations(text: str, marks: Sequence[re.Match[str]]) -> list[LogRecord]:
    """The shapes of a log cut short: each `Graph Break Reason:` with the lines after it (the
    type follows a blank line), each exception header, each Dynamo UserWarning."""
    found: list[tuple[int, LogRecord]] = []
    for i, m in enumerate(marks):
        if m.group() == MARKS["reason"] or m.group().startswith(MARKS["explain"]):
            end = _reason_end(text, m.end(), marks[i + 1 : i + 2])
            found.append((m.start(), LogRecord(_squash(text[m.end() : end]), "", "", "", None)))
        elif m.group() == MARKS["older_reason"]:  # the message, up to ` from user code at`
            line = text[m.end() : _line_end(text, m.end(), marks[i + 1 : i + 2])]
            said = _squash(pattern("user_code_at").split(line, maxsplit=1)[0])
            if said:
                found.append((m.start(), LogRecord(said, "", "", "", None)))
    for m in pattern("exception_header").finditer(text):
        header = pattern("repr_end").sub("", m.group(1)[: LIMITS["before_chars"]])
        found.append((m.start(), LogRecord(_squash(header), "", "", "", None)))
    for m in pattern("counter_entry").finditer(text):
        found.append((m.start(), LogRecord(_squash(m.group(1)), "", "", "", None)))
    for m in pattern("user_warning").finditer(text):
        field_chars = LIMITS["field_chars"]
        record = LogRecord(
            "", _squash(m.group(1)[:field_chars]), _squash(m.group(2)[:field_chars]), "", None
        )
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


def usable(value: str) -> bool:
    """Texts we can match: not empty, not a bare run-time expression like `msg`."""
    return match.compile_text(value).usable


class _Targets:
    """A record's fields, ready to match."""

    __slots__ = ("before", "context", "explanation", "hints")

    def __init__(self, record: LogRecord) -> None:
        self.before = match.target(record.before, bounds=True)
        self.explanation = match.target(record.explanation)
        self.context = match.target(record.context)
        self.hints = match.target(record.hints)


def _part(text: str, t: Target, mode: str, literal: bool = False) -> tuple[float, str]:
    """How a registry text matches a field: (penalty, how) with how "exact", "loose" or
    "cut", or (0, "") when it does not."""
    compiled = match.compile_text(text, literal)
    if match.matches(compiled, t, mode):
        return (0.0, "exact") if match.exact(compiled, t) else (LOG_SCORES["loose"], "loose")
    if mode != "any" and match.cut_match(compiled, t, mode):
        return LOG_SCORES["cut"], "cut"
    return 0.0, ""


def score_record(
    record: LogRecord, entry: SearchEntry, targets: _Targets | None = None, older: bool = False
) -> tuple[float, str, int]:
    """How well the entry's texts of one tier match the record: today's registry texts, or
    (`older`) the wordings from before the registry; with the literal characters of the parts
    that matched, which tell the more specific of two older wordings that score alike."""
    best, why, best_chars = 0.0, "", 0
    t = targets or _Targets(record)
    for n, text in enumerate(entry.texts):
        if text.older != older:
            continue
        score, reasons, chars = 0.0, [], 0
        for value, target, mode, points, name in (
            (text.gb_type, t.before, "header" if older else "suffix", "type", "graph-break type"),
            (text.explanation, t.explanation, "prefix", "explanation", "explanation"),
            (text.context, t.context, "prefix", "context", "context"),
        ):
            penalty, how = (
                _part(value, target, mode, older) if value and target.loose else (0.0, "")
            )
            if how:
                score += LOG_SCORES[points] - penalty
                chars += match.compile_text(value, older).chars
                reasons.append(f"start of the {name}" if how == "cut" else name)
        hits = 0
        for h in text.hints if t.hints.loose else ():
            if len(_squash(h)) >= LOG_SCORES["hint_min_chars"] and match.matches(
                match.compile_text(h), t.hints, "any"
            ):
                hits += 1
        if hits:
            score += LOG_SCORES["hint"] * hits
            reasons.append("hints")
        if score and n == 0:
            score += LOG_SCORES["current"]
        if score and (score, chars) > (best, best_chars):
            best, best_chars = score, chars
            period = f" ({text.period})" if text.period else ""
            why = "matches the " + ", ".join(reasons) + period
    if best and entry.removed:
        best -= LOG_SCORES["removed"]
    return best, why, best_chars


def _best(record: LogRecord, entries: Sequence[SearchEntry], candidates: Candidates) -> list[Match]:
    """The entry whose registry texts match the record best, if one matches well enough; and
    the entry an older wording names, when it is another one (shown second, its note saying
    where the wording is from), or alone when no registry text matches."""
    # The pre-filter first, on the fields made loose (cheap): most records of a long log that
    # names no graph break end here, before their targets are made.
    fields = (record.before, record.explanation, record.context, record.hints)
    texts = [match.loose(f) for f in fields]
    starts: list[str] = []
    if any(match.has_cut(s) for s in texts[:3]):
        starts += match.cut_starts(match.target(record.before, bounds=True), "suffix")
        starts += match.cut_starts(match.target(record.explanation), "prefix")
        starts += match.cut_starts(match.target(record.context), "prefix")
    found = candidates.of(texts, starts)
    if not found:
        return []
    t = _Targets(record)
    threshold = LOG_SCORES["threshold"]
    tops: list[Match] = []
    for older in (False, True):
        scored = [(score_record(record, entries[i], t, older), entries[i]) for i in found]
        top = max((s[:3:2] for s, _ in scored), default=(0.0, 0))
        if top[0] < threshold:
            continue
        # The best; for an older wording that several ids replaced, each of them (a tie).
        tied = [Match(e, s[0], s[1]) for s, e in scored if s[:3:2] == top]
        tops += [m for m in tied if all(m.entry.id != k.entry.id for k in tops)]
        if not older and tops:
            tops = tops[:1]
    return tops


_candidates: list[tuple[Sequence[SearchEntry], Candidates]] = []


def candidates_for(entries: Sequence[SearchEntry]) -> Candidates:
    """The pre-filter of these entries, made once (a lookup searches one list of entries)."""
    for seen, made in _candidates:
        if seen is entries:
            return made
    made = Candidates(entries)
    _candidates[:] = [(entries, made)]
    return made


def lookup_log(
    text: str, entries: Sequence[SearchEntry], budget: Budget | None = None
) -> list[Match]:
    """The graph breaks of a log, each matched to its entry, in log order. Stops when the
    budget runs out (budget.stopped says how far it got)."""
    budget = budget or Budget()
    by_id = {e.id: e for e in entries}
    link = LOG_SCORES["link"]
    matches: list[Match] = []
    seen: set[str] = set()
    scored: dict[LogRecord, list[Match]] = {}  # a log repeats its breaks: each scored once
    records = parse_log(text)
    for n, record in enumerate(records):
        if budget.over():
            budget.stopped = (n, len(records))
            break
        found: list[Match]
        if record.url_id and record.url_id in by_id:
            found = [Match(by_id[record.url_id], link, "the link in your log")]
        else:
            key = record._replace(url_id=None)
            if key not in scored:
                scored[key] = _best(record, entries, candidates_for(entries))
            found = scored[key]
        for m in found:
            if m.entry.id not in seen:
                seen.add(m.entry.id)
                matches.append(m)
    # Links without a parsed record (a log cut short) still name their entries.
    for gb_id in linked_ids(text):
        if gb_id in by_id and gb_id not in seen:
            seen.add(gb_id)
            matches.append(Match(by_id[gb_id], link, "the link in your log"))
    return matches


def linked_ids(text: str) -> list[str]:
    """The ids of the page links in a text, each once, in order."""
    return list(dict.fromkeys(f"GB{m.group(1)}" for m in pattern("url_id").finditer(text)))


def lookup_quoted(
    text: str, entries: Sequence[SearchEntry], budget: Budget | None = None
) -> list[Match]:
    """Types and explanations quoted anywhere in a text (prose around them, no `Explanation:`
    before them): best first, a longer quote before a shorter one it contains."""
    if (budget and budget.over()) or len(text) < LIMITS["quote_min_chars"]:
        return []
    t = match.target(prepare(text[: LIMITS["quote_chars"]]), bounds=True)
    found: list[tuple[bool, float, int, Match]] = []
    for i in candidates_for(entries).of([t.loose]):
        entry = entries[i]
        best: tuple[float, int, str, bool] | None = None
        for n, text_n in enumerate(entry.texts):
            for value, points, name in (
                (text_n.gb_type, "type", "graph-break type"),
                (text_n.explanation, "explanation", "explanation"),
            ):
                compiled = match.compile_text(value, text_n.older)
                if compiled.chars < LIMITS["quote_min_chars"] or not match.matches(
                    compiled, t, "any"
                ):
                    continue
                score = LOG_SCORES[points] + (LOG_SCORES["current"] if n == 0 else 0.0)
                if not match.exact(compiled, t):
                    score -= LOG_SCORES["loose"]
                # A registry text before an older wording, then the higher score, then the
                # longer quote.
                mine = (not text_n.older, score, compiled.chars)
                if best is None or mine > (not best[3], *best[:2]):
                    period = f" ({text_n.period})" if text_n.period else ""
                    best = (score, compiled.chars, f"quotes the {name}{period}", text_n.older)
        if best:
            score = best[0] - (LOG_SCORES["removed"] if entry.removed else 0.0)
            found.append((best[3], score, best[1], Match(entry, score, best[2])))
    # Entries a registry text is quoted from first: an older wording's id follows them.
    found.sort(key=lambda f: (f[0], -f[1], -f[2], f[3].entry.id))
    return [m for *_, m in found]

"""Finding graph breaks in a pasted log: parsing its records and matching registry texts.

Each `Explanation:` PyTorch prints starts one graph break. The text just before it ends with the
graph-break type ("Graph Break Reason: <type>", or "...Unsupported: <type>" for a fullgraph
error); then come the explanation, hints, developer context and, since 2.9, the page URL, which
settles it. Without a URL, registry texts are matched as templates whose `{placeholders}` match
anything: the type as a suffix, explanation and context as prefixes (PyTorch appends details),
hints anywhere. Earlier texts match too, for older releases. A log without `Explanation:` lines
is read by its other shapes: an exception's header line (`torch._dynamo.exc.Unsupported:
<type>`), a `Graph Break Reason:` line with the type on the lines after it (glog prefixes
removed first), and the `UserWarning` Dynamo prints for some breaks (its explanation, then its
hints).

templates/assets/search.js does the same step by step, with the patterns and scores of
search.rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from gbsite.search.model import Match, SearchEntry
from gbsite.search.rules import LIMITS, LOG_SCORES, MARKS, TEMPLATE, TEMPLATE_MODES, pattern


class LogRecord(NamedTuple):
    """One graph break as printed in a log."""

    before: str  # text ending with the graph-break type
    explanation: str
    hints: str
    context: str
    url_id: str | None


def _squash(text: str) -> str:
    return " ".join(text.split())


def parse_log(text: str) -> list[LogRecord]:
    """The graph breaks in a pasted log, in order. Works with or without its line breaks."""
    text = pattern("log_prefix").sub("", text.replace("\r\n", "\n"))
    marks = list(pattern("markers").finditer(text))
    explanations = [i for i, m in enumerate(marks) if m.group() == MARKS["explanation"]]
    if not explanations:
        return _records_without_explanations(text, marks)
    field_chars = LIMITS["field_chars"]  # registry texts are far shorter: a field's start counts
    records = []
    for n, i in enumerate(explanations):
        start = marks[explanations[n - 1]].end() if n else 0
        # The type is what precedes "Explanation:", after the last marker before it.
        previous = [m for m in marks[:i] if m.start() >= start]
        before_start = previous[-1].end() if previous else start
        before = text[before_start : marks[i].start()]
        end = marks[explanations[n + 1]].start() if n + 1 < len(explanations) else len(text)
        fields: dict[str, list[str]] = {MARKS[k]: [] for k in ("explanation", "hint", "context")}
        url_id = None
        for j in range(i, len(marks)):
            mark = marks[j]
            if mark.start() >= end:
                break
            stop = marks[j + 1].start() if j + 1 < len(marks) else len(text)
            body = text[mark.end() : min(stop, end)]
            if mark.group() in fields:
                fields[mark.group()].append(body)
            elif mark.group().startswith(MARKS["link"]) and url_id is None:
                found = pattern("url_id").search(body)
                url_id = f"GB{found.group(1)}" if found else None
        records.append(
            LogRecord(
                before=_squash(before[-LIMITS["before_chars"] :]),
                explanation=_squash(" ".join(fields[MARKS["explanation"]])[:field_chars]),
                hints=_squash(" ".join(fields[MARKS["hint"]])[:field_chars]),
                context=_squash(" ".join(fields[MARKS["context"]])[:field_chars]),
                url_id=url_id,
            )
        )
    return records


def _records_without_explanations(text: str, marks: Sequence[re.Match[str]]) -> list[LogRecord]:
    """The shapes of a log cut short: each `Graph Break Reason:` with the lines after it (the
    type follows a blank line), each exception header line, each Dynamo UserWarning."""
    found: list[tuple[int, LogRecord]] = []
    for i, m in enumerate(marks):
        if m.group() == MARKS["reason"]:
            end = _reason_end(text, m.end(), marks[i + 1 : i + 2])
            found.append((m.start(), LogRecord(_squash(text[m.end() : end]), "", "", "", None)))
    for m in pattern("exception_header").finditer(text):
        found.append((m.start(), LogRecord(_squash(m.group(1)), "", "", "", None)))
    for m in pattern("user_warning").finditer(text):
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
        parts = pattern("placeholder").split(_squash(text))
        body = TEMPLATE["gap"].join(
            TEMPLATE["space"].join(re.escape(word) for word in _squash(part).split(" "))
            for part in parts
        )
        start, end = TEMPLATE_MODES[mode]
        _template_cache[key] = re.compile(start + body + end)
    return _template_cache[key]


_literal_cache: dict[str, tuple[str, ...]] = {}


def could_match(text: str, target: str) -> bool:
    """Whether every literal part of a registry text occurs in `target` (without white space):
    true for every text whose template matches, and cheap, so that only a few texts are ever
    compiled into regexes. An empty target matches nothing usable (see usable)."""
    if not target:
        return False
    parts = _literal_cache.get(text)
    if parts is None:
        pieces = pattern("placeholder").split(text) if "{" in text else (text,)
        parts = tuple(p for p in ("".join(piece.split()) for piece in pieces) if p)
        _literal_cache[text] = parts
    return all(part in target for part in parts)


def usable(value: str) -> bool:
    """Texts we can match: not empty, not a bare run-time expression like `msg`."""
    value = value.strip()
    return (
        bool(value)
        and not pattern("runtime_expression").match(value)
        and bool(pattern("placeholder").sub("", value).strip())
    )


def _unspaced(record: LogRecord) -> tuple[str, str, str, str]:
    """The record's fields without white space, for could_match."""
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
            could_match(text.gb_type, before)
            and usable(text.gb_type)
            and template(text.gb_type, "suffix").search(record.before)
        ):
            score += LOG_SCORES["type"]
            reasons.append("graph-break type")
        if (
            could_match(text.explanation, explanation)
            and usable(text.explanation)
            and template(text.explanation, "prefix").search(record.explanation)
        ):
            score += LOG_SCORES["explanation"]
            reasons.append("explanation")
        if (
            could_match(text.context, context)
            and usable(text.context)
            and template(text.context, "prefix").search(record.context)
        ):
            score += LOG_SCORES["context"]
            reasons.append("context")
        hits = sum(
            1
            for h in text.hints
            if could_match(h, hints)
            and usable(h)
            and len(_squash(h)) >= LOG_SCORES["hint_min_chars"]
            and template(h, "any").search(record.hints)
        )
        if hits:
            score += LOG_SCORES["hint"] * hits
            reasons.append("hints")
        if score and n == 0:
            score += LOG_SCORES["current"]
        if score > best:
            best = score
            period = f" ({text.period})" if text.period else ""
            why = "matches the " + ", ".join(reasons) + period
    if best and entry.removed:
        best -= LOG_SCORES["removed"]
    return best, why


def lookup_log(text: str, entries: Sequence[SearchEntry]) -> list[Match]:
    by_id = {e.id: e for e in entries}
    link = LOG_SCORES["link"]
    matches: list[Match] = []
    seen: set[str] = set()
    for record in parse_log(text):
        found: Match | None = None
        if record.url_id and record.url_id in by_id:
            found = Match(by_id[record.url_id], link, "the link in your log")
        else:
            unspaced = _unspaced(record)
            scored = [(score_record(record, e, unspaced), e) for e in entries]
            (score, why), entry = max(scored, key=lambda s: s[0][0])
            if score >= LOG_SCORES["threshold"]:
                found = Match(entry, score, why)
        if found and found.entry.id not in seen:
            seen.add(found.entry.id)
            matches.append(found)
    # Links without a parsed record (a log cut short) still name their entries.
    for m in pattern("url_id").finditer(text):
        gb_id = f"GB{m.group(1)}"
        if gb_id in by_id and gb_id not in seen:
            seen.add(gb_id)
            matches.append(Match(by_id[gb_id], link, "the link in your log"))
    return matches

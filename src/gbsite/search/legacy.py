"""Graph-break messages of torch releases from before the registry (2.0 to 2.7), matched to the
id that replaced each one.

Their logs print a free-text message (`torch._dynamo.exc.Unsupported: call_function args: ...`,
`Reason: data dependent operator: ...`) and no link, so the message is the only way to the page.
`registry/legacy-messages.json` (written by tools/legacy/mine.py from those releases' sources)
holds each message as a template whose `{placeholders}` stand for what the program filled in;
here each becomes a pattern tried where a message can start in a log line: the line's start and
just after `Unsupported:` or `Reason:`. The most specific template (most fixed text) wins.

The site's search does the same (templates/assets/legacy.js) with the patterns written here into
`assets/legacy-messages.js`, so the browser and `gbsite lookup` agree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from gbsite.errors import GbsiteError
from gbsite.search.model import Match, SearchEntry

FILE = "legacy-messages.json"  # in the registry folder
SCORE = 150.0  # a whole message of its own: above a graph-break type alone (rules.LOG_SCORES)
MIN_FIXED_CHARS = 10  # a template with less fixed text would match unrelated lines
MAX_LINE_CHARS = 4000  # longer lines are data, not a message

# Where in a line a message can start besides its beginning; the same in JavaScript.
STARTS = r"(?:Unsupported|Reason)\s*:\s*"
# A placeholder stands for what the program filled in: anything on the line. White space
# between fixed words: any white space, line breaks too (some messages span lines).
GAP = r"[^\n]*?"
SPACE = r"\s*"
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


class LegacyMessage(NamedTuple):
    template: str
    id: str
    releases: tuple[str, ...]  # the releases whose sources raise it, oldest first

    @property
    def period(self) -> str:
        """The minor releases it is from: "torch 2.0 to 2.2", "torch 2.7"."""
        minors = sorted(
            {".".join(r.split(".")[:2]) for r in self.releases},
            key=lambda m: tuple(int(p) for p in m.split(".")),
        )
        span = minors[0] if len(minors) == 1 else f"{minors[0]} to {minors[-1]}"
        return f"torch {span}"

    @property
    def fixed_chars(self) -> int:
        return len("".join(_PLACEHOLDER.sub("", self.template).split()))


def load(path: Path, read: Callable[[Path], bytes] | None = None) -> list[LegacyMessage]:
    """The mapped messages of the data file ([] when there is none), each template once."""
    try:
        raw = read(path) if read else path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror}") from None
    try:
        data = json.loads(raw)
        rows = data["messages"]
        found: dict[str, LegacyMessage] = {}
        for row in rows:
            gb_id, template = row["id"], row["template"]
            if not isinstance(template, str) or not isinstance(row["releases"], list):
                raise TypeError
            if gb_id is None or template in found:
                continue  # unmapped, or the same words at another code site
            if not isinstance(gb_id, str) or not re.fullmatch(r"GB\d{4}", gb_id):
                raise TypeError
            message = LegacyMessage(template, gb_id, tuple(row["releases"]))
            if message.fixed_chars >= MIN_FIXED_CHARS:
                found[template] = message
    except (ValueError, KeyError, TypeError):
        raise GbsiteError.at(
            path, None, "not the JSON tools/legacy/mine.py writes; run it again"
        ) from None
    return sorted(found.values(), key=lambda m: m.template)


def pattern_source(template: str) -> str:
    """A template as a pattern that Python's `re` and JavaScript's RegExp read alike."""
    pieces = _PLACEHOLDER.split(template)
    return GAP.join(SPACE.join(re.escape(w) for w in piece.split()) for piece in pieces)


class Matcher:
    """The templates by the first fixed word they start with, so that a line is tried only
    against the few that could match there; those starting with a placeholder apart. Each
    pattern is compiled when first tried: most lookups try a handful."""

    def __init__(self, messages: Iterable[LegacyMessage]) -> None:
        self.by_word: dict[str, list[tuple[_Lazy, LegacyMessage]]] = {}
        self.floating: list[tuple[str, _Lazy, LegacyMessage]] = []
        for m in messages:
            rx = _Lazy(m.template)
            words = m.template.split()
            if m.template.lstrip().startswith("{") or not words:
                chunks = [" ".join(p.split()) for p in _PLACEHOLDER.split(m.template)]
                self.floating.append((max(chunks, key=len), rx, m))
            else:
                self.by_word.setdefault(_first_word(m.template), []).append((rx, m))
        self.starts = re.compile(STARTS)

    def find(self, text: str) -> list[LegacyMessage]:
        """The messages in `text`, in order of appearance, each once."""
        found: list[LegacyMessage] = []
        lines = text.replace("\r\n", "\n").split("\n")
        for n, line in enumerate(lines):
            if len(line) > MAX_LINE_CHARS or not line.strip():
                continue
            rest = "\n".join(lines[n : n + 8])  # a message may go on for a few lines
            offset = len(line) - len(line.lstrip())
            positions = [offset, *(m.end() for m in self.starts.finditer(line))]
            best: LegacyMessage | None = None
            for pos in positions:
                for rx, m in self.by_word.get(_first_word(rest[pos : pos + 200]), ()):
                    better = best is None or m.fixed_chars > best.fixed_chars
                    if better and _filled(m, line, pos) and rx.match(rest, pos):
                        best = m
                for chunk, rx, m in self.floating:
                    better = best is None or m.fixed_chars > best.fixed_chars
                    if better and chunk in line and _filled(m, line, pos) and rx.match(rest, pos):
                        best = m
            if best is not None and best not in found:
                found.append(best)
        return found


def _filled(m: LegacyMessage, line: str, pos: int) -> bool:
    """A template of one fixed word (`call_function {self} {args} {kwargs}`) counts only with
    something in its placeholders: the word alone is someone searching for it."""
    if len(_PLACEHOLDER.sub(" ", m.template).split()) > 1:
        return True
    return len("".join(line[pos:].split())) > m.fixed_chars


class _Lazy:
    """A template's pattern, compiled on first use."""

    def __init__(self, template: str) -> None:
        self.template = template
        self.compiled: re.Pattern[str] | None = None

    def match(self, text: str, pos: int) -> bool:
        if self.compiled is None:
            self.compiled = re.compile(pattern_source(self.template))
        return self.compiled.match(text, pos) is not None


def _first_word(text: str) -> str:
    head = _PLACEHOLDER.split(text.lstrip(), maxsplit=1)[0]
    return head.split()[0] if head.split() else ""


def lookup_legacy(
    text: str, matcher: Matcher | None, entries: Sequence[SearchEntry]
) -> list[Match]:
    """The entries whose older messages `text` holds, each once, in the order of the log."""
    if matcher is None:
        return []
    by_id = {e.id: e for e in entries}
    out: list[Match] = []
    for m in matcher.find(text):
        entry = by_id.get(m.id)
        if entry is not None and all(x.entry.id != m.id for x in out):
            out.append(Match(entry, SCORE, why(m)))
    return out


def why(m: LegacyMessage) -> str:
    return f'the older message "{m.template}" (this message is from {m.period}; today it is {m.id})'


def index_js(messages: Sequence[LegacyMessage]) -> str:
    """`assets/legacy-messages.js`: each template's pattern, id and period, for legacy.js."""
    rows = [[pattern_source(m.template), m.id, m.period, m.template] for m in messages]
    data = {"starts": STARTS, "maxLineChars": MAX_LINE_CHARS, "score": SCORE, "messages": rows}
    return "window.GBSITE_LEGACY=" + json.dumps(data, separators=(",", ":")) + ";\n"


def by_id(messages: Iterable[LegacyMessage]) -> dict[str, list[LegacyMessage]]:
    out: dict[str, list[LegacyMessage]] = {}
    for m in messages:
        out.setdefault(m.id, []).append(m)
    return out

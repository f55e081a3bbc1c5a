"""JSON nested no deeper than its readers take: Python's decoder recurses once a level.

`json.loads` of 100,000 nested lists raises RecursionError (a crash, exit 3, not a message).
The data files gbsite reads (registry/legacy-messages.json, adjacent-messages.json) nest three
or four levels; `check` refuses any deeper than MAX_DEPTH, with the line where it goes too deep,
before the decoder sees it. Only the standard library: lookup and the build's load phase import
it.
"""

from __future__ import annotations

import re
from pathlib import Path

from gbsite.errors import GbsiteError

MAX_DEPTH = 100  # levels of [ and {

# A string (skipped whole: brackets in it are text), or a bracket.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def check(path: Path, raw: bytes, limit: int = MAX_DEPTH) -> None:
    """Raise `path:LINE: invalid JSON: nested more than N levels deep` for JSON (`raw`) that
    opens more than `limit` brackets at once. A scan without recursion; a file with fewer
    brackets than the limit is within it and is not scanned."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return
    depth = 0
    for token in _TOKEN.finditer(raw):
        bracket = token.group()
        if bracket in (b"[", b"{"):
            depth += 1
            if depth > limit:
                line = raw.count(b"\n", 0, token.start()) + 1
                raise GbsiteError.at(
                    path, line, f"invalid JSON: nested more than {limit} levels deep"
                )
        elif bracket in (b"]", b"}"):
            depth -= 1

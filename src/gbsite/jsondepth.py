"""JSON nested no deeper than its readers take: Python's decoder recurses once a level.

`json.loads` of 100,000 nested lists raises RecursionError (a crash, exit 3, not a message).
The data files gbsite reads (registry/legacy-messages.json, adjacent-messages.json) nest three
or four levels; `loads` decodes them and, only when the decoder gives up, `check` finds the line
where the file goes deeper than MAX_DEPTH: scanning every file first cost 15 ms of each of
serve's rebuilds. Only the standard library: lookup and the build's load phase import it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from gbsite.errors import GbsiteError

MAX_DEPTH = 100  # levels of [ and {

# A string (skipped whole: brackets in it are text), or a bracket.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def loads(path: Path, raw: bytes) -> Any:
    """json.loads of `raw`; JSON nested deeper than the decoder recurses is the one-line error
    of `check` (`path:LINE: invalid JSON: nested more than N levels deep`), not a RecursionError.
    Anything else json.loads raises is left to the caller."""
    try:
        return json.loads(raw)
    except RecursionError:
        check(path, raw)
        raise GbsiteError.at(path, None, "invalid JSON: nested too deep") from None


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

"""The rules search ranks by, in one place: patterns, weights, scores, stop words and limits.

`gbsite lookup` ranks with them here, and `index_js` writes them into the site's search index
(`as_json`), which templates/assets/search-engine.js reads instead of keeping its own copy: the
command line and the browser cannot drift apart. The patterns therefore use only syntax that
Python's `re` and JavaScript's RegExp read alike; flags are given in JavaScript's letters ("i",
"m").
"""

from __future__ import annotations

import re

from gbsite.lean_typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

WORD_CHARS = "a-z0-9_"  # what a word is made of, in a lower-case text

# name: (source, flags)
PATTERNS: dict[str, tuple[str, str]] = {
    # What logging and test runners put before the lines of a log record: PyTorch's glog-style
    # prefix (`V0501 12:00:00.123000 1234 torch/_dynamo/x.py:123] [0/0] `), that of releases
    # before 2.4 (`[2024-05-01 12:00:00,123] [0/0] torch._dynamo.x: [WARNING] `), a rank
    # (`[rank0]:`) and pytest's `E   `. Each piece is bounded by the character that ends it,
    # so no input makes it backtrack.
    "log_prefix": (
        r"[VIWEDC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\s\]]*:\d+\] (?:\[[^\]\n]*\] ?)*"
        r"|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\] (?:\[[^\]\n]*\] )*[\w.]+: \[[A-Z]+\] ?"
        r"(?:\[[^\]\n]*\] ?)*|\[rank\d+\]: ?|^E(?:   | *$)",
        "m",
    ),
    # The escapes of a message printed as a one-line repr (`Unsupported('...\\n  Explanation:
    # ...')`): decoded before anything else is read.
    "escape": (r"\\(?:r\\n|[nrt'\"\\])", ""),
    # Registry texts and logs are compared without these: white space (a log's lines wrap, a
    # one-line box drops them), and the backticks, asterisks and underscores Markdown eats
    # when a message is pasted into an issue or chat without a code block.
    "loose": (r"[\s`*_]+", ""),
    # Where a message was cut short (pytest shortens long values with `...`).
    "cut": (r"\.\.\.|\u2026", ""),
    "url_id": (r"gb/gb(\d{4})\.html?", "i"),
    # An id in any spelling: GB0059, gb59, 0059, 59 (one to four digits, GB optional).
    "id_query": (r"^\s*(?:gb\s*-?\s*)?(\d{1,4})\s*$", "i"),
    "placeholder": (r"\{[^{}]*\}", ""),
    # Where the parts of a graph break's message start (MARKS names those the parser keys on).
    "markers": (
        r"Graph Break Reason:|Break Reason [0-9]{1,4}:[ \t]*\n?[ \t]*Reason:|Graph break: |"
        r"Explanation:|Hint:|Developer debug context:|For more details about "
        r"this graph break|Graph break in user code at|Graph break \(user stack suppressed"
        r"[^)\n]{0,200}\) in user code at|User code traceback:|from user code:|"
        r"Set TORCHDYNAMO_VERBOSE",
        "",
    ),
    "word": (f"[{WORD_CHARS}]+", ""),
    # The first line of an uncaught Dynamo exception: its message is the graph-break type.
    # Anywhere in a line (`E   torch._dynamo.exc.Unsupported: ...` under pytest), with a
    # colon, as a repr (`Unsupported('...`) or with neither. No module path before the name:
    # a pattern that starts with a word lets the search skip to it, and cannot backtrack.
    "exception_header": (
        r"\b(?:Unsupported|TorchRuntimeError|UserError|InternalTorchDynamoError)\b"
        r"[ \t]*[:(]?[ \t]*['\"]?[ \t]*(\S[^\n]*)",
        "",
    ),
    # Where the message of an older graph_breaks line ends (MARKS "older_reason").
    "user_code_at": (r" from user code at", ""),
    # A key of a Counter printed as a repr with its count (`print(torch._dynamo.utils.counters)`:
    # `'graph_break': Counter({'<message>': 3, '<message>': 1})`): each message a record.
    "counter_entry": (r"(?:Counter\(\{|,[ \t]*)['\"]([^'\"\n]{1,500})['\"]:[ \t]*[0-9]+", ""),
    # The end of a repr after a message: `')`, to leave the type at the end of its record.
    "repr_end": (r"['\"]\)?[ \t]*$", ""),
    # A Python warning Dynamo prints (warn_once) with the explanation and hints of a break.
    "user_warning": (r"UserWarning: (.+)((?:\n(?![ \t]*torch\._dynamo\.utils)[^\n]*)*)", ""),
    # A registry text that is only an expression worked out at run time (`str(e)`, `msg`):
    # it matches no log. The shape registry/derive.py's is_runtime_text flags (a test holds
    # the two to the same verdict on every registry text).
    "runtime_expression": (r"^[A-Za-z_][\w.]*(\(.*\))?$", ""),
}

# A registry text is matched by its literal parts (the text between its {placeholders},
# compared loosely: see the "loose" pattern), found in order, each as early as it can be, so
# that the work is linear in the log's length: the type at the end of the text before
# `Explanation:` ("suffix"; it starts at the start, after white space or after one of
# BOUNDARY), explanation and context at the start of theirs ("prefix"; PyTorch appends
# details), hints anywhere ("any"). logs.py and search-engine.js implement the modes.
BOUNDARY = ":'\"(]"  # "]": after a prefix glued to the text (`[00:00<?, ?it/s]Attempted...`)

# What the log parser looks for among the markers.
MARKS = {
    "reason": "Graph Break Reason:",
    "explain": "Break Reason ",  # the start of a reason in torch._dynamo.explain()'s output
    # torch 2.0 to 2.3's graph_breaks log: `Graph break: <message> from user code at:`
    "older_reason": "Graph break: ",
    "explanation": "Explanation:",
    "hint": "Hint:",
    "context": "Developer debug context:",
    "link": "For more details",  # the start of the marker before a page's URL
}
# A query with one of these (or a page URL, or an exception header) is read as a log first.
LOG_SIGNS = ("Explanation:", "UserWarning:", "'graph_break': Counter(")
LOG_SIGNS_ANY_CASE = ("graph break",)

# A log record against a registry text: points per part that matches.
LOG_SCORES = {
    "type": 100.0,
    "explanation": 60.0,
    "context": 20.0,
    "hint": 5.0,  # per hint
    "hint_min_chars": 12,  # shorter hints match too much to count
    "current": 1.0,  # the current text wins a tie with an earlier one
    "removed": 0.5,  # subtracted for a removed entry
    "loose": 0.25,  # subtracted per part that matches only loosely (underscores, backticks)
    "cut": 0.5,  # subtracted per part whose log text was cut short and matches as far as it goes
    "threshold": 59.0,  # at least the type, or the explanation (loosely or cut short)
    "link": 1000.0,  # a page URL or id names the entry outright
}

# Words against an entry's fields: a word counts the weight of the best field it is in.
WEIGHTS = {
    "type": 6.0,
    "old_type": 4.0,
    "explanation": 3.0,
    "hints": 2.0,
    "context": 1.5,
    "info": 1.5,
}
WORD_SCORES = {
    "prefix": 0.6,  # of the weight, for the last word as the start of a word (as you type)
    "inside": 0.3,  # of the weight, for a word inside another word
    "inside_min_chars": 3,
    "phrase_min_chars": 8,  # the whole query as a phrase of 2+ words, at least this long, adds:
    "phrase_type": 20.0,  # in the type, plus as much again times the share of its words typed
    "phrase_explanation": 10.0,  # in an explanation
    "removed": 0.5,  # subtracted for a removed entry
}
# Words that say nothing about which graph break is meant.
STOP_WORDS = frozenset(  # one string keeps the list short
    "a an and are at be by can do does error errors fix for from get got how i in is it my of "  # noqa: SIM905
    "on or the this to with why what when".split()
)
# What a lookup says besides its matches (search-engine.js words them the same from the index).
NOTES = {
    "unknown": "{id} is not in the registry, whose newest release imported is {newest}. If a "
    "later release adds it, its page will be {link}",
    "newer": "{id} is not in the registry: it is past the highest id known ({highest}), so it "
    "may be newer than the newest release imported ({newest}). Its page will be {link}",
    "stopped": "stopped after {seconds} s; the first {done} records were searched (of {total})",
    "weak": "No graph break has all of your words: these have some of them.",
}
LIMITS = {
    "max_words": 64,  # distinct words of a query that are scored; the rest are ignored
    "field_chars": 4000,  # of a log record's explanation, hints or context that are matched
    "before_chars": 500,  # of the text before `Explanation:`; the type is at its end
    "cut_min_chars": 12,  # of a registry text a cut-short log text must match (loosely)
    "cuts": 4,  # places a field may be cut short at (`...`) that are tried
    "quote_chars": 4000,  # of a query searched for registry texts quoted in prose
    "quote_min_chars": 16,  # literal characters a quoted type or explanation must have
}
SECONDS = 3.0  # a lookup stops after this long, and says how far it got (limits "seconds")

_FLAGS = {"i": re.I, "m": re.M}
_compiled: dict[str, re.Pattern[str]] = {}


def pattern(name: str) -> re.Pattern[str]:
    """PATTERNS[name], compiled on first use: a lookup compiles only those it needs."""
    found = _compiled.get(name)
    if found is None:
        source, flags = PATTERNS[name]
        found = _compiled[name] = re.compile(source, sum(_FLAGS[f] for f in flags))
    return found


def as_json() -> dict[str, Any]:
    """The rules as the browser reads them from the search index."""
    return {
        "patterns": {name: list(p) for name, p in PATTERNS.items()},
        "wordChars": WORD_CHARS,
        "boundary": BOUNDARY,
        "marks": MARKS,
        "logSigns": list(LOG_SIGNS),
        "logSignsAnyCase": list(LOG_SIGNS_ANY_CASE),
        "logScores": LOG_SCORES,
        "weights": WEIGHTS,
        "wordScores": WORD_SCORES,
        "stopWords": sorted(STOP_WORDS),
        "limits": {**LIMITS, "seconds": SECONDS},
        "notes": NOTES,
    }

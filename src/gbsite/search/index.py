"""The search index: what `gbsite build` writes into `assets/search-index.js`, and reading it back.

The index holds every entry's search texts, the contributed text of its page (plain, apart and
last), and the rules of search.rules, so that templates/assets/search-engine.js ranks with the
weights `gbsite lookup` uses. `gbsite lookup` reads the built index while it is newer than the
registry and docs (`load_index`): the command line and the browser rank the same data, and a
lookup costs one JSON parse rather than loading the registry.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from gbsite import urls
from gbsite.fs.files import read_input
from gbsite.lean_typing import TYPE_CHECKING
from gbsite.search import rules
from gbsite.search.model import SearchEntry, SearchText

if TYPE_CHECKING:  # `gbsite lookup` imports this module: it imports only what a lookup needs
    from gbsite.registry.model import Registry
    from gbsite.registry.views import EntryView

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


def entries_for(
    registry: Registry,
    views: Sequence[EntryView],
    info_text: dict[str, str],
    aliases: dict[str, list[tuple[str, str]]] | None = None,
) -> list[SearchEntry]:
    """Each entry's search texts: its wordings, current first, the run-time wordings of
    RUNTIME_TEXTS, and `aliases` (search.legacy.aliases: old messages of that id's break, each
    with its period) as wordings of the type."""
    from gbsite.registry.derive import Classifier

    classifier = Classifier(registry.categories)
    from gbsite.search.match import keys_of

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
        # Fields that are a Python name in the registry, with the text torch's source gives it.
        search_texts += [
            SearchText(
                t.text.gb_type,
                t.text.explanation,
                t.text.context,
                tuple(h for h in t.text.hints if not classifier.is_canned(h)),
                t.period,
            )
            for t in view.resolved_wordings
        ]
        search_texts += [
            SearchText(template, "", "", (), note, older=True)
            for template, note in (aliases or {}).get(view.id, ())
        ]
        entry = SearchEntry(
            id=view.id,
            slug=view.slug,
            removed=view.entry.removed,
            categories=tuple(c.key for c in view.categories),
            added=view.entry.added,
            has_info=bool(info_text.get(view.id)),
            texts=tuple(search_texts),
            info=info_text.get(view.id, ""),
        )
        out.append(entry._replace(keys=keys_of(entry)))
    return out


# Sources, not compiled patterns: only the build needs them (re keeps them compiled), and
# `gbsite lookup`, which imports this module, does not compile them.
_FENCE_LINE = r"(?m)^ {0,3}(`{3,}|~{3,}).*$"
# An image's `!` or a link's `[` first: a pattern that begins with one of two literals lets `re`
# skip to them, where `!?\[` was tried at every character (twice as slow over the docs).
_LINK = r"(?:!\[|\[)([^\]]*)\]\([^)]*\)"
_TAG = r"<[^>]+>"
_MARKUP = "*`#>|~"


def plain_markdown(source: str, limit: int = 4000) -> str:
    """Contributor Markdown as words to search: markup, link targets and HTML tags out; text,
    headings and code kept (people search for the API they used). Underscores stay: they are
    part of names like register_hook."""
    import html

    text = re.sub(_FENCE_LINE, " ", source)
    text = re.sub(_LINK, r"\1", text)
    text = re.sub(_TAG, " ", text)
    for mark in _MARKUP:  # each a space, not each run: the spaces are joined below
        text = text.replace(mark, " ")
    return " ".join(html.unescape(text).split())[:limit]


def index_js(
    entries: Iterable[SearchEntry], categories: Sequence[str], releases: Sequence[str]
) -> str:
    """`assets/search-index.js`: a script, not JSON, so that it loads from file:// too."""
    entries = list(entries)
    return index_head(entries, categories, releases) + index_tail([e.info for e in entries])


def index_head(
    entries: Sequence[SearchEntry], categories: Sequence[str], releases: Sequence[str]
) -> str:
    """The index up to its contributed text: its registry texts, and which entries have
    contributed text. A save in `gbsite serve` changes contributed text only, so serve keeps
    this part (site/pages.py). The index is one JSON object, written a key at a time:
    json.dumps writes each value the same whether in the object or alone."""
    from gbsite.releases import order
    from gbsite.search.match import keys_of

    release_index = {label: i for i, label in enumerate(releases)}
    category_bit = {key: 1 << i for i, key in enumerate(categories)}
    rows = [
        [
            e.id,
            e.removed or 0,
            sum(category_bit[c] for c in e.categories),
            release_index[e.added],
            1 if e.has_info else 0,
            # An older wording has a sixth item, 1.
            [
                [
                    t.gb_type,
                    t.explanation,
                    t.context,
                    list(t.hints),
                    t.period,
                    *([1] if t.older else []),
                ]
                for t in e.texts
            ],
            e.keys or keys_of(e),  # the pre-filter's keys: made once, here, not per lookup
        ]
        for e in entries
    ]
    newest = max(releases, key=order, default="")  # for the note on an unknown id
    # ASCII: the few other characters escaped keep the file a plain byte string, which
    # `gbsite lookup` decodes and parses faster.
    return (
        f"{_INDEX_START}{{"
        f'"categories":{_json(list(categories))},"releases":{_json(list(releases))},'
        f'"newest":{_json(newest)},"entries":{_json(rows)}'
    )


def index_tail(info: Sequence[str]) -> str:
    """The rest of the index: the contributed text apart, after the entries (`gbsite lookup`
    of a log never parses it), then the rules, which lookup has in search.rules."""
    texts = ",".join(map(_json_text, info))  # what _json(list(info)) writes
    return f',"info":[{texts}],"rules":{_json(rules.as_json())}}};\n'


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


@functools.lru_cache(maxsize=4096)
def _json_text(text: str) -> str:
    """One entry's contributed text as JSON, kept per text: serve writes the index again after
    every save, which changes one of them (~1.3 MB of JSON for the committed docs: ~3.5 ms)."""
    return json.dumps(text)


_INDEX_START = "window.GBSITE_SEARCH="
# Where the contributed text starts and ends: the first such key from the start (the strings
# before it cannot hold it, as their quotes would be escaped) and the last from the end.
_INFO_KEY = b',"info":'
_RULES_KEY = b',"rules":'


def parse_index_js(text: str, *, info: bool = True) -> list[SearchEntry]:
    """The entries of `assets/search-index.js`, as index_js wrote them; without `info`, their
    contributed text is left unparsed (and empty)."""
    return _parse_index(text.encode("utf-8"), info).entries


class SearchIndex:
    __slots__ = ("entries", "newest")

    def __init__(self, entries: list[SearchEntry], newest: str) -> None:
        self.entries = entries
        self.newest = newest  # the newest release imported


def parse_index_bytes(raw: bytes, *, info: bool = True) -> SearchIndex:
    """The index of the file's bytes, as read (the lookup cache's copy)."""
    return _parse_index(raw, info)


def _parse_index(raw: bytes, info: bool) -> SearchIndex:
    # Thousands of small objects, none of them in a cycle: the cyclic collector would walk
    # them over and over while they are made (three quarters of the time), so it waits.
    collecting = gc.isenabled()
    gc.disable()
    try:
        start, cut = len(_INDEX_START), raw.index(_INFO_KEY)
        # Decoded here: json.loads decodes bytes with an error handler, three times as slowly.
        data = json.loads(raw[start:cut].decode() + "}")
        end = raw.rindex(_RULES_KEY) if info else 0
        infos = json.loads(raw[cut + len(_INFO_KEY) : end].decode()) if info else None
        categories, releases = data["categories"], data["releases"]
        masks = {row[2] for row in data["entries"]}  # a few dozen sets of categories
        by_mask = {m: tuple(c for i, c in enumerate(categories) if m & (1 << i)) for m in masks}
        entries = [
            SearchEntry(
                id=row[0],
                slug=urls.slug(row[0]),
                removed=row[1] or None,
                categories=by_mask[row[2]],
                added=releases[row[3]],
                has_info=bool(row[4]),
                texts=tuple(
                    SearchText(t[0], t[1], t[2], tuple(t[3]), t[4], len(t) > 5) for t in row[5]
                ),
                info=infos[n] if infos else "",
                keys=row[6],
            )
            for n, row in enumerate(data["entries"])
        ]
        return SearchIndex(entries, data.get("newest", ""))
    finally:
        if collecting:
            gc.enable()


def load_index(index: Path, sources: Iterable[Path], *, info: bool = True) -> SearchIndex | None:
    """The built site's search index, or None when it is missing or older than a file or folder
    under `sources` (the registry and the docs). Older means: its status-change time (a build
    writes the file or links it anew, which sets it) is before their newest modification.
    Read as bytes: without `info`, most of the file (the contributed text) is never decoded."""
    try:
        built = index.stat().st_ctime_ns
    except OSError:
        return None
    if any(_newest_mtime(source) > built for source in sources):
        return None
    return _parse_index(read_input(index), info)


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

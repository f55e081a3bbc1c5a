"""Highlighted code kept between builds, in the user's cache folder (config.cache_dir()):
`highlight/KEY.json`, a map from docs/highlight.py's key of a code block to its HTML.

KEY names Pygments' version and the sources of docs/highlight.py (its formatter and options)
and docs/narrowed.py (its lexing loop), so an upgrade or a change of how code is highlighted
starts a new file and never reuses old HTML. The file is a cache only: one that is missing,
unreadable, too large or not such a map is ignored (the build highlights everything again), and
one that cannot be written is not written. Writes are atomic (fs/files.py), so two builds at
once leave one of their files, never a mix.
"""

from __future__ import annotations

import json
from pathlib import Path

from gbsite.docs.highlight import Highlighter

FOLDER = "highlight"
MAX_BYTES = 64 * 2**20  # far above the docs' ~3 MB of highlighted code; a bigger file is not ours
MAX_ENTRIES = 20_000  # past this, only what the last build used is kept


def cache_file() -> Path:
    import pygments

    from gbsite.config import cache_dir
    from gbsite.docs import highlight, narrowed
    from gbsite.fs.files import cache_name

    lexing = cache_name(narrowed.__file__)  # the loop that tries Pygments' rules
    name = cache_name(highlight.__file__, pygments.__version__, lexing)
    return cache_dir() / FOLDER / f"{name}.json"


def load() -> Highlighter:
    """A Highlighter with what the last build kept, or with nothing."""
    from gbsite.fs.files import read_text_map

    return Highlighter(read_text_map(cache_file(), limit=MAX_BYTES))


def save(highlighter: Highlighter, new: dict[str, str], used: set[str]) -> None:
    """Keep what a build highlighted (`new`, from every process that rendered) beside what it
    reused, when it highlighted anything; then `highlighter` holds all of it for the next build
    of this process (serve)."""
    highlighter.kept.update(new)
    highlighter.new.clear()
    highlighter.used.clear()
    if not new:
        return
    kept = highlighter.kept
    if len(kept) > MAX_ENTRIES:
        kept = highlighter.kept = {key: html for key, html in kept.items() if key in used}
    from gbsite.fs.files import write_cache

    write_cache(cache_file(), json.dumps(kept, separators=(",", ":")).encode())

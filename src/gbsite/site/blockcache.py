"""Contributor blocks rendered by earlier builds, kept in the user's cache folder
(config.cache_dir()): `blocks/NAME.lines`, a line per block (fs/files.py:read_json_lines): the
key of an entry's id and its block's Markdown, and what docs/blocks.py made of it (each
section's HTML, the highlighting classes of its code) as JSON. Lines, not one JSON map of JSON
texts: reading the ~5 MB file decodes each block once, when it is used, and writing it joins
the texts (the committed docs' blocks: 34-50 ms instead of 72 to read and decode, 5-7 ms
instead of 36 to write).

A block's HTML is a function of its Markdown, its id, and what a BuildCache's generation covers
(fingerprint.py: the registry's ids, the record's outcomes, gbsite.toml, gbsite's own code):
within one generation, serve already keeps blocks by their Markdown (cache.py). This file keeps
them for the next command too, so `gbsite build` after one docs file changed, or into a new
folder, renders that one block and not all ~600 (about two thirds of rendering the pages when
the code's highlighting is kept, site/highlights.py). NAME names the generation, the versions
of the libraries that render (markdown-it-py, mdit-py-plugins, Pygments, nh3) and Python's
(which code `ast` parses, examples/shown.py), so anything else starts a new file.

A cache only: a file that is missing, unreadable, too large or not text is ignored, a line or
an entry that is not a block is rendered again, and a file that cannot be written is not written.
The newest KEEP files stay (projects and branches built in turn each keep theirs); older ones
are removed when a build writes one. What is read back is not sanitized again: the folder is
the user's own, and gbsite already runs the torch environments it holds (examples/torchenv.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from gbsite.docs.blocks import RenderedBlock, RenderedPart, RenderedReading

FOLDER = "blocks"
SUFFIX = ".lines"
KEEP = 4
MAX_BYTES = 64 * 2**20  # the committed docs make ~5 MB; a bigger file is not ours


class Store:
    """The blocks one generation's file holds (`kept`, as JSON text, decoded when asked for),
    and those rendered since (`new`, by key, as JSON text: a forked worker sends them back)."""

    def __init__(self, path: Path, kept: dict[str, str]) -> None:
        self.path = path
        self.kept = kept
        self.new: dict[str, str] = {}

    def has(self, gb_id: str, source: str) -> bool:
        return key_of(gb_id, source) in self.kept

    def get(self, gb_id: str, source: str) -> RenderedBlock | None:
        found = self.kept.get(key_of(gb_id, source))
        if found is None:
            return None
        try:
            return decode(found)
        except (ValueError, TypeError, IndexError, KeyError):  # not a block: render it again
            return None

    def add(self, gb_id: str, source: str, block: RenderedBlock) -> None:
        self.new[key_of(gb_id, source)] = encode(block)


def key_of(gb_id: str, source: str) -> str:
    import hashlib

    data = f"{gb_id}\0{source}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:32]


def encode(block: RenderedBlock) -> str:
    reading = block.reading
    groups = (
        reading.answer,
        reading.why_more,
        reading.example,
        reading.more_fixes,
        reading.rest,
        reading.tried,
    )
    sections = [[[p.role, p.title, p.html, p.anchor] for p in group] for group in groups]
    return json.dumps({"sections": sections, "classes": list(block.classes)})


def decode(text: str) -> RenderedBlock:
    data = json.loads(text)
    sections = data["sections"]
    if len(sections) != 6 or any(len(part) != 4 for group in sections for part in group):
        raise ValueError("not a block")
    groups = [tuple(RenderedPart(*map(_text, part)) for part in group) for group in sections]
    return RenderedBlock(RenderedReading(*groups), tuple(map(_text, data["classes"])))


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not text")
    return value


def cache_file(generation: str) -> Path:
    import sys

    import nh3

    from gbsite.config import cache_dir
    from gbsite.fs.files import cache_name, package_versions

    packages = package_versions("markdown_it", "mdit_py_plugins", "pygments")
    nh3_version = getattr(nh3, "__version__", "")  # in its compiled module; not in its stubs
    versions = (generation, *packages, f"nh3 {nh3_version}", f"Python {sys.version}")
    return cache_dir() / FOLDER / f"{cache_name(__file__, *versions)}{SUFFIX}"


def load(generation: str) -> Store:
    """The blocks kept for `generation`, or none."""
    import contextlib
    import os

    from gbsite.fs.files import read_json_lines

    path = cache_file(generation)
    kept = read_json_lines(path, limit=MAX_BYTES)
    if kept:
        with contextlib.suppress(OSError):
            os.utime(path)  # used: the newest files are the ones kept
    return Store(path, kept)


def save(store: Store, new: dict[str, str]) -> None:
    """Keep the blocks rendered anew (`new`, from every process that rendered) beside those
    kept; then remove all but the newest KEEP files."""
    if not new:
        return
    from gbsite.fs.files import json_lines, keep_newest, write_cache

    store.kept.update(new)
    write_cache(store.path, json_lines(store.kept))
    keep_newest(store.path.parent, f"*{SUFFIX}", KEEP)
    keep_newest(store.path.parent, "*.json", 0)  # the files of gbsite before SUFFIX: never read

"""What parsing a YAML or TOML text gave, scanning a docs block's Markdown for its fences
(examples/annotations.py) or an example's Python for where it binds a name (examples/shown.py),
kept between commands in the user's cache folder (config.cache_dir()):
`parsed/KIND-VERSION.lines`, a text's key (its SHA-256, but for TOML the text) and its data as
JSON, a line each (fs/files.py:read_json_lines: each text decoded only when it is used).

Parsing is a function of the text, so a text parsed before is not parsed again: the registry's
and the record's YAML were most of a build's load phase (~0.6 s of ~0.9 s), and tomllib's
import is ~6 ms of a `gbsite lookup`. VERSION names what parses (PyYAML's version and
yamlio.py's source; Python's version for tomllib), so an upgrade or a change of the rules starts
a new file. Kept only: data that JSON gives back equal (text, numbers, booleans, null, lists,
maps with text keys); a date or a set is parsed every time. A text that fails to parse is never
kept, so its error, with its line, is raised again.

Only inside `session()` (each command: cli.main; a build, also when it is called as a
function; a forked worker's own_session): what one session added is written when it ends,
merged with what another wrote meanwhile. The file is a cache only: missing, unreadable, too
large or not such a map, it is ignored; one that cannot be written is not written. Each value
is decoded on every use, so no caller can change what the next one gets.

Every command reads the whole file, so it is kept near KEEP_BYTES: a command that adds a text
writes the file with what it used or added last, so the file's order is the order of use, and
the texts used longest ago are left out first. (Left to grow to MAX_BYTES with the texts of old
edits and other checkouts, 7 MB cost each command ~45 ms to read, and one that added a text
~90 ms more to write.)
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from gbsite.lean_typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

FOLDER = "parsed"
MAX_BYTES = 8 * 2**20  # a larger file is not one gbsite wrote: ignored
KEEP_BYTES = 3 * 2**20  # about three times what a project's registry and record parse to

Stamp = tuple[int, int, int]  # a file's inode, size and time of change

_stores: dict[str, _Store] | None = None  # None: outside a session, nothing is kept


class _Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.kept: dict[str, str] | None = None  # read when first asked
        self.stamp: Stamp | None = None  # the file's, when it was read
        self.new: dict[str, str] = {}
        self.used: dict[str, None] = {}  # the keys found or added, in the order of use

    def get(self, key: str) -> str | None:
        if self.kept is None:
            self.stamp, self.kept = _read(self.path)
        found = self.new.get(key) or self.kept.get(key)
        if found is not None:
            self.used[key] = None
        return found

    def save(self) -> None:
        if not self.new:
            return
        from gbsite.fs.files import json_lines, write_cache

        ours = {**(self.kept or {}), **self.new}
        recent = {key: ours[key] for key in self.used}  # used: found in kept or new
        kept = self.kept
        if kept is None or _stamp(self.path) != self.stamp:
            kept = _read(self.path)[1]  # what another command wrote meanwhile too
        write_cache(self.path, json_lines(_trimmed(kept, recent)))


def _trimmed(kept: dict[str, str], recent: dict[str, str]) -> dict[str, str]:
    """`kept` then `recent`, without what `recent` repeats, and without the first of `kept`
    (used longest ago) past what KEEP_BYTES leaves; `recent` is always whole."""
    room = KEEP_BYTES - sum(_size(key, value) for key, value in recent.items())
    older = []
    for key in reversed(kept):
        if key in recent:
            continue
        room -= _size(key, kept[key])
        if room < 0:
            break
        older.append(key)
    return {**{key: kept[key] for key in reversed(older)}, **recent}


def _size(key: str, value: str) -> int:
    """About what an entry takes in the file (escapes of the key aside)."""
    return len(key) + len(value) + 3  # the key's quotes, the line break


def _stamp(path: Path) -> Stamp | None:
    """What changes when the file is written again (a write replaces it: fs/files.py)."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _read(path: Path) -> tuple[Stamp | None, dict[str, str]]:
    """The file's stamp (taken first: a file written meanwhile looks changed) and its map."""
    from gbsite.fs.files import read_json_lines

    stamp = _stamp(path)
    return stamp, read_json_lines(path, limit=MAX_BYTES)


@contextlib.contextmanager
def session() -> Iterator[None]:
    """Keep what is parsed in here, and write it when the block ends."""
    global _stores
    if _stores is not None:  # nested (a command calling another): the outer one writes
        yield
        return
    _stores = {}
    try:
        yield
    finally:
        stores, _stores = _stores, None
        for store in stores.values():
            store.save()


@contextlib.contextmanager
def own_session() -> Iterator[None]:
    """A session of a forked worker's own: what it parses is written when the block ends,
    without what its parent's session holds (the parent writes that)."""
    global _stores
    _stores = None  # this process's copy: the parent's is untouched
    with session():
        yield


def parse(kind: str, version: Callable[[], str], text: str, parser: Callable[[str], Any]) -> Any:
    """`parser(text)`, or what it gave for the same text before. `kind` names the file ("yaml",
    "toml"), `version()` what parses. A text of the kind "toml" is its own key (short, and
    hashlib's import would cost a lookup more than tomllib's)."""
    if _stores is None:
        return parser(text)
    import json  # here: `gbsite --help` and a command that parses nothing do not need it

    store = _stores.get(kind)
    if store is None:
        from gbsite.config import cache_dir

        store = _stores[kind] = _Store(cache_dir() / FOLDER / f"{kind}-{version()}.lines")
    key = text if kind == "toml" else _digest(text)
    found = store.get(key)
    if found is not None:
        with contextlib.suppress(ValueError):
            return json.loads(found)
    data = parser(text)
    with contextlib.suppress(TypeError, ValueError, RecursionError):  # no JSON for it
        encoded = json.dumps(data, separators=(",", ":"), allow_nan=False)
        if json.loads(encoded) == data:
            store.new[key] = encoded
            store.used[key] = None
    return data


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def python_version() -> str:
    """What names the version of a parser of the standard library (tomllib)."""
    return "python" + ".".join(map(str, sys.version_info[:3]))

"""`gbsite lookup`'s search index when the site is not built (a fresh clone) or is older than
the registry and docs: built once, as the site builds it (index_js), and kept in the user's
cache folder (`$GBSITE_CACHE_DIR/lookup`, config.cache_dir) under a key of what it is made of.

Loading and validating the registry takes ten times as long as parsing the index, so without
this every lookup before a `gbsite build` paid for it. The key is a checksum of the name, size
and modification time of every file the index is made of (registry/, docs/gb/) and of gbsite's
code that makes it (key): ~1,300 files' metadata, as many as load_index looks at to tell
whether the built site is fresh; reading them would cost more than the lookup. An edit, a new
import or another gbsite makes a new key; a cache that cannot be written (a read-only home) is
skipped, and the index built in memory.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from gbsite.errors import GbsiteError
from gbsite.fs.files import read_input
from gbsite.lean_typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbsite.config import Config
    from gbsite.search.index import SearchIndex

FOLDER = "lookup"
KEEP = 8  # index files kept in the cache: a few projects or branches at once
_PACKAGE = Path(__file__).resolve().parent.parent
# gbsite's code that decides the index's bytes: its texts (registry/), the index (search/)
# and the docs files' blocks (docs/files.py).
_CODE = ("search", "registry", "docs/files.py")


def key(cfg: Config) -> str:
    """What the index is made of: a checksum of file names, sizes and times."""
    registry = cfg.registry_dir
    lines: list[str] = [cfg.site_url]
    # Not registry/snapshots (the import's sources) nor its schemas: the index never reads them.
    for base, names in (
        (
            registry,
            (
                "sources.yaml",
                "categories.yaml",
                "legacy-messages.json",
                "adjacent-messages.json",
                "gb",
                "resolved",
            ),
        ),
        (cfg.docs_dir, ("",)),
        (_PACKAGE, _CODE),
    ):
        for name in names:
            _stamp(base / name if name else base, name, lines)
    # Two checksums of zlib, which loads in half a millisecond (hashlib loads OpenSSL, a few
    # milliseconds): enough to tell one state of a project from the few others cached.
    data = "\n".join(lines).encode()
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"


def _stamp(path: Path | str, name: str, lines: list[str]) -> None:
    """`name size mtime` of the file at `path`, or of each file below the folder there."""
    try:
        with os.scandir(path) as found:
            entries = sorted(found, key=lambda e: e.name)
    except NotADirectoryError:
        try:
            st = Path(path).stat()
        except OSError:
            lines.append(f"{name}\0-")
            return
        lines.append(f"{name}\0{st.st_size}\0{st.st_mtime_ns}")
        return
    except OSError:
        lines.append(f"{name}\0-")
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        inner = f"{name}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            _stamp(entry.path, inner, lines)
        else:
            try:
                st = entry.stat()
            except OSError:
                lines.append(f"{inner}\0-")
                continue
            lines.append(f"{inner}\0{st.st_size}\0{st.st_mtime_ns}")


def path_for(cfg: Config) -> Path:
    """The index's file in the cache, for what the project holds now."""
    from gbsite.config import cache_dir

    return cache_dir() / FOLDER / f"search-index-{key(cfg)}.js"


def load(cfg: Config, path: Path, *, info: bool = True) -> SearchIndex:
    """The cached index at `path` (path_for: worked out once a lookup, as a log
    that matches nothing reads the index again, with its contributed text), building and
    caching it first when there is none."""
    from gbsite.search import index

    try:
        raw = read_input(path)
    except (OSError, GbsiteError):  # none, or not a file: built again in its place
        raw = None
    if raw is not None:
        try:
            return index.parse_index_bytes(raw, info=info)
        except (ValueError, KeyError, IndexError, TypeError):
            pass  # a file cut short or from another version: build it again
    text, built = build(cfg)
    _store(path, text.encode("utf-8"))
    return built


def build(cfg: Config) -> tuple[str, SearchIndex]:
    """assets/search-index.js as `gbsite build` writes it, from registry/ and docs/gb/, and
    its entries. A docs file with a marker error adds no contributed text (`gbsite check`
    reports it)."""
    from gbsite.docs import files as docs
    from gbsite.errors import GbsiteError
    from gbsite.registry import store
    from gbsite.registry.views import entry_views
    from gbsite.releases import order
    from gbsite.search import adjacent, index, legacy

    reg = store.load(cfg.registry_dir)
    found, _ = docs.scan(cfg.docs_dir)
    info: dict[str, str] = {}
    for gb_id, path in found.items():
        if gb_id not in reg.entries:
            continue
        try:
            doc = docs.read(path, outside=False)
        except GbsiteError:
            continue
        if doc.has_content:
            info[gb_id] = index.plain_markdown(doc.block)
    older = adjacent.merged(
        legacy.aliases(legacy.load(cfg.registry_dir / legacy.FILE)),
        adjacent.aliases(adjacent.load(cfg.registry_dir / adjacent.FILE)),
    )
    entries = index.entries_for(reg, entry_views(reg), info, older)
    text = index.index_js(entries, [c.key for c in reg.categories], reg.labels)
    return text, index.SearchIndex(entries, max(reg.labels, key=order, default=""))


def _store(path: Path, data: bytes) -> None:
    """Write the index and drop all but the KEEP newest; a cache that cannot be written is
    no error (the lookup has its index already)."""
    from gbsite.fs.files import write_atomic

    try:
        write_atomic(path, data)
        kept = sorted(
            path.parent.glob("search-index-*.js"), key=lambda p: p.stat().st_mtime_ns, reverse=True
        )
        for old in kept[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass

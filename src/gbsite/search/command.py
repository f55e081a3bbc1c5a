"""`gbsite lookup`: read a log, words or a file, and print the graph breaks it matches."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gbsite.errors import GbsiteError

if TYPE_CHECKING:
    import argparse

    from gbsite.config import Config
    from gbsite.search.model import SearchEntry


def lookup(cfg: Config, args: argparse.Namespace) -> int:
    import json

    from gbsite import urls
    from gbsite.search import engine, index

    limit = int(args.max_bytes * 1024 * 1024)
    if args.words:
        data = " ".join(args.words).encode("utf-8", "replace")
    elif args.file in (None, "-"):
        stdin = getattr(sys.stdin, "buffer", None)  # None when replaced by a text stream
        data = stdin.read(limit + 1) if stdin else sys.stdin.read(limit + 1).encode()
    else:
        try:
            with Path(args.file).open("rb") as f:  # a FIFO or /dev/zero too: read at most this
                data = f.read(limit + 1)
        except OSError as exc:
            raise GbsiteError.at(Path(args.file), None, f"cannot read: {exc.strerror}") from None
    if len(data) > limit:
        data = data[:limit]
        print(
            f"gbsite: lookup: only the first {args.max_bytes:g} MB of the input were read "
            "(--max-bytes)",
            file=sys.stderr,
        )
    query = data.decode("utf-8", errors="replace")
    # The built site's index, as the browser has it; else (not built, or older than the
    # registry or docs) the registry, without the contributed text the index also holds.
    built = cfg.output_dir / urls.SEARCH_INDEX
    sources = [cfg.registry_dir, cfg.docs_dir]
    # Only words need contributed text (with_info reads it if a log turns out to match nothing).
    kind = engine.kind_of(query)
    entries = index.load_index(built, sources, info=kind == "words")

    def with_info() -> list[SearchEntry]:
        return index.load_index(built, sources) or []

    from gbsite.search import legacy

    older = legacy.Matcher(legacy.load(cfg.registry_dir / legacy.FILE)) if kind != "id" else None
    if entries is None:
        from gbsite.registry import store as registry
        from gbsite.registry.views import entry_views

        reg = registry.load(cfg.registry_dir)
        entries = index.entries_for(reg, entry_views(reg), {})
        matches = engine.lookup(query, entries, legacy=older)[: args.limit]
    else:
        matches = engine.lookup(query, entries, with_info if kind == "log" else None, legacy=older)[
            : args.limit
        ]
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "id": m.entry.id,
                        "type": m.entry.texts[0].gb_type,
                        "status": "removed" if m.entry.removed else "current",
                        "url": urls.absolute(cfg, urls.entry(m.entry.id)),
                        "why": m.why,
                    }
                    for m in matches
                ],
                indent=2,
            )
        )
    else:
        for m in matches:
            removed = f" (removed in {m.entry.removed})" if m.entry.removed else ""
            print(
                f"{m.entry.id}  {m.entry.texts[0].gb_type}{removed}\n"
                f"        {urls.absolute(cfg, urls.entry(m.entry.id))}  [{m.why}]"
            )
        if not matches:
            print("no graph break matches", file=sys.stderr)
    return 0 if matches else 1

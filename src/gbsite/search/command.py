"""`gbsite lookup`: read a log, words or a file, and print the graph breaks it matches."""

from __future__ import annotations

import sys
from pathlib import Path

from gbsite.errors import GbsiteError, one_line
from gbsite.lean_typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from gbsite.config import Config
    from gbsite.search.model import SearchEntry


def lookup(cfg: Config, args: argparse.Namespace) -> int:
    from gbsite import urls
    from gbsite.report import print_json, say
    from gbsite.search import cache, engine, index

    limit = int(args.max_bytes * 1024 * 1024)
    typed = False  # someone pasted at a terminal: the answer stands apart from the paste
    if args.words:
        data = " ".join(args.words).encode("utf-8", "replace")
    elif args.file in (None, "-"):
        if sys.stdin.isatty():  # someone at a terminal, not a pipe: say how to end the input
            typed = True
            end = "Ctrl-Z, Enter" if sys.platform == "win32" else "Ctrl-D"
            # Within 80 columns: a prompt that wraps reads as part of what is pasted below it.
            print(
                f"gbsite lookup: paste a log or type words, then {end} on a new line",
                file=sys.stderr,
                flush=True,
            )
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
    # registry or docs) the same index built from them and kept in the user's cache.
    built = cfg.output_dir / urls.SEARCH_INDEX
    sources = [cfg.registry_dir, cfg.docs_dir]
    # Only words need contributed text (with_info reads it if a log turns out to match nothing).
    kind = engine.kind_of(query)
    loaded = index.load_index(built, sources, info=kind == "words")
    if loaded is None:  # no site built, or an older one: the cached index (built once)
        cached = cache.path_for(cfg)
        loaded = cache.load(cfg, cached, info=kind == "words")

        def with_info() -> list[SearchEntry]:
            return cache.load(cfg, cached).entries

    else:

        def with_info() -> list[SearchEntry]:
            full = index.load_index(built, sources) or cache.load(cfg, cache.path_for(cfg))
            return full.entries

    def link(gb_id: str) -> str:
        return urls.absolute(cfg, urls.entry(gb_id))

    found = engine.find(
        query,
        loaded.entries,
        newest=loaded.newest,
        link=link,
        with_info=with_info if kind == "log" else None,
    )
    matches = found.matches[: args.limit]
    if typed:
        print(flush=True)  # a blank line between the paste and the answer
    for note in found.notes:  # they may quote the log: one line each, escaped
        say(f"gbsite: lookup: {note}", file=sys.stderr)
    if args.show:
        from gbsite.show.command import print_page

        if matches:
            print_page(cfg, matches[0].entry.id, "json" if args.json else "text")
        else:
            print("no graph break matches", file=sys.stderr)
    elif args.json:
        print_json(
            [
                {
                    "id": m.entry.id,
                    "type": m.entry.texts[0].gb_type,
                    "status": "removed" if m.entry.removed else "current",
                    "url": urls.absolute(cfg, urls.entry(m.entry.id)),
                    "why": m.why,
                }
                for m in matches
            ]
        )
    else:
        from gbsite.show.style import terminal_style

        style = terminal_style(sys.stdout)  # the ids in bold on a terminal
        for m in matches:
            # Each field on its line, escaped before the id is made bold (errors.one_line): the
            # registry's and the log's texts cannot act on the terminal or add a line.
            removed = f" (removed in {m.entry.removed})" if m.entry.removed else ""
            first = one_line(f"  {m.entry.texts[0].gb_type}{removed}")
            url = one_line(urls.absolute(cfg, urls.entry(m.entry.id)))
            print(f"{style.bold(one_line(m.entry.id))}{first}\n        {url}  [{one_line(m.why)}]")
        if not matches and not found.notes:
            print("no graph break matches", file=sys.stderr)
    return 0 if matches else 1

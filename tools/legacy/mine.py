"""Mine the graph-break messages of torch releases from before the registry, and map each to
the registry id that replaced it: writes `registry/legacy-messages.json`.

    PYTHONPATH=src python tools/legacy/mine.py            # fetch what is missing, mine, write
    PYTHONPATH=src python tools/legacy/mine.py --check    # exit 1 when the file would change

Before 2.8.0 Dynamo raised graph breaks with free-text messages (`unimplemented(msg)`,
`unimplemented_with_warning(e, code, msg)`, `raise Unsupported(msg)`); from 2.7 on, call sites
were converted one by one to `unimplemented_v2(gb_type=..., context=..., explanation=...,
hints=...)` (later spelled `unimplemented(gb_type=...)`), whose gb_type names a registry entry.
So a legacy message maps to the id of the structured call that took its place in the same
function (file and qualified name) in the first newer release that no longer has the message.

Sources: each release's macOS arm64 wheel (the smallest; every platform ships the same Python)
is downloaded with pip, only `torch/_dynamo/**.py` and a few sibling packages are kept under
the cache (`~/.cache/gbsite/legacy-src/R/`, or `--cache DIR`), and the wheel is deleted.
This script is not part of building the site: the site reads the JSON it writes.

This file is the command and builds the JSON; its sibling modules do the steps:
`legacy_fetch` (a release's sources into the cache), `legacy_scan` (the break calls of one
release) and `legacy_map` (a legacy message to the registry id that replaced it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from legacy_fetch import DEFAULT_CACHE, fetch
from legacy_map import group, index_release, map_message, registry_types
from legacy_scan import Legacy, scan

from gbsite import releases as release_order

# Releases whose free-text messages are mined (the newest patch of each minor before 2.8).
LEGACY_RELEASES = ("2.0.1", "2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.0", "2.7.1")
# Releases read only to find the structured call that replaced a message, oldest first.
LATER_RELEASES = ("2.8.0", "2.9.0", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.0", "2.15.0")
DEFAULT_OUT = Path("registry") / "legacy-messages.json"
# Literal characters a template needs to be told apart from others in a log.
MIN_LITERAL_CHARS = 10


# --- output ---------------------------------------------------------------------------------


def build(
    cache: Path, registry_dir: Path, releases: Sequence[str], later: Sequence[str]
) -> dict[str, Any]:
    legacy: list[Legacy] = []
    indexed = []
    for release in [*releases, *later]:
        found, structured = scan(release, fetch(release, cache))
        if release in releases:
            legacy += found
        indexed.append(index_release(release, found, structured))
    types = registry_types(registry_dir)
    messages = group(legacy)
    entries: list[dict[str, Any]] = []
    for msg in messages:
        if msg.template.literal_chars < MIN_LITERAL_CHARS:
            msg.how = "the message is worked out at run time: too little fixed text to match"
        else:
            map_message(msg, indexed, types)
        rels = sorted({s.release for s in msg.sites}, key=release_order.order)
        entries.append(
            {
                "template": msg.template.text,
                "placeholders": msg.template.placeholders,
                "id": msg.id,
                ("how" if msg.id else "reason"): msg.how,
                "releases": rels,
                "sites": [
                    {"release": s.release, "file": s.file, "function": s.function, "line": s.line}
                    for s in msg.sites
                ],
            }
        )
    entries.sort(key=lambda e: (e["template"], e["sites"][0]["file"], e["sites"][0]["function"]))
    return {
        "about": (
            "Graph-break messages of torch releases before the registry, each with the registry "
            "id that replaced it at the same code site. Written by tools/legacy/mine.py; do not "
            "edit by hand."
        ),
        "releases": list(releases),
        "mapped_with": list(later),
        "messages": entries,
    }


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


# How the summary groups the reasons a message stays unmapped: kind -> words of the reason.
REASON_KINDS = {
    "its function is gone": " is gone from torch ",
    "removed, nothing in its place": "with no structured graph break in its place",
    "several breaks took its place": "ambiguous: ",
    "only run-time text": "worked out at run time",
    "its new type is in no registry": "a type no registry lists",
    "still free text": "still raised as free text",
}


def summary(data: dict[str, Any]) -> str:
    lines = ["release  messages  mapped  unmapped"]
    for release in data["releases"]:
        here = [m for m in data["messages"] if release in m["releases"]]
        mapped = sum(1 for m in here if m["id"])
        lines.append(f"{release:8} {len(here):8} {mapped:7} {len(here) - mapped:9}")
    total = data["messages"]
    mapped = sum(1 for m in total if m["id"])
    lines.append(f"{'all':8} {len(total):8} {mapped:7} {len(total) - mapped:9}")
    reasons: dict[str, int] = {}
    for m in total:
        if not m["id"]:
            key = next((k for k, v in REASON_KINDS.items() if v in m["reason"]), "other")
            reasons[key] = reasons.get(key, 0) + 1
    lines += [f"  unmapped: {n:4}  {r}" for r, n in sorted(reasons.items(), key=lambda x: -x[1])]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="extracted sources")
    parser.add_argument("--registry", type=Path, default=Path("registry"))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if --out would change")
    args = parser.parse_args(argv)
    data = build(args.cache, args.registry, LEGACY_RELEASES, LATER_RELEASES)
    text = dump(data)
    print(summary(data), file=sys.stderr)
    old = args.out.read_text(encoding="utf-8") if args.out.exists() else None
    if args.check:
        if old != text:
            print(f"{args.out}: not what tools/legacy/mine.py writes; run it", file=sys.stderr)
            return 1
        return 0
    if old != text:
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

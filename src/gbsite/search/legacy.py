"""Graph-break messages of torch releases from before the registry (2.0 to 2.7), each with the
id that replaced it.

Their logs print a free-text message (`torch._dynamo.exc.Unsupported: call_function args: ...`,
`Reason: data dependent operator: ...`) and no link, so the message is the only way to the page.
`registry/legacy-messages.json` (written by tools/legacy/mine.py from those releases' sources)
holds each message as a template whose `{placeholders}` stand for what the program filled in.
The search index takes each as one more wording of its id (`aliases`, for index.entries_for):
lookup and the site's search match it with the engine and patterns they use for every registry
text, in linear time, and say which releases printed it. Entry pages list them (`by_id`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from gbsite import jsondepth
from gbsite import releases as release_order
from gbsite.errors import GbsiteError
from gbsite.fs.files import read_input

FILE = "legacy-messages.json"  # in the registry folder
MIN_FIXED_CHARS = 10  # a template with less fixed text would match unrelated lines
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


class LegacyMessage(NamedTuple):
    template: str
    id: str
    releases: tuple[str, ...]  # the releases whose sources raise it, oldest first

    @property
    def period(self) -> str:
        """The minor releases it is from: "torch 2.0 to 2.2", "torch 2.7"."""
        minors = sorted(
            {".".join(r.split(".")[:2]) for r in self.releases},
            key=release_order.order,
        )
        span = minors[0] if len(minors) == 1 else f"{minors[0]} to {minors[-1]}"
        return f"torch {span}"

    @property
    def fixed_chars(self) -> int:
        return len("".join(_PLACEHOLDER.sub("", self.template).split()))


def load(path: Path, read: Callable[[Path], bytes] | None = None) -> list[LegacyMessage]:
    """The mapped messages of the data file ([] when there is none), each template once."""
    try:
        raw = read(path) if read else read_input(path)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror}") from None
    try:
        data = jsondepth.loads(path, raw)  # nested too deep: a one-line error, never a crash
        rows = data["messages"]
        found: dict[str, LegacyMessage] = {}
        for row in rows:
            gb_id, template = row["id"], row["template"]
            if not isinstance(template, str) or not _releases(row["releases"]):
                raise TypeError
            if gb_id is None or template in found:
                continue  # unmapped, or the same words at another code site
            if not isinstance(gb_id, str) or not re.fullmatch(r"GB[0-9]{4}", gb_id):
                raise TypeError
            message = LegacyMessage(template, gb_id, tuple(row["releases"]))
            if message.fixed_chars >= MIN_FIXED_CHARS:
                found[template] = message
    except (ValueError, KeyError, TypeError):
        raise GbsiteError.at(
            path, None, "not the JSON tools/legacy/mine.py writes; run it again"
        ) from None
    return sorted(found.values(), key=lambda m: m.template)


def _releases(value: object) -> bool:
    from gbsite import releases

    return isinstance(value, list) and all(
        isinstance(r, str) and releases.is_release(r) for r in value
    )


def aliases(messages: Iterable[LegacyMessage]) -> dict[str, list[tuple[str, str]]]:
    """id -> [(template, note)]: the wordings index.entries_for adds to each id's texts, the
    note saying where the wording comes from and what replaced it."""
    out: dict[str, list[tuple[str, str]]] = {}
    for m in messages:
        note = f"this message is from {m.period}; today it is {m.id}"
        out.setdefault(m.id, []).append((" ".join(m.template.split()), note))
    return out


def by_id(messages: Iterable[LegacyMessage]) -> dict[str, list[LegacyMessage]]:
    out: dict[str, list[LegacyMessage]] = {}
    for m in messages:
        out.setdefault(m.id, []).append(m)
    return out

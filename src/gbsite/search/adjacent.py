"""Messages people paste that are not a graph break's own text, each with the id whose page
explains it: warnings Dynamo prints beside its breaks (the recompile limit, `Tensor.item()`),
exception class names seen in tracebacks (`DataDependentOutputException`, `ObservedKeyError`),
and older messages whose arguments decide today's id (`call_function BuiltinVariable(print)`,
where the older wordings' mining gives one id for every `call_function` message).

`registry/adjacent-messages.json` is written by hand: each message with where torch prints it
(the releases and the source file and function, read in those releases' sources) and why it
leads to its page. A message with several ids is ambiguous: lookup shows each of them. The
search index takes each message as one more wording of each of its ids, outside today's
registry (SearchText.older): a registry text that matches outranks it. Entry pages list them.
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

FILE = "adjacent-messages.json"  # in the registry folder
KINDS = {
    "warning": "a warning {period} prints beside the break",
    "exception": "an exception {period} raises inside the break",
    "older": "this message is from {period}; with these arguments, today it is {ids}",
}
MIN_FIXED_CHARS = 10  # as search.legacy: less fixed text would match unrelated lines
# A message without placeholders may be shorter (`generator`): it must then be the whole of an
# exception's message or a Reason, from where it starts to the end.
MIN_LITERAL_CHARS = 6
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_ID = re.compile(r"GB[0-9]{4}")


class AdjacentMessage(NamedTuple):
    template: str
    ids: tuple[str, ...]  # more than one: the message does not tell them apart
    kind: str  # a key of KINDS
    releases: tuple[str, ...]  # where it was read, oldest first; () for torchdynamo (pre-2.0)
    source: str  # file (function) in torch
    why: str  # how it leads to its ids

    @property
    def period(self) -> str:
        if not self.releases:  # printed by the torchdynamo package, before torch 2.0
            return "torchdynamo (before torch 2.0)"
        minors = sorted(
            {".".join(r.split(".")[:2]) for r in self.releases}, key=release_order.order
        )
        span = minors[0] if len(minors) == 1 else f"{minors[0]} to {minors[-1]}"
        return f"torch {span}"

    def note(self) -> str:
        """What a match of it says: where the message is from and which page explains it."""
        said = KINDS[self.kind].format(period=self.period, ids=" or ".join(self.ids))
        return said if len(self.ids) == 1 else f"{said}; one of {len(self.ids)} candidates"


def load(path: Path, read: Callable[[Path], bytes] | None = None) -> list[AdjacentMessage]:
    """The messages of the data file ([] when there is none)."""
    try:
        raw = read(path) if read else read_input(path)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror}") from None
    try:
        rows = jsondepth.loads(path, raw)["messages"]  # too deep: a one-line error, no crash
        found = [_message(row) for row in rows]
    except (ValueError, KeyError, TypeError) as exc:
        raise GbsiteError.at(
            path, None, f"not a list of messages as its `about` says: {exc}"
        ) from None
    return found


def _message(row: dict[str, object]) -> AdjacentMessage:
    template, ids, kind = row["template"], row["ids"], row["kind"]
    releases, source, why = row["releases"], row["source"], row["why"]
    if not isinstance(template, str):
        raise ValueError("a template must be a string")
    fixed = len("".join(_PLACEHOLDER.sub("", template).split()))
    if fixed < (MIN_FIXED_CHARS if _PLACEHOLDER.search(template) else MIN_LITERAL_CHARS):
        raise ValueError(f"template {template!r} has too little fixed text")
    if (
        not isinstance(ids, list)
        or not ids
        or not all(isinstance(i, str) and _ID.fullmatch(i) for i in ids)
    ):
        raise ValueError(f"ids of {template!r} must be a list of GBxxxx")
    if kind not in KINDS:
        raise ValueError(f"kind of {template!r} must be one of {', '.join(KINDS)}")
    if not isinstance(releases, list) or not all(
        isinstance(r, str) and release_order.is_release(r) for r in releases
    ):
        raise ValueError(f"releases of {template!r} must be a list of releases")
    if not releases and "torchdynamo" not in str(row["source"]):
        raise ValueError(f"releases of {template!r}: none only for the torchdynamo package")
    if not isinstance(source, str) or not isinstance(why, str) or not source or not why:
        raise ValueError(f"{template!r} needs a source and a why")
    return AdjacentMessage(template, tuple(ids), str(kind), tuple(releases), source, why)


def aliases(messages: Iterable[AdjacentMessage]) -> dict[str, list[tuple[str, str]]]:
    """id -> [(template, note)], as search.legacy.aliases gives them."""
    out: dict[str, list[tuple[str, str]]] = {}
    for m in messages:
        for gb_id in m.ids:
            out.setdefault(gb_id, []).append((" ".join(m.template.split()), m.note()))
    return out


def by_id(messages: Iterable[AdjacentMessage]) -> dict[str, list[AdjacentMessage]]:
    out: dict[str, list[AdjacentMessage]] = {}
    for m in messages:
        for gb_id in m.ids:
            out.setdefault(gb_id, []).append(m)
    return out


def merged(*found: dict[str, list[tuple[str, str]]]) -> dict[str, list[tuple[str, str]]]:
    """The aliases of several sources, per id, in the order given; a template that a later
    source gives again is that source's alone (a row written here corrects the id the older
    wordings' mining gave the same message)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for n, aliases_ in enumerate(found):
        later = {template for a in found[n + 1 :] for rows in a.values() for template, _ in rows}
        for gb_id, rows in aliases_.items():
            out.setdefault(gb_id, []).extend(r for r in rows if r[0] not in later)
    return out


def corrected(messages: Iterable[AdjacentMessage]) -> set[str]:
    """The templates, white space squashed, whose id a row here corrects."""
    return {" ".join(m.template.split()) for m in messages if m.kind == "older"}

"""Map a legacy message to the registry id that replaced it: follow it release by release
(moved, reworded) to the structured call that stands in its place, matching wordings by
similarity and containment, and the structured call's gb_type to the registry's ids.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from legacy_scan import Legacy, Structured, Template


@functools.cache
def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9_]+", re.sub(r"\{[^{}]*\}", " ", text.lower())))


@functools.cache
def similarity(a: str, b: str) -> float:
    """How alike the fixed words of two messages are, in order (0 to 1)."""
    x, y = _words(a).split(), _words(b).split()
    return difflib.SequenceMatcher(None, x, y, autojunk=False).ratio() if x and y else 0.0


def registry_types(registry_dir: Path) -> dict[str, list[str]]:
    """gb_type text (any of an entry's wordings) -> ids, from the committed registry."""
    from gbsite.registry import store

    out: dict[str, list[str]] = {}
    for entry in store.load(registry_dir).entries.values():
        for item in entry.history:
            ids = out.setdefault(item.text.gb_type, [])
            if entry.id not in ids:
                ids.append(entry.id)
    return out


@dataclass
class Message:
    template: Template
    file: str
    function: str
    sites: list[Legacy] = field(default_factory=list)
    id: str | None = None
    how: str = ""


def group(legacy: Sequence[Legacy]) -> list[Message]:
    """One message per (template, file, function), with its sites in every release."""
    messages: dict[tuple[str, str, str], Message] = {}
    for site in legacy:
        key = (site.template.text, site.file, site.function)
        if key not in messages:
            messages[key] = Message(site.template, site.file, site.function)
        messages[key].sites.append(site)
    return list(messages.values())


@dataclass
class Call:
    """A break call of a function, in line order: free text or structured."""

    key: str  # "L:" + template text, or "S:" + gb_type
    legacy: Legacy | None
    structured: Structured | None


@dataclass
class Release:
    label: str
    calls: dict[tuple[str, str], list[Call]]  # (file, function) -> its calls by line
    texts: dict[str, list[tuple[str, str]]]  # template text -> (file, function) raising it
    structured: list[Structured]


def index_release(
    label: str, legacy: Sequence[Legacy], structured: Sequence[Structured]
) -> Release:
    calls: dict[tuple[str, str], list[tuple[int, Call]]] = {}
    texts: dict[str, list[tuple[str, str]]] = {}
    for site in legacy:
        where = (site.file, site.function)
        calls.setdefault(where, []).append((site.line, Call("L:" + site.template.text, site, None)))
        if where not in texts.setdefault(site.template.text, []):
            texts[site.template.text].append(where)
    for st in structured:
        calls.setdefault((st.file, st.function), []).append(
            (st.line, Call("S:" + st.gb_type, None, st))
        )
    ordered = {k: [c for _, c in sorted(v, key=lambda x: x[0])] for k, v in calls.items()}
    return Release(label, ordered, texts, list(structured))


def closeness(text: str, st: Structured) -> float:
    """How alike a free-text message and a structured call are: the old message often became
    the context or the explanation, or was shortened into the type."""
    texts = (st.text, st.context, st.explanation, st.gb_type, *st.alternatives)
    return max(max(similarity(text, t), CONTAINED * containment(text, t)) for t in texts)


@functools.cache
def containment(old: str, new: str) -> float:
    """The share of the old message's words (three or more) that the new text uses."""
    old_words = [w for w in _words(old).split() if len(w) > 1]
    new_words = set(_words(new).split())
    if len(old_words) < 3:
        return 0.0
    return sum(w in new_words for w in old_words) / len(old_words)


# Containment counts a little less than likeness: a long text contains many words.
CONTAINED = 0.9


# Reworded free text in the same place (a typo fixed, a detail added) counts as the same message.
REWORDED = 0.75
# A structured call anywhere in the release, when the function lost the message without trace.
ELSEWHERE = 0.7


def map_message(msg: Message, releases: Sequence[Release], types: dict[str, list[str]]) -> None:
    """Set msg.id and msg.how: follow the message release by release (moved, reworded) to the
    structured call that took its place, aligning the function's calls before and after."""
    text, where = msg.template.text, (msg.file, msg.function)
    last = msg.sites[-1].release
    steps: list[str] = []
    by_label = [r.label for r in releases]
    for n in range(by_label.index(last) + 1, len(releases)):
        before, after = releases[n - 1], releases[n]
        if where in after.texts.get(text, []):
            continue  # still raised as free text here
        if after.texts.get(text):
            where = after.texts[text][0]  # moved to another function
            steps.append(f"moved to {where[1]} in {after.label}")
            continue
        old_calls = before.calls.get(where, [])
        new_where = where if where in after.calls else _moved(where, after)
        new_calls = after.calls.get(new_where, []) if new_where else []
        candidates = _aligned(text, old_calls, new_calls)
        reworded = [c for c in candidates if c.legacy and _same_message(text, c.key[2:])]
        if reworded:
            assert reworded[0].legacy is not None
            text, where = reworded[0].key[2:], new_where or where
            steps.append(f"reworded in {after.label}")
            continue
        scored = sorted(
            ((closeness(text, c.structured), c.structured) for c in candidates if c.structured),
            key=lambda x: -x[0],
        )
        how = f"in place of it in {after.label}"
        if len(scored) > 1 and scored[0][0] - scored[1][0] < 0.05 and _ids(scored[:2], types) > 1:
            listed = ", ".join(sorted({i for _, s in scored if (i := _id_of(s.gb_type, types))}))
            msg.how = (
                f"ambiguous: {len(scored)} structured graph breaks took its place in "
                f"{after.label} ({listed})"
            )
            return
        if not scored:
            anywhere = sorted(
                ((closeness(text, s), s) for s in after.structured), key=lambda x: -x[0]
            )
            if anywhere and anywhere[0][0] >= ELSEWHERE:
                scored, how = anywhere[:1], f"the closest wording anywhere in {after.label}"
        if not scored:
            gone = new_where is None
            msg.how = (
                f"{where[1]} is gone from torch {after.label}" if gone
                else f"removed from {where[1]} in torch {after.label} with no structured "
                "graph break in its place"
            )  # fmt: skip
            return
        best = scored[0][1]
        found = _id_of(best.gb_type, types)
        if found is None:
            msg.how = (
                f"torch {after.label} raises {best.gb_type!r} in its place, a type no "
                "registry lists"
            )
            return
        steps.append(f"{how}: {best.file}:{best.line} ({best.function})")
        msg.id, msg.how = found, "; ".join(steps)
        return
    msg.how = f"still raised as free text in torch {releases[-1].label}"


def _same_message(old: str, new: str) -> bool:
    """A rewording: alike, or the old words all kept with details added."""
    if similarity(old, new) >= REWORDED:
        return True
    old_words, new_words = _words(old).split(), set(_words(new).split())
    return len(old_words) >= 3 and all(w in new_words for w in old_words)


def _ids(scored: Sequence[tuple[float, Structured]], types: dict[str, list[str]]) -> int:
    return len({_id_of(s.gb_type, types) for _, s in scored})


def _moved(where: tuple[str, str], release: Release) -> tuple[str, str] | None:
    """The function in another file, when exactly one file has it."""
    found = [k for k in release.calls if k[1] == where[1]]
    return found[0] if len(found) == 1 else None


def _aligned(text: str, old: Sequence[Call], new: Sequence[Call]) -> list[Call]:
    """The calls of the new version of a function that stand where the message stood in the
    old one: calls unchanged between the two are anchors, and what changed between two anchors
    replaced what was there. When as many replaced as were replaced, the one at the same
    position."""
    keys_old, keys_new = [c.key for c in old], [c.key for c in new]
    if "L:" + text not in keys_old:
        return list(new)
    i = keys_old.index("L:" + text)
    sm = difflib.SequenceMatcher(None, keys_old, keys_new, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if i1 <= i < i2:
            if tag == "delete":
                return []
            if tag == "replace" and i2 - i1 == j2 - j1:
                return [new[j1 + i - i1]]
            return list(new[j1:j2])
    return []


def _id_of(gb_type: str, types: dict[str, list[str]]) -> str | None:
    ids = types.get(gb_type)
    if ids:
        return ids[0]
    # A gb_type built at run time (an f-string): match its literal part.
    rx = re.compile(re.sub(r"\\\{[^{}]*\\\}", ".*", re.escape(gb_type)) + "$")
    found = [i for t, ids in types.items() if rx.match(t) for i in ids]
    return found[0] if len(set(found)) == 1 else None

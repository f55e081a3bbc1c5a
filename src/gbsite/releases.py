"""Releases: how the labels of imported snapshots are ordered, which imported release each
release of the examples (`[examples] releases` in gbsite.toml) is judged with, whether an id is
in an imported release, the release a torch build counts for, and where the list of releases is
in gbsite.toml's text (to name its line, and to add a release to it in place). No other module
orders releases (tests/unit/test_releases.py looks for copies).

    2.8.0 < 2.14.0rc1 < 2.14.0 < 2.14.1 < 2.15.0 < main@2026-11-20 < main@2026-12-01

A release label is a version: X.Y or X.Y.Z, then optionally a, b or rc and a number, then
optionally a local part (+cpu) that is ignored. A dated label (main@2026-11-20: a snapshot of a
branch) sorts after every release, by date. Any other label sorts last, in no particular order.

Only the standard library is imported here: the build's load phase calls `problems`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from gbsite.errors import Problem
from gbsite.fs.files import read_input
from gbsite.lean_typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # at run time, only the standard library (see above)
    from gbsite.registry.model import Entry

# Patterns as text: `re` compiles one when first used and keeps it (a lookup reads gbsite.toml
# but orders no release; compiling all of them took ~1.3 ms of its start).
# ASCII digits only (`\d` also matches other scripts' digits, which int() accepts), at most six
# a part: a release is a few characters, never a number Python takes long to convert.
_N = "([0-9]{1,6})"
_VERSION = rf"{_N}\.{_N}(?:\.{_N})?(?:(a|b|rc){_N})?"
_DATED = r"[A-Za-z][A-Za-z0-9_.-]{0,63}@([0-9]{4})-([0-9]{2})-([0-9]{2})"
# A release of the examples (gbsite.toml, --torch, since=, since:, the record's outcomes).
_RELEASE = rf"{_N}\.{_N}\.{_N}"
RELEASE_HELP = "a torch release such as 2.15.0 (three numbers of at most six digits)"


def is_release(text: str) -> bool:
    """Whether `text` is a release of the examples: ASCII `X.Y.Z`, each part 1 to 6 digits."""
    return re.fullmatch(_RELEASE, text) is not None


# The version a torch build says it is (torch/version.py): a release label, `.devN` for a nightly,
# then a local part (+cpu, +git1a2b3c4) of letters, digits and dots: nothing else is printed or
# stored as a torch version (a line break or ESC in it would forge a line of the output).
_BUILD = (
    rf"{_N}\.{_N}(?:\.{_N})?(?:(?:a|b|rc){_N})?(?:\.dev[0-9]{{1,14}})?"
    r"(?:\+[A-Za-z0-9]{1,40}(?:\.[A-Za-z0-9]{1,40}){0,7})?"
)


def is_build(text: str) -> bool:
    """Whether `text` is a torch build's version: `2.16.0+cpu`, `2.17.0.dev20260101+cu128`."""
    return re.fullmatch(_BUILD, text) is not None


_PRE = {"a": 0, "b": 1, "rc": 2}
_FINAL = (3, 0)  # after a, b and rc of the same version


def version(label: str) -> tuple[int, ...] | None:
    """`2.14.1` -> (2, 14, 1, 3, 0); `2.16.0rc1` -> (2, 16, 0, 2, 1); None if not a release."""
    match = re.fullmatch(_VERSION, label.split("+")[0])
    if match is None:
        return None
    major, minor, patch, pre, pre_n = match.groups()
    stage = (_PRE[pre], int(pre_n)) if pre else _FINAL
    return (int(major), int(minor), int(patch or 0), *stage)


def date(label: str) -> tuple[int, ...] | None:
    """`main@2026-11-20` -> (2026, 11, 20); None if not a dated label."""
    match = re.fullmatch(_DATED, label)
    return tuple(int(part) for part in match.groups()) if match else None


def order(label: str) -> tuple[int, ...]:
    """A sort key: releases by version, then dated snapshots by date, then anything else."""
    if (v := version(label)) is not None:
        return (0, *v)
    if (d := date(label)) is not None:
        return (1, *d)
    return (2,)


def release_of(version: str) -> str:
    """`2.13.0+cpu` -> `2.13.0`: a build counts for its release."""
    return version.split("+", 1)[0]


def in_release(entry: Entry, labels: Sequence[str], label: str) -> bool:
    """Whether the id is in the registry of imported snapshot `label`. `labels`: the imported
    ones in import order (sources.yaml), which is the order `added` and `removed` refer to."""
    index = labels.index(label)
    if labels.index(entry.added) > index:
        return False
    return entry.removed is None or labels.index(entry.removed) > index


def registry_label(release: str, labels: Iterable[str]) -> str | None:
    """The imported release that a release of the examples is judged with: the newest one of the
    same major.minor that is not newer (2.14.1 -> 2.14.0, as a patch release keeps the registry
    of its minor release), or None when there is none (the release is not imported)."""
    wanted = version(release)
    if wanted is None:
        return None
    same = [
        (v, label)
        for label in labels
        if (v := version(label)) is not None and v[:2] == wanted[:2] and v <= wanted
    ]
    return max(same)[1] if same else None


def registry_labels(releases: Iterable[str], labels: Sequence[str]) -> dict[str, str]:
    """Each release of the examples that is imported, with its registry label."""
    out: dict[str, str] = {}
    for release in releases:
        label = registry_label(release, labels)
        if label is not None:
            out[release] = label
    return out


# ---- the [examples] releases list in gbsite.toml's text ----------------------------------------


class Element(NamedTuple):
    value: str
    start: int  # offset of the opening quote
    end: int  # offset after the closing quote
    quote: str


class ReleaseList(NamedTuple):
    """Where `[examples] releases = [...]` is in the text of gbsite.toml."""

    open: int  # offset of "["
    close: int  # offset of the matching "]"
    elements: tuple[Element, ...]


_TABLE = r"(?m)^[ \t]*\[[ \t]*([^\]\n]*?)[ \t]*\][ \t]*(?:#.*)?$"
_KEY = r"""(?m)^[ \t]*(?:releases|"releases"|'releases')[ \t]*=[ \t]*\["""


def release_list(text: str) -> ReleaseList | None:
    """The array of `releases` in the `[examples]` table, with each string in it; None when the
    file has no such table or key (in a form this reader knows: one `[examples]` header)."""
    tables = list(re.finditer(_TABLE, text))
    for i, table in enumerate(tables):
        if table.group(1).strip() != "examples":
            continue
        end = tables[i + 1].start() if i + 1 < len(tables) else len(text)
        key = re.compile(_KEY).search(text, table.end(), end)
        if key is None:
            return None
        return _scan_array(text, key.end() - 1)
    return None


def _scan_array(text: str, open_at: int) -> ReleaseList | None:
    """The strings of the one-level TOML array opening at `open_at`, skipping comments."""
    elements: list[Element] = []
    i = open_at + 1
    while i < len(text):
        c = text[i]
        if c == "#":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
        elif c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c and text[j] != "\n":
                j += 2 if c == '"' and text[j] == "\\" else 1
            if j >= len(text) or text[j] != c:
                return None  # not a string this reader knows; tomllib has the last word
            elements.append(Element(text[i + 1 : j], i, j + 1, c))
            i = j
        elif c == "]":
            return ReleaseList(open_at, i, tuple(elements))
        elif c == "[":
            return None  # a nested array is no list of releases
        i += 1
    return None


def _line_at(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def line_of(text: str, release: str) -> int | None:
    """The line of gbsite.toml where `release` is written in `[examples] releases`."""
    found = release_list(text)
    if found is None:
        return None
    element = next((e for e in found.elements if e.value == release), None)
    return _line_at(text, element.start) if element else None


def with_release(text: str, release: str, current: Sequence[str]) -> str:
    """gbsite.toml's text with `release` added at the end of `[examples] releases`, in the
    list's own layout (one line, or one release a line, with or without a trailing comma);
    comments and everything else are kept. `current`: the releases now in effect, written out
    when the file has no list yet (they are the defaults then)."""
    found = release_list(text)
    if found is None or not found.elements:
        listed = ", ".join(f'"{r}"' for r in (*current, release))
        if not re.search(r"^[ \t]*\[[ \t]*examples[ \t]*\]", text, re.M):
            ending = "" if text.endswith("\n") or not text else "\n"
            return f"{text}{ending}\n[examples]\nreleases = [{listed}]\n"
        header = next(m for m in re.finditer(_TABLE, text) if m.group(1).strip() == "examples")
        return f"{text[: header.end()]}\nreleases = [{listed}]{text[header.end() :]}"
    last = found.elements[-1]
    before = (
        text[found.elements[-2].end : last.start]
        if len(found.elements) > 1
        else text[found.open + 1 : last.start]
    )
    # One release a line: the next goes on a line of its own, indented like the last.
    gap = before[before.rindex("\n") :] if "\n" in before else " "
    item = f"{last.quote}{release}{last.quote}"
    trailing = re.match(r"[ \t]*,", text[last.end : found.close])
    if trailing:
        at = last.end + trailing.end()
        return f"{text[:at]}{gap}{item},{text[at:]}"
    return f"{text[: last.end]},{gap}{item}{text[last.end :]}"


# ---- what check and build refuse ---------------------------------------------------------------


def problems(
    file: Path,
    releases: Sequence[str],
    labels: Sequence[str],
    read: Callable[[Path], bytes] = read_input,
) -> list[Problem]:
    """`gbsite.toml:LINE: release 2.16.0 of [examples] is not imported; ...` for each release
    listed in gbsite.toml that no imported release answers for. `releases`: the config's (when
    the file lists none, they are gbsite's defaults, and a project that uses no examples need
    not import them); `labels`: the imported ones, from sources.yaml."""
    missing = [r for r in releases if registry_label(r, labels) is None]
    if not missing:
        return []
    import tomllib  # only when a release is missing: a lookup does not import it

    text = read(file).decode("utf-8")
    if "releases" not in tomllib.loads(text).get("examples", {}):
        return []
    return [
        Problem(
            f"release {r} of [examples] is not imported; run gbsite release add {r}",
            file,
            line_of(text, r),
        )
        for r in missing
    ]

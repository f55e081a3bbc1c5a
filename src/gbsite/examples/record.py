"""The record of example runs, docs/verified-examples.yaml: for every annotated block of docs/gb/
and every torch release of the examples (gbsite.toml [examples] releases), what the block did.

    releases:                        # the torch build each release ran with
      2.13.0: 2.13.0+cpu
      2.15.0: 2.15.0
    blocks:
    - id: GB0003
      kind: gb-repro
      line: 41
      sha256: fa4d...                # of the block's kind, options and code (examples.digest)
      outcomes:
        2.13.0: breaks
        2.15.0: no-break

`gbsite check --examples --torch R` writes the outcomes for R; the build reads them; a block whose
code changed has a new digest and so no outcomes until it is run again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from gbsite.errors import GbsiteError
from gbsite.fs.files import write_if_changed
from gbsite.registry import yamlio

# What a block did with one release's torch.
BREAKS = "breaks"  # a gb-repro broke (or, with fullgraph=false, logged a break) with its id
NO_BREAK = "no-break"  # a gb-repro compiled and ran to the end: this torch does not break
RUNS = "runs"  # a gb-fix ran to the end without a graph break, having called the compiled code
EAGER_FAILS = "eager-fails"  # broke as promised, but fails without torch.compile as well
ERROR = "error"  # raised something else, printed output, or never called the compiled code
OTHER = "breaks "  # + ids: broke with other graph breaks ("breaks GB0059")
_OUTCOME = re.compile(r"breaks|no-break|runs|eager-fails|error|breaks( GB\d{4})+")

HEADER = (
    "# Written by `gbsite check --examples [--torch RELEASE]`: what each annotated example of\n"
    "# docs/gb/ did with each torch release of gbsite.toml's [examples] releases. A block is\n"
    "# known by the sha256 of its kind, options and code: edited code has no outcomes until it\n"
    "# is run again. The site shows these outcomes beside each example.\n"
)


def passing(kind: str) -> str:
    """The outcome a block promises: a repro breaks with its page's id, a fix runs."""
    return BREAKS if kind == "gb-repro" else RUNS


def other_break(ids: Iterable[str]) -> str:
    return OTHER + " ".join(sorted(ids))


def describe(outcome: str) -> str:
    """An outcome as a page says it: `no-break` -> `no break`."""
    if outcome.startswith(OTHER):
        return "breaks with " + outcome.removeprefix(OTHER).replace(" ", ", ")
    return {
        NO_BREAK: "no break",
        EAGER_FAILS: "fails without torch.compile too",
        ERROR: "fails",
    }.get(outcome, outcome)


def release_of(version: str) -> str:
    """`2.13.0+cpu` -> `2.13.0`: a build counts for its release."""
    return version.split("+", 1)[0]


@dataclass(frozen=True, slots=True)
class Row:
    """One block's outcomes, by release."""

    id: str
    kind: str
    line: int
    sha256: str
    outcomes: dict[str, str] = field(default_factory=dict)


# A block is known by its page and its digest: two pages may show the same code, and whether
# it "breaks" as promised depends on the page's id.
Key = tuple[str, str]  # (id, sha256)


@dataclass(frozen=True, slots=True)
class Record:
    builds: dict[str, str]  # release -> the torch version it ran with (2.13.0 -> 2.13.0+cpu)
    rows: dict[Key, Row]

    def outcome(self, key: Key, release: str) -> str | None:
        row = self.rows.get(key)
        return row.outcomes.get(release) if row else None

    def passed(self, key: Key, kind: str, release: str) -> bool:
        return self.outcome(key, release) == passing(kind)

    def verified_with(self, key: Key, kind: str, release: str) -> str | None:
        """The torch build a block did what it promises with, for that release."""
        if not self.passed(key, kind, release):
            return None
        return self.builds.get(release, release)


EMPTY = Record({}, {})


def _malformed(path: Path, why: str) -> GbsiteError:
    return GbsiteError.at(
        path,
        None,
        f"not a record of examples ({why}); delete it and run gbsite check --examples",
    )


def read(path: Path) -> Record:
    """The record; an empty one when there is none yet. The first format (a `verified:` list of
    blocks that passed, each with its torch) is read as outcomes of that torch's release."""
    if not path.exists():
        return EMPTY
    data = yamlio.read(path)
    if isinstance(data, dict) and "verified" in data and "blocks" not in data:
        return _read_first_format(path, data["verified"])
    if not isinstance(data, dict) or not isinstance(data.get("blocks"), list):
        raise _malformed(path, "it needs `releases:` and `blocks:`")
    builds = data.get("releases") or {}
    if not isinstance(builds, dict):
        raise _malformed(path, "`releases:` maps each release to its torch version")
    rows: dict[Key, Row] = {}
    for item in data["blocks"]:
        if not isinstance(item, dict) or not {"id", "kind", "sha256", "outcomes"} <= item.keys():
            raise _malformed(path, "each block needs id, kind, sha256 and outcomes")
        outcomes = item["outcomes"]
        if not isinstance(outcomes, dict) or not all(
            isinstance(v, str) and _OUTCOME.fullmatch(v) for v in outcomes.values()
        ):
            raise _malformed(path, f"block {item['sha256']}: unknown outcome in {outcomes}")
        row = Row(
            str(item["id"]),
            str(item["kind"]),
            int(item.get("line") or 0),
            str(item["sha256"]),
            {str(k): v for k, v in outcomes.items()},
        )
        rows[row.id, row.sha256] = row
    return Record({str(k): str(v) for k, v in builds.items()}, rows)


def _read_first_format(path: Path, entries: object) -> Record:
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and {"id", "sha256", "torch"} <= e.keys() for e in entries
    ):
        raise _malformed(path, "entries need id, sha256 and torch")
    builds: dict[str, str] = {}
    rows: dict[Key, Row] = {}
    for e in entries:
        version = str(e["torch"])
        kind = str(e.get("kind") or "gb-repro")
        builds[release_of(version)] = version
        rows[str(e["id"]), str(e["sha256"])] = Row(
            str(e["id"]),
            kind,
            int(e.get("line") or 0),
            str(e["sha256"]),
            {release_of(version): passing(kind)},
        )
    return Record(builds, rows)


def write(path: Path, record: Record) -> bool:
    """Write the record, blocks by page and line; False when nothing changed."""

    def version_key(release: str) -> tuple[int, ...]:
        return tuple(int(n) for n in re.findall(r"\d+", release))

    blocks = [
        {
            "id": row.id,
            "kind": row.kind,
            "line": row.line,
            "sha256": row.sha256,
            "outcomes": {r: row.outcomes[r] for r in sorted(row.outcomes, key=version_key)},
        }
        for row in sorted(record.rows.values(), key=lambda r: (r.id, r.line, r.sha256))
    ]
    builds = {r: record.builds[r] for r in sorted(record.builds, key=version_key)}
    text = yamlio.dump({"releases": builds, "blocks": blocks}, HEADER)
    return write_if_changed(path, text.encode("utf-8"))


def updated(
    record: Record, release: str, build: str, outcomes: dict[Key, str], current: dict[Key, Row]
) -> Record:
    """The record with a run's outcomes for `release`. `current`: a row (without outcomes) for
    every runnable block the pages have now: rows follow their block's new line, and blocks no
    page has any more are dropped."""
    rows: dict[Key, Row] = {}
    for key, fresh in current.items():
        old = record.rows.get(key)
        merged = {**(old.outcomes if old else {})}
        if key in outcomes:
            merged[release] = outcomes[key]
        if merged:
            rows[key] = replace(fresh, outcomes=merged)
    builds = {**record.builds, **({release: build} if outcomes else {})}
    return Record(builds, rows)

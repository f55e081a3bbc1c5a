"""The record of example runs, docs/verified-examples.yaml: for every annotated block of docs/gb/
and every torch release of the examples (gbsite.toml [examples] releases), what the block did.

    blocks:
    - id: GB0003
      kind: gb-repro
      sha256: fa4d...                # of the block's kind, options and code (examples.digest)
      outcomes:
        2.13.0: breaks
        2.15.0: no-break

`gbsite check --examples --torch R` writes the outcomes for R (or CI's jobs, one per release,
merged by `gbsite ci merge`); the build reads them; a block whose code changed has a new digest
and so no outcomes until it is run again. A block is known by its page and its digest, never by
its line: prose written above a block changes neither its outcomes nor this file. A release's
outcomes do not depend on the build that ran them (`2.13.0+cpu` and PyPI's `2.13.0` are one
release), so the file names none.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from gbsite.errors import GbsiteError
from gbsite.fs.files import check_input, decode_utf8, write_if_changed
from gbsite.fs.lock import locked
from gbsite.registry import yamlio
from gbsite.releases import order

# What a block did with one release's torch.
BREAKS = "breaks"  # a gb-repro broke (or, with fullgraph=false, logged a break) with its id
NO_BREAK = "no-break"  # a gb-repro compiled and ran to the end: this torch does not break
RUNS = "runs"  # a gb-fix ran to the end without a graph break, having called the compiled code
EAGER_FAILS = "eager-fails"  # broke as promised, but fails without torch.compile as well
ERROR = "error"  # raised something else, printed output, or never called the compiled code
OTHER = "breaks "  # + ids: broke with other graph breaks ("breaks GB0059")
_OUTCOME = re.compile(r"breaks|no-break|runs|eager-fails|error|breaks( GB\d{4})+")

MAX_BYTES = 32 * 2**20  # about 30 times the record of today's ~1,000 blocks
HEADER = (
    "# Written by `gbsite check --examples` and CI (`gbsite ci merge`), never by hand: what each\n"
    "# annotated example of docs/gb/ did with each torch release of gbsite.toml's [examples]\n"
    "# releases. A block is known by its page and the sha256 of its kind, options and code:\n"
    "# edited code has no outcomes until it is run again (its page is pending until then).\n"
)


def valid_outcome(text: str) -> bool:
    return _OUTCOME.fullmatch(text) is not None


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
    """One block's outcomes, by release. `line` is for messages; it is not written (0 when
    read)."""

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
    rows: dict[Key, Row]

    def outcome(self, key: Key, release: str) -> str | None:
        row = self.rows.get(key)
        return row.outcomes.get(release) if row else None

    def passed(self, key: Key, kind: str, release: str) -> bool:
        return self.outcome(key, release) == passing(kind)

    def verified_with(self, key: Key, kind: str, release: str) -> str | None:
        """The release, when the block did what it promises with it."""
        return release if self.passed(key, kind, release) else None

    def missing(self, key: Key, releases: Iterable[str]) -> list[str]:
        """The releases with no outcome for the block yet: its runs are pending."""
        row = self.rows.get(key)
        return [r for r in releases if row is None or r not in row.outcomes]


EMPTY = Record({})


def _malformed(path: Path, why: str) -> GbsiteError:
    # `why` may quote the file: one line, so that no value can pass for a line of its own (a
    # forged `::error` workflow command in CI's log).
    why = " ".join(why.split())[:300]
    return GbsiteError.at(
        path,
        None,
        f"not a record of examples ({why}); delete it and run gbsite check --examples",
    )


def read(path: Path) -> Record:
    """The record; an empty one when there is none yet. The first format (a `verified:` list of
    blocks that passed, each with its torch) is read as outcomes of that torch's release."""
    text = _text(path)
    return EMPTY if text is None else _parse(path, text)


# An item as write() starts it, at the start of a line: what read_page() cuts the file at.
_ITEM = re.compile(r"^- id: (GB\d{4})\n", re.MULTILINE)


def read_page(path: Path, gb_id: str) -> Record:
    """The rows of one page, for `gbsite show`: its items alone are parsed, as read() parses
    the whole record (a tenth of a second of YAML for ~1,000 rows); a file not in the layout
    write() gives is read whole."""
    text = _text(path)
    if text is None:
        return EMPTY
    head = "blocks:\n"
    if f"\n{head}- id: " not in text:
        rows = _parse(path, text).rows
        return Record({k: r for k, r in rows.items() if k[0] == gb_id})
    starts = [(m.start(), m.group(1)) for m in _ITEM.finditer(text)] + [(len(text), "")]
    items = [text[a:b] for (a, found), (b, _) in itertools.pairwise(starts) if found == gb_id]
    if not items:
        return EMPTY
    return _parse(path, head + "".join(items))


def _text(path: Path) -> str | None:
    if not path.exists():
        return None
    # Not a pipe, a device or a link out of the project (it would hang, fill the memory, or
    # decide what the site says from a file elsewhere), and not beyond any real record's size.
    check_input(path)
    if path.stat().st_size > MAX_BYTES:
        raise _malformed(path, f"larger than {MAX_BYTES // 2**20} MB")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror}") from None
    return decode_utf8(path, data)


def _parse(path: Path, text: str) -> Record:
    data = yamlio.load(path, text)
    if isinstance(data, dict) and "verified" in data and "blocks" not in data:
        return _read_first_format(path, data["verified"])
    if not isinstance(data, dict) or not isinstance(data.get("blocks"), list):
        raise _malformed(path, "it needs `blocks:`")
    # `releases:` (each release's build) and a row's `line:` are read from older records and
    # not kept: neither identifies an outcome.
    rows: dict[Key, Row] = {}
    for item in data["blocks"]:
        if not isinstance(item, dict) or not {"id", "kind", "sha256", "outcomes"} <= item.keys():
            raise _malformed(path, "each block needs id, kind, sha256 and outcomes")
        outcomes = item["outcomes"]
        if not isinstance(outcomes, dict) or not all(
            isinstance(v, str) and _OUTCOME.fullmatch(v) for v in outcomes.values()
        ):
            raise _malformed(
                path, f"block {str(item['sha256'])[:64]}: unknown outcome in {outcomes}"
            )
        row = Row(
            str(item["id"]),
            str(item["kind"]),
            0,
            str(item["sha256"]),
            {str(k): v for k, v in outcomes.items()},
        )
        rows[row.id, row.sha256] = row
    return Record(rows)


def _read_first_format(path: Path, entries: object) -> Record:
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and {"id", "sha256", "torch"} <= e.keys() for e in entries
    ):
        raise _malformed(path, "entries need id, sha256 and torch")
    rows: dict[Key, Row] = {}
    for e in entries:
        kind = str(e.get("kind") or "gb-repro")
        rows[str(e["id"]), str(e["sha256"])] = Row(
            str(e["id"]), kind, 0, str(e["sha256"]), {release_of(str(e["torch"])): passing(kind)}
        )
    return Record(rows)


def write(path: Path, record: Record) -> bool:
    """Write the record, blocks in the order of their pages; False when nothing changed."""

    blocks = [
        {
            "id": row.id,
            "kind": row.kind,
            "sha256": row.sha256,
            "outcomes": {r: row.outcomes[r] for r in sorted(row.outcomes, key=order)},
        }
        # By page; within one, as the rows come (updated(): as the page has its blocks; read():
        # as the file has them), so that a read and a write change nothing.
        for row in sorted(record.rows.values(), key=lambda r: r.id)
    ]
    text = yamlio.dump({"blocks": blocks}, HEADER)
    return write_if_changed(path, text.encode("utf-8"))


def updated(record: Record, runs: dict[str, dict[Key, str]], current: dict[Key, Row]) -> Record:
    """The record with new outcomes (`runs`: release -> block -> outcome). `current`: a row
    (without outcomes) for every runnable block the pages have now, in their order: blocks no
    page has any more are dropped."""
    rows: dict[Key, Row] = {}
    for key, fresh in current.items():
        old = record.rows.get(key)
        merged = {**(old.outcomes if old else {})}
        for release, outcomes in runs.items():
            if key in outcomes:
                merged[release] = outcomes[key]
        if merged:
            rows[key] = replace(fresh, outcomes=merged)
    return Record(rows)


def store(path: Path, runs: dict[str, dict[Key, str]], current: dict[Key, Row]) -> Record:
    """Add `runs` (release -> block -> outcome) to the record at `path`, read afresh under the
    lock of its folder: two runs that end together (two releases, two pages) both keep their
    outcomes."""
    with locked(path.parent, "the record of examples"):
        new = updated(read(path), runs, current)
        write(path, new)
    return new

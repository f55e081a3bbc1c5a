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
release), so the file names none. In memory an outcome is a vocabulary.Outcome: its text
(`breaks`, `breaks GB0059 GB0102`) is read and written here alone.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from gbsite import releases
from gbsite.errors import GbsiteError
from gbsite.examples.annotations import FIX, KINDS, REPRO, Kind
from gbsite.examples.vocabulary import Did, Outcome
from gbsite.fs.files import InputTooLarge, decode_utf8, read_input, write_if_changed
from gbsite.fs.lock import locked
from gbsite.registry import yamlio
from gbsite.registry.model import GB_ID

# The common outcomes (vocabulary.Did says what each word means), named for their callers.
BREAKS = Outcome(Did.BREAKS)  # with the page's id; other_break(): with other graph breaks
NO_BREAK = Outcome(Did.NO_BREAK)
RUNS = Outcome(Did.RUNS)
ONCE = Outcome(Did.ONCE)
RECOMPILES = Outcome(Did.RECOMPILES)
EAGER_FAILS = Outcome(Did.EAGER_FAILS)
DIFFERS = Outcome(Did.DIFFERS)
WRONG = Outcome(Did.WRONG)
CORRECT = Outcome(Did.CORRECT)
ERROR = Outcome(Did.ERROR)

MAX_BYTES = 32 * 2**20  # about 30 times the record of today's ~1,000 blocks
MAX_ENV = "GBSITE_MAX_RECORD_MB"
HEADER = (
    "# Written by `gbsite check --examples` and CI (`gbsite ci merge`), never by hand: what each\n"
    "# annotated example of docs/gb/ did with each torch release of gbsite.toml's [examples]\n"
    "# releases. A block is known by its page and the sha256 of its kind, options and code:\n"
    "# edited code has no outcomes until it is run again (its page is pending until then).\n"
)


# Backends a fix is also run with (`check --examples --backend NAME`), besides its own: their
# outcomes are recorded under `RELEASE/NAME` (`2.15.0/inductor: runs`), beside the release's.
BACKENDS = ("inductor", "aot_eager")


def run_key(release: str, backend: str = "") -> str:
    """Where a run's outcomes go in a row: the release, or `release/backend`."""
    return f"{release}/{backend}" if backend else release


def split_key(key: str) -> tuple[str, str]:
    """`2.15.0/inductor` -> (`2.15.0`, `inductor`); `2.15.0` -> (`2.15.0`, "")."""
    release, _, backend = key.partition("/")
    return release, backend


def valid_key(key: str) -> bool:
    release, backend = split_key(key)
    return releases.is_release(release) and (not backend or backend in BACKENDS)


def key_order(key: str) -> tuple[tuple[int, ...], str]:
    release, backend = split_key(key)
    return releases.order(release), backend


def passing(kind: str) -> Outcome:
    """The outcome a block promises: a repro breaks with its page's id, a fix runs, a gb-wrong
    shows the wrong value."""
    promises: dict[str, Outcome] = {Kind.REPRO: BREAKS, Kind.WRONG: WRONG}
    return promises.get(kind, RUNS)


def other_break(ids: Iterable[str]) -> Outcome:
    """A repro broke with these graph breaks (at least one) instead of its page's."""
    found = tuple(sorted(set(ids)))
    if not found:
        raise ValueError("other_break() needs the ids it broke with")
    return Outcome(Did.BREAKS, found)


@dataclass(frozen=True, slots=True)
class Row:
    """One block's outcomes, by release. `line` is for messages; it is not written (0 when
    read)."""

    id: str
    kind: str
    line: int
    sha256: str
    outcomes: dict[str, Outcome] = field(default_factory=dict)


# A block is known by its page and its digest: two pages may show the same code, and whether
# it "breaks" as promised depends on the page's id.
Key = tuple[str, str]  # (id, sha256)


@dataclass(frozen=True, slots=True)
class Record:
    rows: dict[Key, Row]

    def outcome(self, key: Key, release: str) -> Outcome | None:
        """With `release` (or a run key: `2.15.0/inductor`)."""
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


def _malformed(path: Path, why: str, line: int | None = None) -> GbsiteError:
    # `why` may quote the file: Problem prints it on one line whatever it holds, so that no
    # value can pass for a line of its own (a forged `::error` workflow command in CI's log).
    return GbsiteError.at(
        path,
        line,
        f"not a record of examples ({why[:300]}); delete it and run gbsite check --examples",
    )


def max_bytes() -> int:
    """The largest record read: MAX_BYTES, or $GBSITE_MAX_RECORD_MB (every command reads the
    record, so the limit is set once for all of them)."""
    raw = os.environ.get(MAX_ENV, "")
    if not raw:
        return MAX_BYTES
    try:
        mb = float(raw)
    except ValueError:
        mb = float("nan")
    if not 0 < mb < 2**20:  # nan fails too
        raise GbsiteError(f"{MAX_ENV}={raw[:40]!r} is not a number of megabytes above 0")
    return int(mb * 2**20)


def _text(path: Path) -> str:
    """The record's text: a regular file inside the project, within the size limit."""
    # Not a pipe, a device or a link out of the project (it would hang, fill the memory, or
    # decide what the site says from a file elsewhere), and not beyond any real record's size.
    limit = max_bytes()
    try:
        data = read_input(path, limit=limit)
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror}") from None
    except InputTooLarge:
        why = f"larger than {limit / 2**20:g} MB; {MAX_ENV} raises the limit"
        raise _malformed(path, why) from None
    return decode_utf8(path, data)


# `releases:` and `verified:` are of older records (read, not kept; see _parse).
_TOP_KEYS = {"blocks", "releases", "verified"}
_ROW_KEYS = {"id", "kind", "sha256", "outcomes"}
_OLD_ROW_KEYS = {"line", "build"}  # written by older gbsite; read, checked and dropped
_SHA256 = re.compile(r"[0-9a-f]{64}")


def read(path: Path) -> Record:
    """The record; an empty one when there is none yet. The first format (a `verified:` list of
    blocks that passed, each with its torch) is read as outcomes of that torch's release. Every
    value is checked: anything else is a one-line error with its line."""
    if not path.exists() and not path.is_symlink():
        return EMPTY
    return _parse(path, _text(path))


# An item as write() starts it, at the start of a line: what read_page() cuts the file at.
_ITEM = re.compile(r"^- id: (GB[0-9]{4})\n", re.MULTILINE)


def read_page(path: Path, gb_id: str) -> Record:
    """The rows of one page, for `gbsite show`: its items alone are parsed, as read() parses
    the whole record (a tenth of a second of YAML for ~1,000 rows); a file not in the layout
    write() gives is read whole."""
    if not path.exists() and not path.is_symlink():
        return EMPTY
    text = _text(path)
    head = "blocks:\n"
    if f"\n{head}- id: " not in text:
        rows = _parse(path, text).rows
        return Record({k: r for k, r in rows.items() if k[0] == gb_id})
    starts = [(m.start(), m.group(1)) for m in _ITEM.finditer(text)] + [(len(text), "")]
    items = [text[a:b] for (a, found), (b, _) in itertools.pairwise(starts) if found == gb_id]
    if not items:
        return EMPTY
    return _parse(path, head + "".join(items))


def _parse(path: Path, text: str) -> Record:
    data = yamlio.load(path, text)
    where = yamlio.Locator(text)
    if isinstance(data, dict):
        # As a row's: a key gbsite does not write is a mistake or a forgery, never ignored.
        unknown = sorted(data.keys() - _TOP_KEYS, key=str)
        if unknown:
            why = f"unknown key {str(unknown[0])[:40]!r}"
            raise _malformed(path, why, where.line([unknown[0]]))
    if isinstance(data, dict) and "verified" in data and "blocks" not in data:
        return _read_first_format(path, data["verified"], where)
    if not isinstance(data, dict) or not isinstance(data.get("blocks"), list):
        raise _malformed(path, "it needs `blocks:`, a list", where.line(["blocks"]))
    # `releases:` (each release's build) and a row's `line:` are read from older records and
    # not kept: neither identifies an outcome.
    rows: dict[Key, Row] = {}
    for n, item in enumerate(data["blocks"]):
        row = _row(path, n, item, where)
        rows[row.id, row.sha256] = row
    return Record(rows)


def _row(path: Path, n: int, item: object, where: yamlio.Locator) -> Row:
    def bad(why: str, *key: str) -> GbsiteError:
        return _malformed(path, f"block {n + 1}: {why}", where.line(["blocks", n, *key]))

    if not isinstance(item, dict) or not item.keys() >= _ROW_KEYS:
        raise bad("each block needs id, kind, sha256 and outcomes")
    unknown = sorted(str(k) for k in item.keys() - _ROW_KEYS - _OLD_ROW_KEYS)
    if unknown:
        raise bad(f"unknown key {unknown[0]!r}", unknown[0])
    for key, form in (("id", GB_ID), ("sha256", _SHA256)):
        if not isinstance(item[key], str) or not form.fullmatch(item[key]):
            raise bad(f"{key} is not {'an id like GB0025' if key == 'id' else 'a sha256'}", key)
    if item["kind"] not in KINDS:
        raise bad("kind is gb-repro, gb-fix or gb-wrong", "kind")
    line = item.get("line", 1)
    if not isinstance(line, int) or isinstance(line, bool) or not 0 < line < 10**9:
        raise bad("line is a line number", "line")
    if not isinstance(item.get("build", ""), str):
        raise bad("build is a string", "build")
    outcomes = item["outcomes"]
    if not isinstance(outcomes, dict):
        raise bad("outcomes is a mapping of release to outcome", "outcomes")
    parsed: dict[str, Outcome] = {}
    for release, text in outcomes.items():
        if not isinstance(release, str) or not valid_key(release):
            raise bad(
                f"{str(release)[:40]!r} is not a release such as 2.13.0 (or 2.15.0/inductor)",
                "outcomes",
            )
        outcome = Outcome.parse(text) if isinstance(text, str) else None
        if outcome is None:
            raise bad(f"unknown outcome {str(text)[:60]!r}", "outcomes", release)
        parsed[release] = outcome
    return Row(item["id"], item["kind"], 0, item["sha256"], parsed)


def _read_first_format(path: Path, entries: object, where: yamlio.Locator) -> Record:
    if not isinstance(entries, list):
        raise _malformed(path, "`verified:` is a list", where.line(["verified"]))
    rows: dict[Key, Row] = {}
    for n, e in enumerate(entries):
        ok = isinstance(e, dict) and {"id", "sha256", "torch"} <= e.keys()
        ok = ok and all(isinstance(e[k], str) for k in ("id", "sha256", "torch"))
        kind = e.get("kind") or "gb-repro" if isinstance(e, dict) else ""
        release = releases.release_of(e["torch"]) if ok else ""
        if not ok or kind not in (REPRO, FIX) or not releases.is_release(release):
            raise _malformed(
                path,
                f"entry {n + 1}: entries need id, sha256, kind and a torch release",
                where.line(["verified", n]),
            )
        rows[e["id"], e["sha256"]] = Row(e["id"], kind, 0, e["sha256"], {release: passing(kind)})
    return Record(rows)


def write(path: Path, record: Record) -> bool:
    """Write the record, blocks in the order of their pages; False when nothing changed."""

    blocks = [
        {
            "id": row.id,
            "kind": row.kind,
            "sha256": row.sha256,
            "outcomes": {r: str(row.outcomes[r]) for r in sorted(row.outcomes, key=key_order)},
        }
        # By page; within one, as the rows come (updated(): as the page has its blocks; read():
        # as the file has them), so that a read and a write change nothing.
        for row in sorted(record.rows.values(), key=lambda r: r.id)
    ]
    text = yamlio.dump({"blocks": blocks}, HEADER)
    return write_if_changed(path, text.encode("utf-8"))


def updated(
    record: Record,
    runs: dict[str, dict[Key, Outcome]],
    current: dict[Key, Row],
    *,
    keep: bool = False,
) -> Record:
    """The record with new outcomes (`runs`: release -> block -> outcome). `current`: a row
    (without outcomes) for every runnable block the pages have now, in their order: blocks no
    page has any more are dropped. With `keep`, an outcome the record holds is never replaced
    (CI's files fill only what is missing: a new or edited block, a new release)."""
    rows: dict[Key, Row] = {}
    for key, fresh in current.items():
        old = record.rows.get(key)
        merged = {**(old.outcomes if old else {})}
        for release, outcomes in runs.items():
            if key in outcomes and not (keep and release in merged):
                merged[release] = outcomes[key]
        if merged:
            rows[key] = replace(fresh, outcomes=merged)
    return Record(rows)


def store(
    path: Path,
    runs: dict[str, dict[Key, Outcome]],
    current: dict[Key, Row] | Callable[[], dict[Key, Row]],
    *,
    keep: bool = False,
) -> Record:
    """Add `runs` (release -> block -> outcome) to the record at `path`, read afresh under the
    lock of its folder: two runs that end together (two releases, two pages) both keep their
    outcomes, and a run changes only the rows it ran. `current` (or what it returns, asked under
    the lock: the pages as they are now, not as they were when a long run started) says which
    blocks the pages still have. `keep`: what the record holds is kept (updated())."""
    with locked(path.parent, "the record of examples"):
        _remove_leftovers(path)
        rows = current() if callable(current) else current
        new = updated(read(path), runs, rows, keep=keep)
        write(path, new)
    return new


def _remove_leftovers(path: Path) -> None:
    """Remove the temporary files (write_atomic's `.NAME.*.tmp`) of a write that was killed
    before its rename. Only a writer holding the lock calls this: no write is under way."""
    for leftover in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        with contextlib.suppress(OSError):
            leftover.unlink()

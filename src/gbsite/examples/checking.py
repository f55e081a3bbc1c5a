"""`gbsite check --examples` and `gbsite coverage` as library calls: read the pages, run their
blocks (runner.py), check the status blocks against torch (torchsource.py), record what passed.
command.py prints what these return."""

from __future__ import annotations

import json
import textwrap
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from gbsite import releases as release_order
from gbsite.config import Config
from gbsite.docs import files as docs
from gbsite.errors import GbsiteError, Problem, display_path
from gbsite.examples import coverage, runner, torchenv, torchsource
from gbsite.examples import record as rec
from gbsite.examples.coverage import PageCoverage, PageExamples
from gbsite.examples.judging import Result
from gbsite.registry.model import Entry, Registry


def page_problems(
    pages: dict[str, docs.Doc], reg: Registry, releases: tuple[str, ...]
) -> list[Problem]:
    """Annotated blocks and status blocks that are malformed or contradict each other, or
    name a release the examples do not have."""
    try:
        read = coverage.read_pages(pages, reg.entries)
    except GbsiteError as exc:
        return exc.problems
    return coverage.since_problems(
        read.values(), homes(reg, read, releases), releases
    ) + coverage.span_problems(read.values(), coverage.present_in(reg, releases), releases)


def homes(reg: Registry, ids: Iterable[str], releases: tuple[str, ...]) -> dict[str, str]:
    """Each id's home release (home_release)."""
    return {i: home_release(reg.entries.get(i), reg.labels, releases) for i in ids}


def read_pages(cfg: Config, reg: Registry) -> dict[str, PageExamples]:
    """Every docs file's blocks and status block; any problem in any page raises."""
    files, _ = docs.scan(cfg.docs_dir)
    read: dict[str, docs.Doc] = {}
    problems: list[Problem] = []
    for gb_id, path in files.items():
        if gb_id in reg.entries:
            try:
                read[gb_id] = docs.read(path, outside=False)
            except GbsiteError as exc:
                problems += exc.problems
    if problems:
        raise GbsiteError(problems)
    pages = coverage.read_pages(read, reg.entries)
    releases = cfg.example_releases
    problems = coverage.since_problems(pages.values(), homes(reg, pages, releases), releases)
    problems += coverage.span_problems(pages.values(), coverage.present_in(reg, releases), releases)
    if problems:
        raise GbsiteError(problems)
    return pages


@dataclass(frozen=True, slots=True)
class Checked:
    """One block's run, judged against its promise and against the record."""

    result: Result
    ok: bool
    summary: str  # one line: what it did, and why that fails the check if it does


@dataclass
class ExampleCheck:
    """What `check --examples` found with one torch."""

    torch: str
    release: str
    blocks: int  # how many were run
    forked: bool
    results: list[Checked] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # status blocks, then failed blocks
    notes: list[Problem] = field(default_factory=list)  # status blocks a later torch outdated
    seconds: float = 0.0

    @property
    def failed(self) -> list[Checked]:
        return [c for c in self.results if not c.ok]

    def details(self, problem: Problem) -> str:
        """What the program printed or raised, for a failed block's problem."""
        return next(
            (
                c.result.details
                for c in self.failed
                if c.result.block.path == problem.path and c.result.block.line == problem.line
            ),
            "",
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "ok": not self.problems,
            "torch": self.torch,
            "release": self.release,
            "seconds": round(self.seconds, 2),
            "results": [
                {
                    "id": c.result.block.gb_id,
                    "kind": c.result.block.kind,
                    "path": display_path(c.result.block.path),
                    "line": c.result.block.line,
                    "sha256": c.result.block.digest,
                    "passed": c.ok,
                    "outcome": c.result.outcome,
                    "summary": c.summary,
                    "details": c.result.details if not c.ok else "",
                    "seconds": round(c.result.seconds, 2),
                }
                for c in self.results
            ],
            "problems": [p.as_dict() for p in self.problems],
            "notes": [p.as_dict() for p in self.notes],
        }

    def json(self) -> str:
        return json.dumps(self.as_dict(), indent=2)


def home_release(entry: Entry | None, labels: list[str], releases: tuple[str, ...]) -> str:
    """The oldest example release whose registry has the id: where its blocks must do what they
    promise. (With a later torch a repro may stop breaking: that is recorded, not a failure.)"""
    if entry is not None:
        for release, label in release_order.registry_labels(releases, labels).items():
            if release_order.in_release(entry, labels, label):
                return release
    return releases[0]


class Verdict:
    """Judges each run against the record: a block does what it promises with its home
    release (`home`: by page id), and does again what the record says it did (unless
    `accept`)."""

    def __init__(
        self, record: rec.Record, release: str, home: dict[str, str], *, accept: bool
    ) -> None:
        self.record, self.release, self.home, self.accept = record, release, home, accept

    def __call__(self, r: Result) -> Checked:
        block = r.block
        recorded = self.record.outcome(block.key, self.release)
        if r.outcome is None:
            return Checked(r, False, r.summary)
        if recorded is not None and recorded != r.outcome and not self.accept:
            return Checked(
                r,
                False,
                f"recorded `{recorded}` with torch {self.release}, now `{r.outcome}`: "
                f"{r.summary} (if torch changed, re-record with --accept)",
            )
        if self.release == block.home(self.home[block.gb_id]) and not r.passed:
            return Checked(r, False, r.summary)
        if r.passed:
            return Checked(r, True, r.summary)
        said = f"{rec.describe(r.outcome)} with torch {self.release} (recorded)"
        return Checked(r, True, f"{said}: {r.summary}")


def check_examples(
    cfg: Config,
    reg: Registry,
    ids: Iterable[str],
    *,
    python: str,
    jobs: int,
    timeout: float,
    changed: bool = False,
    fresh: bool = False,
    accept: bool = False,
    started: Callable[[ExampleCheck], None] | None = None,
    progress: Callable[[Checked], None] | None = None,
) -> ExampleCheck:
    """Run the pages' blocks (all, or those of `ids`; with `changed`, only those without an
    outcome for this torch's release) with `python`'s torch, check the status blocks against
    that torch, and record what the blocks did."""
    wanted = {i.upper() for i in ids}
    unknown = sorted(wanted - set(reg.entries))
    if unknown:
        raise GbsiteError(f"not in the registry: {', '.join(unknown)}")
    every = read_pages(cfg, reg)
    pages = {i: p for i, p in every.items() if not wanted or i in wanted}
    version, folder = torchenv.torch_info(python)
    release = release_order.release_of(version)
    releases = cfg.example_releases
    if release not in releases:
        raise GbsiteError(
            f"{python} has torch {version}, which is not a release of the examples "
            f"({', '.join(releases)} in gbsite.toml [examples]): run with --torch RELEASE"
        )
    record = rec.read(cfg.verified_file)
    blocks = [b for page in pages.values() for b in page.blocks if b.runnable]
    if changed:
        blocks = [b for b in blocks if record.outcome(b.key, release) is None]
    fork = not fresh and runner.can_fork()
    check = ExampleCheck(version, release, len(blocks), fork)
    # The status block that holds with this torch is held against it when this is its home:
    # the first release of the examples with the id, or its `since:`. With a later torch, a
    # citation that no longer holds is a note (the break may be gone or moved since), not a
    # failure.
    source = torchsource.TorchSource(folder)
    home = homes(reg, pages, releases)
    declared = {i: d for i, p in pages.items() if (d := p.declared_for(release)) is not None}
    check.problems = torchsource.torch_problems(
        {i: d for i, d in declared.items() if (d.since or home[i]) == release}, reg, source, version
    )
    check.notes = torchsource.torch_problems(
        {i: d for i, d in declared.items() if (d.since or home[i]) != release}, reg, source, version
    )
    if started is not None:
        started(check)
    verdict = Verdict(record, release, home, accept=accept)

    def judged(r: Result) -> None:
        c = verdict(r)
        check.results.append(c)
        if progress is not None:
            progress(c)

    clock = time.monotonic()
    if blocks:
        runner.run_all(blocks, python, jobs, timeout, judged, fresh=not fork)
    check.seconds = time.monotonic() - clock
    outcomes = {
        c.result.block.key: str(c.result.outcome)
        for c in check.results
        if c.ok and c.result.outcome is not None
    }

    def now() -> dict[rec.Key, rec.Row]:
        """The pages' blocks as they are when the outcomes are stored: a page edited (and run by
        another check) meanwhile keeps the other run's rows."""
        try:
            return current_rows(read_pages(cfg, reg).values())
        except GbsiteError:  # a page broken meanwhile: the blocks as this run read them
            return current_rows(every.values())

    rec.store(cfg.verified_file, {release: outcomes}, now)
    check.problems += [
        Problem(f"{c.result.block.kind} {c.summary}", c.result.block.path, c.result.block.line)
        for c in sorted(check.failed, key=lambda c: (str(c.result.block.path), c.result.block.line))
    ]
    return check


def current_rows(pages: Iterable[PageExamples]) -> dict[rec.Key, rec.Row]:
    """A row (without outcomes) for every runnable block the pages have, in page order."""
    return {
        b.key: rec.Row(b.gb_id, b.kind, b.line, b.digest)
        for page in pages
        for b in page.blocks
        if b.runnable
    }


@dataclass(frozen=True, slots=True)
class RecordCheck:
    """`gbsite check --record`: blocks recorded as failing their promise (problems), and blocks
    whose runs are pending (no outcome yet for some release: CI runs them)."""

    problems: list[Problem]
    pending: list[Problem]


def record_check(cfg: Config, reg: Registry) -> RecordCheck:
    """Every runnable block that has an outcome for its home release (or its `since=`) does
    what it promises there; blocks missing an outcome for some release are pending. Needs no
    torch."""
    record = rec.read(cfg.verified_file)
    releases = cfg.example_releases
    problems, pending = [], []
    present = coverage.present_in(reg, releases)
    for page in read_pages(cfg, reg).values():
        home = home_release(reg.entries.get(page.id), reg.labels, releases)
        problems += coverage.record_problems(page, record, present.get(page.id, ()))
        for b in page.blocks:
            if not b.runnable:
                continue
            missing = record.missing(b.key, releases)
            if missing:
                pending.append(
                    Problem(
                        f"{b.kind} not run yet with torch {', '.join(missing)}: CI's examples "
                        f"jobs run it and record the outcome (locally: `gbsite check --examples "
                        f"{page.id} --torch {missing[0] if len(missing) == 1 else 'all'}`)",
                        b.path,
                        b.line,
                    )
                )
            if b.home(home) not in missing and not record.passed(b.key, b.kind, b.home(home)):
                problems.append(
                    Problem(
                        f"{b.kind} is recorded as `{record.outcome(b.key, b.home(home))}` "
                        f"with torch {b.home(home)}, where it must do what it promises",
                        b.path,
                        b.line,
                    )
                )
    return RecordCheck(problems, pending)


@dataclass(frozen=True, slots=True)
class Coverage:
    """`gbsite coverage`: the state of every id of a release."""

    release: str
    states: list[PageCoverage]
    repeated: dict[str, list[str]]  # paragraph -> the pages that have it, when over two

    MIN_WORDS = 60  # of a page's own prose, below which it is listed as thin

    @property
    def counts(self) -> dict[str, int]:
        return coverage.counts(self.states)

    @property
    def thin(self) -> list[str]:
        """Pages with something written, but little prose of their own."""
        return [s.id for s in self.states if s.status != "none" and s.words < self.MIN_WORDS]

    def json(self) -> str:
        return json.dumps(
            {
                "release": self.release,
                "total": len(self.states),
                "counts": self.counts,
                "ids": [s.as_dict() for s in self.states],
                "repeated_paragraphs": [
                    {"text": text, "ids": ids} for text, ids in sorted(self.repeated.items())
                ],
            },
            indent=2,
        )

    def text(self, *, list_none: bool) -> str:
        total = len(self.states)
        lines = [f"coverage of the {total} ids of torch {self.release}:"]
        by_state = {s: [c.id for c in self.states if c.status == s] for s in coverage.STATES}
        for state, ids in by_state.items():
            share = 100 * len(ids) / total if total else 0
            lines.append(f"  {state:<12} {len(ids):>4}  {share:5.1f}%")
        for state, ids in by_state.items():
            if ids and (list_none or state != "none"):
                wrapped = textwrap.fill(
                    " ".join(ids), width=100, initial_indent="  ", subsequent_indent="  "
                )
                lines += ["", f"{state}:", wrapped]
        if self.thin:
            lines += ["", f"under {self.MIN_WORDS} words of prose: {' '.join(self.thin)}"]
        for text, ids in sorted(self.repeated.items()):
            lines += ["", f"repeated on {len(ids)} pages ({' '.join(ids)}): {text[:90]}"]
        return "\n".join(lines)


def coverage_of(cfg: Config, reg: Registry, release: str | None) -> Coverage:
    """The coverage of a release: an example release (2.14.1), or an imported one (2.14.0,
    judged with the example release that maps to it). Default: the newest example release."""
    releases = cfg.example_releases
    labels = release_order.registry_labels(releases, reg.labels)
    if release is None:
        release = max(labels, key=releases.index) if labels else reg.labels[-1]
    elif release not in labels:
        if release not in reg.labels:
            raise GbsiteError(
                f"release {release} is neither a release of the examples "
                f"({', '.join(releases)}) nor an imported one ({', '.join(reg.labels)})"
            )
        release = next((r for r, label in labels.items() if label == release), release)
    record = rec.read(cfg.verified_file)
    pages = read_pages(cfg, reg)
    states = coverage.coverage(reg, pages, record, release, releases)
    return Coverage(release, states, coverage.repeated_paragraphs(pages.values()))


def record_path(cfg: Config) -> Path:
    return cfg.verified_file.relative_to(cfg.root)

"""`gbsite check --examples` and `check --record` as library calls: run the pages' blocks and
judge them against their promise and the record; command.py prints what these return."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gbsite.config import Config
from gbsite.errors import GbsiteError, Problem, display_path
from gbsite.examples import pages as pages_
from gbsite.examples import record as rec
from gbsite.examples import runner, torchenv, torchsource
from gbsite.examples.annotations import DEFAULT_BACKEND, FIX, REPRO, Block
from gbsite.examples.judging import Result
from gbsite.examples.pages import Lifecycles, PageExamples
from gbsite.examples.record import Record
from gbsite.examples.vocabulary import LATER
from gbsite.registry.model import Registry
from gbsite.releases import release_of


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
    backend: str = ""  # the fixes' backend in this run, when not their own (record.BACKENDS)
    results: list[Checked] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # status blocks, then failed blocks
    notes: list[Problem] = field(default_factory=list)  # status blocks a later torch outdated
    # Blocks not run: the Python they need was not found (one line each, with the reason).
    skipped: list[Problem] = field(default_factory=list)
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
            **({"backend": self.backend} if self.backend else {}),
            "seconds": round(self.seconds, 2),
            "results": [
                {
                    "id": c.result.block.gb_id,
                    "kind": c.result.block.kind,
                    "path": display_path(c.result.block.path),
                    "line": c.result.block.line,
                    "sha256": c.result.block.digest,
                    "passed": c.ok,
                    "outcome": None if c.result.outcome is None else str(c.result.outcome),
                    "summary": c.summary,
                    "details": c.result.details if not c.ok else "",
                    "seconds": round(c.result.seconds, 2),
                }
                for c in self.results
            ],
            "problems": [p.as_dict() for p in self.problems],
            "notes": [p.as_dict() for p in self.notes],
            "skipped": [p.as_dict() for p in self.skipped],
        }

    def json(self) -> str:
        return json.dumps(self.as_dict(), indent=2)


class Verdict:
    """Judges each run against the record: a block does what it promises with its home
    release (its page's, or its `since=`), and does again what the record says it did (unless
    `accept`). With another `backend`, every fix must do what it promises."""

    def __init__(
        self,
        record: rec.Record,
        release: str,
        lifecycles: Lifecycles,
        *,
        accept: bool,
        backend: str = "",
    ) -> None:
        self.record, self.release, self.lifecycles = record, release, lifecycles
        self.accept, self.backend = accept, backend
        self.key = rec.run_key(release, backend)

    def __call__(self, r: Result) -> Checked:
        block = r.block
        recorded = self.record.outcome(block.key, self.key)
        with_ = f"torch {self.release}" + (f" and {self.backend}" if self.backend else "")
        if r.outcome is None:
            return Checked(r, False, r.summary)
        if recorded is not None and recorded != r.outcome and not self.accept:
            return Checked(
                r,
                False,
                f"recorded `{recorded}` with {with_}, now `{r.outcome}`: "
                f"{r.summary} (if torch changed, re-record with --accept)",
            )
        if self.backend and not r.passed and recorded is None and not self.accept:
            # Recorded only once accepted: the page must then say what the backend does.
            return Checked(
                r,
                False,
                f"with {self.backend}: {r.summary} (if {self.backend} cannot do it, say so on "
                "the page and record it with --accept)",
            )
        home = self.release == block.home(self.lifecycles.home(block.gb_id))
        if home and not self.backend and not r.passed:
            return Checked(r, False, r.summary)
        if r.passed:
            return Checked(r, True, r.summary)
        said = f"{r.outcome.describe()} with {with_} (recorded)"
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
    backend: str = "",
    started: Callable[[ExampleCheck], None] | None = None,
    progress: Callable[[Checked], None] | None = None,
) -> ExampleCheck:
    """Run the pages' blocks (all, or those of `ids`; with `changed`, only those without an
    outcome for this torch's release) with `python`'s torch, check the status blocks against
    that torch, and record what the blocks did. With `backend`, run the fixes compiled with it
    instead of their own, into the record's `RELEASE/BACKEND` column. One stage a function,
    in order."""
    lifecycles = Lifecycles.of(reg, cfg.example_releases)
    every = pages_.load(cfg, lifecycles)
    chosen = _chosen(every, reg, ids)
    version, release, folder = _torch(python, lifecycles.releases)
    record = rec.read(cfg.verified_file)
    blocks = _to_run(chosen, record, rec.run_key(release, backend), changed=changed)
    if backend:
        blocks = on_backend(blocks, backend)
    check = ExampleCheck(version, release, len(blocks), not fresh and runner.can_fork(), backend)
    if not backend:  # a run with another backend checks the blocks; the status blocks once
        check.problems, check.notes = _status_blocks(chosen, lifecycles, reg, folder, check)
    if started is not None:
        started(check)
    verdict = Verdict(record, release, lifecycles, accept=accept, backend=backend)
    clock = time.monotonic()
    for group, python_of_group in _by_python(blocks, python, release, lifecycles, check):
        _run(check, group, verdict, python_of_group, jobs, timeout, progress)
    check.seconds = time.monotonic() - clock
    _store(cfg, lifecycles, check, every)
    check.problems += _failures(check)
    return check


def _chosen(
    every: dict[str, PageExamples], reg: Registry, ids: Iterable[str]
) -> dict[str, PageExamples]:
    """The pages of `ids` (all of them without any); an id the registry lacks raises."""
    wanted = {i.upper() for i in ids}
    unknown = sorted(wanted - set(reg.entries))
    if unknown:
        raise GbsiteError(f"not in the registry: {', '.join(unknown)}")
    return {i: p for i, p in every.items() if not wanted or i in wanted}


def _torch(python: str, releases: tuple[str, ...]) -> tuple[str, str, Path]:
    """`python`'s torch: its version, the release of the examples it counts for, its folder."""
    version, folder = torchenv.torch_info(python)
    release = release_of(version)
    if release not in releases:
        raise GbsiteError(
            f"{python} has torch {version}, which is not a release of the examples "
            f"({', '.join(releases)} in gbsite.toml [examples]): run with --torch RELEASE"
        )
    return version, release, folder


def _to_run(
    chosen: dict[str, PageExamples], record: rec.Record, release: str, *, changed: bool
) -> list[Block]:
    """The runnable blocks of the pages; with `changed`, those without an outcome here."""
    blocks = [b for page in chosen.values() for b in page.blocks if b.runnable]
    if changed:
        blocks = [b for b in blocks if record.outcome(b.key, release) is None]
    return blocks


def on_backend(blocks: list[Block], backend: str) -> list[Block]:
    """The fixes compiled with torch.compile's default backend (eager), to run with `backend`
    instead: what users run. A repro's break is Dynamo's, the same whatever the backend; a
    fix with a backend of its own, or one that compiles by itself, runs as its page says."""
    return [
        replace(b, run_backend=backend)
        for b in blocks
        if b.kind == FIX and not b.script and b.backend == DEFAULT_BACKEND
    ]


def _by_python(
    blocks: list[Block], python: str, release: str, lifecycles: Lifecycles, check: ExampleCheck
) -> Iterable[tuple[list[Block], str]]:
    """The blocks grouped by the interpreter they run with: `python` for most; for a block
    that needs another Python (`needs=python:3.12`), the environment of this release with that
    Python, made on first use. Blocks whose Python is not found are skipped, with a note."""
    wanted: dict[str, list[Block]] = {}
    for b in blocks:
        wanted.setdefault(b.python, []).append(b)
    for version, group in wanted.items():
        if not version:
            yield group, python
            continue
        try:
            found = torchenv.python_for(
                release, lifecycles.releases, python=version, current=python
            )
        except GbsiteError as exc:
            check.skipped += [
                Problem(f"{b.kind} not run with torch {release}: {exc}", b.path, b.line)
                for b in group
            ]
            continue
        yield group, found


def _status_blocks(
    chosen: dict[str, PageExamples],
    lifecycles: Lifecycles,
    reg: Registry,
    folder: Path,
    check: ExampleCheck,
) -> tuple[list[Problem], list[Problem]]:
    """The status blocks that hold with this torch, held against its source: problems where
    this release is the block's home (the first release of the examples with the id, or its
    `since:`); notes elsewhere, as a later torch may have moved or removed the break since."""
    source = torchsource.TorchSource(folder)
    declared = {i: d for i, p in chosen.items() if (d := p.declared_for(check.release)) is not None}
    home = {i: d.since or lifecycles.home(i) for i, d in declared.items()}
    here = {i: d for i, d in declared.items() if home[i] == check.release}
    later = {i: d for i, d in declared.items() if home[i] != check.release}
    return (
        torchsource.torch_problems(here, reg, source, check.torch),
        torchsource.torch_problems(later, reg, source, check.torch),
    )


def _run(
    check: ExampleCheck,
    blocks: list[Block],
    verdict: Verdict,
    python: str,
    jobs: int,
    timeout: float,
    progress: Callable[[Checked], None] | None,
) -> None:
    """Run the blocks, each judged as it ends, into `check.results`."""

    def judged(r: Result) -> None:
        c = verdict(r)
        if r.block.python:
            c = replace(c, summary=f"{c.summary} (Python {r.block.python})")
        check.results.append(c)
        if progress is not None:
            progress(c)

    if blocks:
        runner.run_all(blocks, python, jobs, timeout, judged, fresh=not check.forked)


def _store(
    cfg: Config, lifecycles: Lifecycles, check: ExampleCheck, read: dict[str, PageExamples]
) -> None:
    """Record the outcomes of the blocks that passed the check."""
    outcomes = {
        c.result.block.key: c.result.outcome
        for c in check.results
        if c.ok and c.result.outcome is not None
    }

    def now() -> dict[rec.Key, rec.Row]:
        """The pages' blocks as they are when the outcomes are stored: a page edited (and run by
        another check) meanwhile keeps the other run's rows."""
        try:
            return current_rows(pages_.load(cfg, lifecycles).values())
        except GbsiteError:  # a page broken meanwhile: the blocks as this run read them
            return current_rows(read.values())

    rec.store(cfg.verified_file, {rec.run_key(check.release, check.backend): outcomes}, now)


def _failures(check: ExampleCheck) -> list[Problem]:
    """A problem for each block that failed, in page order."""
    return [
        Problem(f"{c.result.block.kind} {c.summary}", c.result.block.path, c.result.block.line)
        for c in sorted(check.failed, key=lambda c: (str(c.result.block.path), c.result.block.line))
    ]


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
    what it promises there; no status block contradicts the record; blocks missing an outcome
    for some release are pending. Needs no torch."""
    record = rec.read(cfg.verified_file)
    lifecycles = Lifecycles.of(reg, cfg.example_releases)
    problems, pending = [], []
    for page in pages_.load(cfg, lifecycles).values():
        home = lifecycles.home(page.id)
        problems += _contradicted(page, record, lifecycles.present.get(page.id, ()))
        for b in page.blocks:
            if not b.runnable:
                continue
            missing = record.missing(b.key, lifecycles.releases)
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


def _contradicted(page: PageExamples, record: Record, present: Sequence[str]) -> list[Problem]:
    """A status block that the record contradicts for a release it holds for: `internal` or
    `unraised` there, while a repro of the page is recorded breaking with this id there (a
    program reaches it, so torch raises it). `present`: the releases of the examples whose
    registry has the id."""
    problems = []
    for release in present:
        d = page.declared_for(release)
        if d is None or d.status not in LATER:
            continue
        broke = [
            b
            for b in page.blocks
            if b.kind == REPRO and b.runnable and record.outcome(b.key, release) == rec.BREAKS
        ]
        if broke:
            problems.append(
                Problem(
                    f"declared {d.status} with torch {release}, but the gb-repro of line "
                    f"{broke[0].line} is recorded breaking with {page.id} there: a program "
                    f"reaches it with that torch; declare it only where the repro stops breaking "
                    "(`since:`, `until:`)",
                    d.path,
                    d.line,
                )
            )
    return problems


def record_path(cfg: Config) -> Path:
    return cfg.verified_file.relative_to(cfg.root)

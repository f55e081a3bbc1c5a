"""`gbsite check --examples` and `gbsite coverage` as library calls: read the pages, run their
blocks (runner.py), check the status blocks against torch (coverage.py), record what passed.
The CLI only parses arguments and prints what these return."""

from __future__ import annotations

import json
import textwrap
import time
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from gbsite import coverage, docs, examples, runner
from gbsite.config import Config
from gbsite.coverage import Page, PageCoverage
from gbsite.errors import GbsiteError, Problem, display_path
from gbsite.model import Registry


def page_problems(pages: dict[str, docs.Doc], known: Container[str]) -> list[Problem]:
    """Annotated blocks and status blocks that are malformed or contradict each other."""
    try:
        coverage.read_pages(pages, known)
    except GbsiteError as exc:
        return exc.problems
    return []


def read_pages(cfg: Config, reg: Registry) -> dict[str, Page]:
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
    return coverage.read_pages(read, reg.entries)


@dataclass
class ExampleCheck:
    """What `check --examples` found."""

    torch: str
    blocks: int  # how many were run
    forked: bool
    results: list[examples.Result] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # status blocks, then failed blocks
    seconds: float = 0.0

    @property
    def failed(self) -> list[examples.Result]:
        return [r for r in self.results if not r.passed]

    def details(self, problem: Problem) -> str:
        """What the program printed or raised, for a failed block's problem."""
        return next(
            (
                r.details
                for r in self.failed
                if r.block.path == problem.path and r.block.line == problem.line
            ),
            "",
        )

    def json(self) -> str:
        return json.dumps(
            {
                "ok": not self.problems,
                "torch": self.torch,
                "seconds": round(self.seconds, 2),
                "results": [
                    {
                        "id": r.block.gb_id,
                        "kind": r.block.kind,
                        "path": display_path(r.block.path),
                        "line": r.block.line,
                        "passed": r.passed,
                        "summary": r.summary,
                        "seconds": round(r.seconds, 2),
                    }
                    for r in self.results
                ],
                "problems": [p.as_dict() for p in self.problems],
            },
            indent=2,
        )


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
    started: Callable[[ExampleCheck], None] | None = None,
    progress: Callable[[examples.Result], None] | None = None,
) -> ExampleCheck:
    """Run the pages' blocks (all, or those of `ids`; with `changed`, only those without a
    record for this torch), check their status blocks, and record the blocks that passed."""
    wanted = {i.upper() for i in ids}
    unknown = sorted(wanted - set(reg.entries))
    if unknown:
        raise GbsiteError(f"not in the registry: {', '.join(unknown)}")
    pages = {i: p for i, p in read_pages(cfg, reg).items() if not wanted or i in wanted}
    version, folder = examples.torch_info(python)
    blocks = [b for page in pages.values() for b in page.blocks if b.runnable]
    if changed:
        record = examples.read_record(cfg.verified_file)
        blocks = [b for b in blocks if record.get(b.digest) != version]
    fork = not fresh and runner.can_fork()
    check = ExampleCheck(version, len(blocks), fork)
    check.problems = coverage.torch_problems(pages, reg, coverage.TorchSource(folder), version)
    if started is not None:
        started(check)
    clock = time.monotonic()
    if blocks:
        check.results = runner.run_all(blocks, python, jobs, timeout, progress, fresh=not fork)
    check.seconds = time.monotonic() - clock
    # A partial run keeps the entries of the pages and blocks it did not run.
    examples.write_record(cfg.verified_file, check.results, wanted or None, keep_digests=changed)
    check.problems += [
        Problem(f"{r.block.kind} {r.summary}", r.block.path, r.block.line)
        for r in sorted(check.failed, key=lambda r: (str(r.block.path), r.block.line))
    ]
    return check


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
    record = examples.read_record(cfg.verified_file)
    release = release or coverage.default_release(reg, record)
    if release not in reg.labels:
        raise GbsiteError(f"release {release} was not imported (imported: {', '.join(reg.labels)})")
    pages = read_pages(cfg, reg)
    states = coverage.coverage(reg, pages, record, release)
    return Coverage(release, states, coverage.repeated_paragraphs(pages.values()))


def record_path(cfg: Config) -> Path:
    return cfg.verified_file.relative_to(cfg.root)

"""The state of every id's page for a release, derived from its page and the record of runs
(the states: vocabulary.State), and `gbsite coverage`'s figures."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gbsite.config import Config
from gbsite.errors import GbsiteError
from gbsite.examples import pages as pages_
from gbsite.examples import record as runs
from gbsite.examples.annotations import FIX, REPRO, WRONG
from gbsite.examples.pages import PageExamples
from gbsite.examples.record import Record
from gbsite.examples.status import Declaration
from gbsite.examples.vocabulary import Outcome, State
from gbsite.registry.model import Registry
from gbsite.releases import in_release, registry_labels


@dataclass(frozen=True, slots=True)
class BlockState:
    kind: str
    line: int
    needs: str
    verified: str | None  # the torch build it did what it promises with, for this release
    outcomes: tuple[tuple[str, Outcome], ...] = ()  # (release, outcome) for every release run


@dataclass(frozen=True, slots=True)
class PageCoverage:
    id: str
    status: State
    blocks: tuple[BlockState, ...] = ()
    declaration: Declaration | None = None
    words: int = 0  # of prose outside code blocks

    @property
    def source(self) -> str | None:
        return self.declaration.cited if self.declaration else None

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "status": self.status,
            "source": self.source,
            "words": self.words,
            "blocks": [
                {
                    "kind": b.kind,
                    "line": b.line,
                    "needs": b.needs or None,
                    "verified": b.verified,
                    "outcomes": {r: str(o) for r, o in b.outcomes},
                }
                for b in self.blocks
            ],
        }


def page_coverage(
    page: PageExamples | None,
    gb_id: str,
    record: Record,
    release: str,
    releases: tuple[str, ...] = (),
) -> PageCoverage:
    """The state of one id for an example release, from its page and the record of runs.
    `releases`: every example release, oldest first (a page is `fixed` in `release` when its
    repro broke with an older one)."""
    if page is None:
        return PageCoverage(gb_id, State.NONE)
    examples = [b for b in page.blocks if b.kind != WRONG]  # a warning, not an example of it
    states = tuple(
        BlockState(
            b.kind,
            b.line,
            b.needs,
            record.verified_with(b.key, b.kind, release) if b.runnable else None,
            tuple(sorted(record.rows[b.key].outcomes.items()))
            if b.runnable and b.key in record.rows
            else (),
        )
        for b in examples
    )
    declared = page.declared_for(release)
    if declared is not None:
        status = declared.status
    elif {s.kind for s in states if s.verified} == {REPRO, FIX}:
        status = State.VERIFIED
    else:
        fixed = fixed_in(page, record, releases)
        since = fixed[0] if fixed is not None else None
        later = since is not None and release in releases
        fixed_here = later and releases.index(release) >= releases.index(str(since))
        # A repro that stopped breaking says enough; else blocks not run yet are pending,
        # never "none": the blocks are there, their runs are not.
        pending = release in releases and any(
            b.runnable and record.missing(b.key, (release,)) for b in examples
        )
        status = State.FIXED if fixed_here else State.PENDING if pending else State.NONE
    return PageCoverage(gb_id, status, states, declared, page.words)


def fixed_in(
    page: PageExamples, record: Record, releases: tuple[str, ...]
) -> tuple[str, tuple[str, ...]] | None:
    """The example release from which the page's repro no longer breaks, having broken with
    an older one (the release that removes the break for code like the example), and the
    releases it broke with."""
    for block in page.blocks:
        if block.kind != REPRO or block.since or not block.runnable:
            continue
        if block.key not in record.rows:
            continue
        outcomes = record.rows[block.key].outcomes
        broke: list[str] = []
        since: str | None = None
        for release in releases:
            outcome = outcomes.get(release)
            if outcome == runs.BREAKS:
                broke.append(release)
                since = None
            elif outcome == runs.NO_BREAK and broke and since is None:
                since = release
        if since is not None:
            return since, tuple(broke)
    return None


def coverage(
    registry: Registry,
    pages: dict[str, PageExamples],
    record: Record,
    release: str,
    releases: tuple[str, ...],
) -> list[PageCoverage]:
    """The state of every id of an example release, by id."""
    labels = registry.labels
    label = registry_labels([release], labels)[release]
    return [
        page_coverage(pages.get(gb_id), gb_id, record, release, releases)
        for gb_id, entry in registry.entries.items()
        if in_release(entry, labels, label)
    ]


def counts(states: Iterable[PageCoverage]) -> dict[State, int]:
    out = dict.fromkeys(State, 0)
    for s in states:
        out[s.status] += 1
    return out


@dataclass(frozen=True, slots=True)
class Coverage:
    """`gbsite coverage`: the state of every id of a release."""

    release: str
    states: list[PageCoverage]
    repeated: dict[str, list[str]]  # paragraph -> the pages that have it, when over two

    MIN_WORDS = 60  # of a page's own prose, below which it is listed as thin

    @property
    def counts(self) -> dict[State, int]:
        return counts(self.states)

    @property
    def thin(self) -> list[str]:
        """Pages with something written, but little prose of their own."""
        return [s.id for s in self.states if s.status != State.NONE and s.words < self.MIN_WORDS]

    def by_state(self) -> dict[State, list[str]]:
        """The ids in each state, every state listed."""
        return {s: [c.id for c in self.states if c.status == s] for s in State}

    def backends(self) -> dict[str, dict[str, int]]:
        """For each backend the fixes were also run with on this release (inductor): how many
        did what they promise (`passed`), how many did not (`failed`), how many were not run."""
        from gbsite.examples import record

        fixes = [b for c in self.states for b in c.blocks if b.kind == FIX]
        columns = {
            column
            for b in fixes
            for column, _ in b.outcomes
            if record.split_key(column)[0] == self.release and "/" in column
        }
        found: dict[str, dict[str, int]] = {}
        for column in sorted(columns):
            said = [dict(b.outcomes).get(column) for b in fixes]
            found[record.split_key(column)[1]] = {
                "passed": sum(o == record.RUNS for o in said),
                "failed": sum(o is not None and o != record.RUNS for o in said),
                "not run": sum(o is None for o in said),
            }
        return found


def coverage_of(cfg: Config, reg: Registry, release: str | None) -> Coverage:
    """The coverage of a release: an example release (2.14.1), or an imported one (2.14.0,
    judged with the example release that maps to it). Default: the newest example release."""
    releases = cfg.example_releases
    labels = registry_labels(releases, reg.labels)
    if release is None:
        release = max(labels, key=releases.index) if labels else reg.labels[-1]
    elif release not in labels:
        if release not in reg.labels:
            raise GbsiteError(
                f"release {release} is neither a release of the examples "
                f"({', '.join(releases)}) nor an imported one ({', '.join(reg.labels)})"
            )
        release = next((r for r, label in labels.items() if label == release), release)
    record = runs.read(cfg.verified_file)
    pages = pages_.load(cfg, pages_.Lifecycles.of(reg, releases))
    states = coverage(reg, pages, record, release, releases)
    return Coverage(release, states, pages_.repeated_paragraphs(pages.values()))

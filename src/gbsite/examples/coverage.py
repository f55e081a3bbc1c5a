"""Coverage: the state of every id's page, derived from its Additional Information block.

    verified     a gb-repro and a gb-fix that ran as they promise, recorded for the release
    fixed        the gb-repro broke with an older release of the examples and compiles without
                 a break with this one: upgrading removes the break for code like it
    pending      blocks written, some not run with this release yet (CI records their outcomes)
    environment  reachable only with a CUDA device, several processes, another package or a newer
                 Python: the blocks carry `needs=` and are shown, not run
    internal     no user program reaches it; the page cites the torch file and function
    unraised     the registry keeps it, but nothing in torch raises it any more
    none         nothing yet

The last three are declared by a page's status block (status.py); one with `since:` holds from
that release on, the page's examples showing the break with the older ones. `gbsite check`
validates declarations against the page (read_page: blocks that agree); `gbsite check
--examples` against the installed torch (torchsource.py).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass

from gbsite import releases as releases_
from gbsite.docs.files import Doc
from gbsite.errors import GbsiteError, Problem
from gbsite.examples import record as runs
from gbsite.examples.annotations import LIMIT, RECOMPILES, WRONG, Block, blocks_of, scan
from gbsite.examples.record import Record
from gbsite.examples.status import (
    LATER,
    STATUS_INFO,
    STATUS_KIND,
    Declaration,
    read_declaration,
)
from gbsite.registry.model import Registry
from gbsite.releases import in_release, order

STATES = ("verified", "fixed", "pending", "environment", "internal", "unraised", "none")
# What each state means to a reader: a title and a sentence, for the dashboard.
STATE_TEXT = {
    "verified": ("Verified", "A repro and a fix on the page were run and did what they say."),
    "fixed": (
        "Fixed by upgrading",
        "The page's repro breaks with an older torch and compiles without a break with this one.",
    ),
    "pending": (
        "Examples not run yet",
        "The page's examples are new or changed and have not been run with this torch yet: "
        "CI runs them on the next push and records what they did.",
    ),
    "environment": (
        "Needs an environment",
        "Reachable only with a CUDA device, several processes, another package or a newer "
        "Python: the "
        "examples are shown, not run.",
    ),
    "internal": (
        "Internal",
        "No user program reaches it; the page says where torch raises it and what to do.",
    ),
    "unraised": ("No longer raised", "The registry keeps the id, but torch no longer raises it."),
    "none": (
        "No example yet",
        "Pages waiting for a repro and a fix that do what they say with this torch (some have "
        "an example for an older one): pick one and write it.",
    ),
}


@dataclass(frozen=True, slots=True)
class BlockState:
    kind: str
    line: int
    needs: str
    verified: str | None  # the torch build it did what it promises with, for this release
    outcomes: tuple[tuple[str, str], ...] = ()  # (release, outcome) for every release run


@dataclass(frozen=True, slots=True)
class PageCoverage:
    id: str
    status: str
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
                    "outcomes": dict(b.outcomes),
                }
                for b in self.blocks
            ],
        }


@dataclass(frozen=True, slots=True)
class PageExamples:
    """What a docs file says about its examples: its annotated blocks and its status block."""

    id: str
    blocks: tuple[Block, ...]
    declaration: Declaration | None  # the status block without `since:`
    paragraphs: tuple[str, ...] = ()  # its prose outside code, for the content figures
    later: tuple[Declaration, ...] = ()  # status blocks with `since:`

    @property
    def words(self) -> int:
        return sum(len(p.split()) for p in self.paragraphs)

    def declared_for(self, release: str) -> Declaration | None:
        """The status block that holds with `release`: the newest one whose `since:` it has
        reached, unless blocks written for a newer torch (`since=`) come after it, and none
        when that one's `until:` is older than `release`. (Whether the release's registry has
        the id at all is the caller's to know: coverage counts only the ids it has.)"""
        key = order(release)
        start: tuple[int, ...] = ()
        declared = self.declaration
        for since, d in [(b.since, None) for b in self.blocks if b.since] + [
            (str(d.since), d) for d in self.later
        ]:
            if start < order(since) <= key:
                start, declared = order(since), d
        if declared is not None and declared.until and order(declared.until) < key:
            return None
        return declared


def read_page(gb_id: str, doc: Doc, known: Container[str]) -> PageExamples:
    """The page's blocks and status block, validated against each other; problems raise.
    `known`: the registry's ids, for `replaced-by`."""
    problems: list[Problem] = []
    scanned = scan(doc)
    try:
        blocks = blocks_of(gb_id, doc, scanned)
    except GbsiteError as exc:
        problems += exc.problems
        blocks = []
    declarations: list[Declaration] = []
    for fence, line in scanned.fences:
        if STATUS_KIND in fence.info.split():
            try:
                declarations.append(read_declaration(doc, fence.info, fence.content, line, known))
            except GbsiteError as exc:
                problems += exc.problems
    starts: dict[str | None, int] = {}  # since -> line of the status block
    for d in declarations:
        if d.since in starts:
            when = f" from torch {d.since}" if d.since else " (add `since:` for a newer torch)"
            problems.append(
                Problem(
                    f"a second status block{when}: a page has one state for a release",
                    doc.path,
                    d.line,
                )
            )
        starts.setdefault(d.since, d.line)
    problems += [
        Problem(
            f"a status block and examples both from torch {b.since}: which holds there?",
            b.path,
            b.line,
        )
        for b in blocks
        if b.since and b.since in starts
    ]
    if not any(LIMIT in paragraph for paragraph in scanned.paragraphs):
        problems += [
            Problem(
                f"a fix with recompiles={RECOMPILES} is on a page whose prose does not name "
                f"torch._dynamo.config.{LIMIT} (default 8): say when the recompiles stop",
                b.path,
                b.line,
            )
            for b in blocks
            if b.recompiles == RECOMPILES
        ]
    declared = next((d for d in declarations if d.since is None), None)
    later = tuple(sorted((d for d in declarations if d.since), key=lambda d: order(str(d.since))))
    # A gb-wrong warns of a wrong value near the page's subject: it says nothing of the break,
    # so the page's state neither counts it nor needs it.
    examples = [b for b in blocks if b.kind != WRONG]
    shown = [b for b in examples if not b.runnable]
    if declared is None:
        problems += [
            Problem(
                f"a block with needs={b.needs} is not run: declare the page's state with a "
                f"`{STATUS_INFO}` block (status: environment)",
                b.path,
                b.line,
            )
            for b in shown
        ]
    elif declared.status == "environment":
        if not any(b.kind == "gb-repro" for b in shown):
            problems.append(
                Problem(
                    "an environment page shows its repro: a `python gb-repro "
                    f"needs={declared.needs}` block",
                    doc.path,
                    declared.line,
                )
            )
        problems += [
            Problem(
                f"needs={b.needs} differs from the status block's `needs: {declared.needs}`",
                b.path,
                b.line,
            )
            for b in shown
            if b.needs != declared.needs
        ]
    else:
        problems += [
            Problem(
                f"a {declared.status} page has no {b.kind} block: a page whose break a "
                "program reaches is verified (remove the status block) or environment; "
                "for a newer torch that reaches it, say since=RELEASE",
                b.path,
                b.line,
            )
            for b in examples
            if not b.since
        ]
    if problems:
        raise GbsiteError(problems)
    return PageExamples(gb_id, tuple(blocks), declared, tuple(scanned.paragraphs), later)


def since_problems(
    pages: Iterable[PageExamples], homes: Mapping[str, str], releases: Sequence[str]
) -> list[Problem]:
    """`since` on a block or a status block names a release of the examples newer than the
    page's home (`homes`, by id: the oldest release of the examples with the id)."""
    problems = []
    for page in pages:
        home = homes.get(page.id, releases[0] if releases else "")
        found = [(b.since, b.path, b.line) for b in page.blocks if b.since]
        found += [(str(d.since), d.path, d.line) for d in page.later]
        for since, path, line in found:
            if since not in releases:
                problems.append(
                    Problem(
                        f"since {since}: not a release of the examples "
                        f"({', '.join(releases)} in gbsite.toml)",
                        path,
                        line,
                    )
                )
            elif order(since) <= order(home):
                problems.append(
                    Problem(
                        f"since {since}: {page.id}'s examples are for torch "
                        f"{home} already; name a newer release, or remove it",
                        path,
                        line,
                    )
                )
    return problems


def span_problems(
    pages: Iterable[PageExamples], present: Mapping[str, Sequence[str]], releases: Sequence[str]
) -> list[Problem]:
    """A status block's `since:` and `until:` claim releases: each must be a release of the
    examples whose registry has the id (`present`, by id: those releases, oldest first), the
    block must hold for at least one, and `until:` must end before the next state starts (a
    status block or examples with a later `since`)."""
    problems = []
    for page in pages:
        has = list(present.get(page.id, ()))
        home = has[0] if has else None
        declared = ([page.declaration] if page.declaration else []) + list(page.later)
        starts = [(str(d.since), d.line, "status block") for d in page.later]
        starts += [(b.since, b.line, "examples") for b in page.blocks if b.since]
        for d in declared:
            for name, value in (("since", d.since), ("until", d.until)):
                if value is None:
                    continue
                if value not in releases:
                    if name == "until":  # since_problems says it for `since`
                        problems.append(
                            Problem(
                                f"until {value}: not a release of the examples "
                                f"({', '.join(releases)} in gbsite.toml)",
                                d.path,
                                d.line,
                            )
                        )
                    continue
                if value not in has:
                    problems.append(
                        Problem(
                            f"{name} {value}: torch {value}'s registry has no {page.id} "
                            f"({_lifecycle(has)}): a status block holds only where the id is",
                            d.path,
                            d.line,
                        )
                    )
            if d.until is None or d.until not in releases:
                continue
            begin = d.since or home
            if begin is not None and order(d.until) < order(begin) and d.since is None:
                problems.append(
                    Problem(
                        f"until {d.until}: {page.id}'s releases start with torch {begin}, so "
                        "this status block would hold for none of them",
                        d.path,
                        d.line,
                    )
                )
            after = order(d.since) if d.since else ()
            for since, line, what in starts:
                if after < order(since) <= order(d.until):
                    problems.append(
                        Problem(
                            f"until {d.until}: the {what} from torch {since} (line {line}) "
                            f"hold there already; end with the release before {since}",
                            d.path,
                            d.line,
                        )
                    )
    return problems


def record_problems(page: PageExamples, record: Record, present: Sequence[str]) -> list[Problem]:
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
            if b.kind == "gb-repro" and b.runnable and record.outcome(b.key, release) == runs.BREAKS
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


def _lifecycle(has: Sequence[str]) -> str:
    if not has:
        return "no release of the examples has it"
    if len(has) == 1:
        return f"only torch {has[0]} has it"
    return f"torch {has[0]} to {has[-1]} have it"


def present_in(registry: Registry, releases: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each id's releases of the examples whose registry has it, oldest first."""
    labels = registry.labels
    mapped = releases_.registry_labels(releases, labels)
    return {
        gb_id: tuple(r for r, label in mapped.items() if in_release(entry, labels, label))
        for gb_id, entry in registry.entries.items()
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
        return PageCoverage(gb_id, "none")
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
    elif {s.kind for s in states if s.verified} == {"gb-repro", "gb-fix"}:
        status = "verified"
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
        status = "fixed" if fixed_here else "pending" if pending else "none"
    return PageCoverage(gb_id, status, states, declared, page.words)


def fixed_in(
    page: PageExamples, record: Record, releases: tuple[str, ...]
) -> tuple[str, tuple[str, ...]] | None:
    """The example release from which the page's repro no longer breaks, having broken with
    an older one (the release that removes the break for code like the example), and the
    releases it broke with."""
    for block in page.blocks:
        if block.kind != "gb-repro" or block.since or not block.runnable:
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


def repeated_paragraphs(pages: Iterable[PageExamples], most: int = 2) -> dict[str, list[str]]:
    """Paragraphs (of more than a few words) found on more than `most` pages: boilerplate,
    which a page should replace with what is true of its own break."""
    where: dict[str, list[str]] = {}
    for page in pages:
        for text in set(page.paragraphs):
            if len(text.split()) > 8:
                where.setdefault(text, []).append(page.id)
    return {text: sorted(ids) for text, ids in where.items() if len(ids) > most}


def read_pages(docs: dict[str, Doc], known: Container[str]) -> dict[str, PageExamples]:
    """Every page with a block; all problems of all pages raise together. `known`: the
    registry's ids (its entries)."""
    pages: dict[str, PageExamples] = {}
    problems: list[Problem] = []
    for gb_id, doc in docs.items():
        if not doc.has_content:
            continue
        try:
            pages[gb_id] = read_page(gb_id, doc, known)
        except GbsiteError as exc:
            problems += exc.problems
    if problems:
        raise GbsiteError(problems)
    return pages


def coverage(
    registry: Registry,
    pages: dict[str, PageExamples],
    record: Record,
    release: str,
    releases: tuple[str, ...],
) -> list[PageCoverage]:
    """The state of every id of an example release, by id."""
    labels = registry.labels
    label = releases_.registry_labels([release], labels)[release]
    return [
        page_coverage(pages.get(gb_id), gb_id, record, release, releases)
        for gb_id, entry in registry.entries.items()
        if in_release(entry, labels, label)
    ]


def counts(states: Iterable[PageCoverage]) -> dict[str, int]:
    out = dict.fromkeys(STATES, 0)
    for s in states:
        out[s.status] += 1
    return out

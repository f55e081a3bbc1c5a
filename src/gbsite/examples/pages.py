"""A docs page's examples: its annotated blocks and status blocks, read and checked against
each other and against the releases of the examples that have its id. The one reader of them:
`gbsite check`, `check --examples`, coverage, `show` and the build all read pages here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gbsite.docs import files as docs
from gbsite.docs.files import Doc
from gbsite.errors import GbsiteError, Problem
from gbsite.examples.annotations import LIMIT, RECOMPILES, REPRO, WRONG, Block, blocks_of, scan
from gbsite.examples.status import STATUS_INFO, STATUS_KIND, Declaration, read_declaration
from gbsite.examples.vocabulary import State
from gbsite.releases import in_release, order, registry_labels

if TYPE_CHECKING:
    from gbsite.config import Config
    from gbsite.registry.model import Registry


@dataclass(frozen=True, slots=True)
class Lifecycles:
    """What a page is read against: the releases of the examples, oldest first, and for each id
    of the registry those of them whose registry has it (oldest first; none: in no release of
    the examples). An id missing here is unknown (`replaced-by:` must name a known one)."""

    releases: tuple[str, ...]
    present: Mapping[str, tuple[str, ...]]

    @classmethod
    def of(
        cls, registry: Registry, releases: Sequence[str], known: Iterable[str] = ()
    ) -> Lifecycles:
        """From the registry; `known`: more ids, when `registry` holds only some entries."""
        labels = registry.labels
        mapped = registry_labels(releases, labels)
        present: dict[str, tuple[str, ...]] = dict.fromkeys(known, ())
        for gb_id, entry in registry.entries.items():
            present[gb_id] = tuple(
                r for r, label in mapped.items() if in_release(entry, labels, label)
            )
        return cls(tuple(releases), present)

    def home(self, gb_id: str) -> str:
        """The oldest release of the examples whose registry has the id: where its blocks must
        do what they promise. (With a later torch a repro may stop breaking: that is recorded,
        not a failure.)"""
        has = self.present.get(gb_id)
        return has[0] if has else self.releases[0] if self.releases else ""


@dataclass(frozen=True, slots=True)
class PageExamples:
    """What a docs file says about its examples: its annotated blocks and its status block."""

    id: str
    blocks: tuple[Block, ...]
    declaration: Declaration | None  # the status block without `since:`
    paragraphs: tuple[str, ...] = ()  # its prose outside code, for the content figures
    later: tuple[Declaration, ...] = ()  # status blocks with `since:`
    # Counted once: the coverage of each release asks (a split of every paragraph, 8 times a
    # page, was a third of the derive phase).
    words: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", sum(len(p.split()) for p in self.paragraphs))

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


def read_page(gb_id: str, doc: Doc, lifecycles: Lifecycles) -> PageExamples:
    """The page's blocks and status blocks, validated against each other and against the
    releases that have the id; problems raise."""
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
                declarations.append(
                    read_declaration(doc, fence.info, fence.content, line, lifecycles.present)
                )
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
    elif declared.status == State.ENVIRONMENT:
        if not any(b.kind == REPRO for b in shown):
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
    page = PageExamples(gb_id, tuple(blocks), declared, tuple(scanned.paragraphs), later)
    problems = _since_problems(page, lifecycles) + _span_problems(page, lifecycles)
    if problems:
        raise GbsiteError(problems)
    return page


def _since_problems(page: PageExamples, lifecycles: Lifecycles) -> list[Problem]:
    """`since` on a block or a status block names a release of the examples newer than the
    page's home."""
    problems = []
    releases, home = lifecycles.releases, lifecycles.home(page.id)
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


def _span_problems(page: PageExamples, lifecycles: Lifecycles) -> list[Problem]:
    """A status block's `since:` and `until:` claim releases: each must be a release of the
    examples whose registry has the id, the block must hold for at least one, and `until:` must
    end before the next state starts (a status block or examples with a later `since`)."""
    problems = []
    releases = lifecycles.releases
    has = list(lifecycles.present.get(page.id, ()))
    home = has[0] if has else None
    declared = ([page.declaration] if page.declaration else []) + list(page.later)
    starts = [(str(d.since), d.line, "status block") for d in page.later]
    starts += [(b.since, b.line, "examples") for b in page.blocks if b.since]
    for d in declared:
        for name, value in (("since", d.since), ("until", d.until)):
            if value is None:
                continue
            if value not in releases:
                if name == "until":  # _since_problems says it for `since`
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


def _lifecycle(has: Sequence[str]) -> str:
    if not has:
        return "no release of the examples has it"
    if len(has) == 1:
        return f"only torch {has[0]} has it"
    return f"torch {has[0]} to {has[-1]} have it"


def read_pages(found: Mapping[str, Doc], lifecycles: Lifecycles) -> dict[str, PageExamples]:
    """Every page with a block; all problems of all pages raise together."""
    pages: dict[str, PageExamples] = {}
    problems: list[Problem] = []
    for gb_id, doc in found.items():
        if not doc.has_content:
            continue
        try:
            pages[gb_id] = read_page(gb_id, doc, lifecycles)
        except GbsiteError as exc:
            problems += exc.problems
    if problems:
        raise GbsiteError(problems)
    return pages


def problems(found: Mapping[str, Doc], lifecycles: Lifecycles) -> list[Problem]:
    """What `gbsite check` says of the pages: every problem read_pages would raise."""
    try:
        read_pages(found, lifecycles)
    except GbsiteError as exc:
        return exc.problems
    return []


def load(cfg: Config, lifecycles: Lifecycles) -> dict[str, PageExamples]:
    """Every docs file of an id of `lifecycles` (the registry's), read from disk and read
    against them; any problem in any file raises."""
    files, _ = docs.scan(cfg.docs_dir)
    found: dict[str, Doc] = {}
    problems: list[Problem] = []
    for gb_id, path in files.items():
        if gb_id in lifecycles.present:
            try:
                found[gb_id] = docs.read(path, outside=False)
            except GbsiteError as exc:
                problems += exc.problems
    if problems:
        raise GbsiteError(problems)
    return read_pages(found, lifecycles)


def repeated_paragraphs(pages: Iterable[PageExamples], most: int = 2) -> dict[str, list[str]]:
    """Paragraphs (of more than a few words) found on more than `most` pages: boilerplate,
    which a page should replace with what is true of its own break."""
    where: dict[str, list[str]] = {}
    for page in pages:
        for text in set(page.paragraphs):
            if len(text.split()) > 8:
                where.setdefault(text, []).append(page.id)
    return {text: sorted(ids) for text, ids in where.items() if len(ids) > most}

"""What the site shows, as plain data: each entry page's model, and the site model that holds
every page's, computed before any template runs (the dashboard's: dashboard.py)."""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gbsite import releases as release_order
from gbsite import urls
from gbsite.config import Config
from gbsite.docs.files import Doc
from gbsite.examples import record as runs_record
from gbsite.examples.pages import PageExamples
from gbsite.examples.record import Record
from gbsite.examples.states import PageCoverage, fixed_in, page_coverage
from gbsite.examples.status import Declaration
from gbsite.examples.vocabulary import State
from gbsite.registry.model import Category, Entry, Registry
from gbsite.registry.views import EntryView

if TYPE_CHECKING:
    from gbsite.search.adjacent import AdjacentMessage
    from gbsite.search.legacy import LegacyMessage
    from gbsite.site.inputs import Examples, Inputs

from gbsite.site.dashboard import (
    STATE_TEXT,
    Dashboard,
    ReleaseCoverage,
    ReleasePage,
    coverage_summary,
    dashboard,
    release_pages,
)


def plain_title(text: str) -> str:
    """Registry text for <title> and other plain-text places: code spans lose their backticks."""
    return re.sub(r"(`+)(.+?)\1", r"\2", text).strip()


@dataclass(frozen=True, slots=True)
class SiteInfo:
    """Facts every page shows (header, footer)."""

    title: str
    repository: str  # the GitHub repository's URL
    newest: str  # newest imported release
    sources: tuple[str, ...]
    built: str | None  # date from SOURCE_DATE_EPOCH, or None: builds are reproducible


@dataclass(frozen=True, slots=True)
class Badge:
    """The page's state, said once near its top in words: what its examples are worth."""

    state: str  # a coverage state: the CSS class
    label: str
    detail: str
    link: str | None = None  # where to read on, or to add an example
    link_text: str = ""


@dataclass(frozen=True, slots=True)
class StatusNote:
    """A status block in words: why no example runs, and where torch raises the break."""

    span: str  # "" for the page's releases, else "from torch 2.14.1 on" ...
    title: str  # what the state is called ("Internal")
    reason: str  # registry-style text: backticks are code
    source: str | None  # torch/_dynamo/....py
    function: str | None
    source_url: str | None  # that file at the release's tag on GitHub
    replaced_by: str | None = None


@dataclass(frozen=True, slots=True)
class RaiseSite:
    """A place in torch's source that raises the id, linked at the release's tag."""

    source: str  # torch/_dynamo/...py
    line: int
    function: str
    url: str

    @property
    def file(self) -> str:
        return self.source.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class RaisedIn:
    """Where the newest resolved release raises the id (registry/resolved/LABEL.yaml)."""

    release: str  # the torch version read, without its build (2.15.0)
    sites: tuple[RaiseSite, ...]


def raised_in(registry: Registry) -> dict[str, RaisedIn]:
    """Where the newest resolved release that knows an id raises it, for every such id: read
    once per build, not once per page."""
    found: dict[str, RaisedIn] = {}
    for resolution in reversed(registry.resolutions.values()):
        release = release_order.release_of(resolution.torch)
        places: dict[str, list[RaiseSite]] = {}
        for r in resolution.raised:
            if r.id not in found:
                url = urls.torch_source(release, r.source, r.line)
                places.setdefault(r.id, []).append(RaiseSite(r.source, r.line, r.function, url))
        found.update((gb_id, RaisedIn(release, tuple(s))) for gb_id, s in places.items())
    return found


@dataclass(frozen=True, slots=True)
class WrongResult:
    """A silent wrong result the page documents (a gb-wrong block), for the warning at its top."""

    releases: tuple[str, ...]  # those torch computes the wrong value with


@dataclass(frozen=True, slots=True)
class ReleaseState:
    """The page's state with one release of the examples, for the table on its page."""

    release: str
    state: str | None  # a coverage state (the CSS class); None: that registry lacks the id
    title: str  # what the state is called ("Internal"), or why there is none
    why: str  # where it comes from: the status block's span, the examples, or ""


@dataclass(frozen=True, slots=True)
class EntryPage:
    view: EntryView
    coverage: PageCoverage
    in_release: bool  # whether the newest release the examples run against has this id
    badge: Badge
    title: str
    info_block: str | None  # the contributor's Additional Information (Markdown), if written
    edit_url: str
    source_url: str
    prev: EntryView | None
    next: EntryView | None
    last_release: str  # newest release that has this id
    fixed_since: str | None  # the release of the examples from which its repro compiles
    states: tuple[str | None, ...]  # its state for each example release; None: not in it
    by_release: tuple[ReleaseState, ...] = ()  # the same, as the page shows it
    status_notes: tuple[StatusNote, ...] = ()  # the status block that holds now, in words
    status_other: tuple[StatusNote, ...] = ()  # those for other releases
    wrong: WrongResult | None = None  # a silent wrong result it warns of
    raised: RaisedIn | None = None  # where torch's source raises it
    category_note: bool = True  # whether the categories' summaries fit its state

    @property
    def path(self) -> str:
        return urls.entry(self.view.id)

    @property
    def json_path(self) -> str:
        return urls.entry_json(self.view.id)


@dataclass(frozen=True, slots=True)
class IndexRow:
    """A row of the index: an entry and its page's state, as the page says it."""

    view: EntryView
    state: str  # the page's state (badge): the filter's value and the CSS class
    title: str  # its words ("Verified", "Fixed in torch 2.15.0")
    by_release: str  # "" when every release of the examples agrees, else each one's state

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What the row shows beyond the registry: for the page table's key."""
        return self.view.id, self.state, self.title, self.by_release


def index_row(page: EntryPage, releases: Sequence[str]) -> IndexRow:
    from itertools import groupby

    present = [(r, s) for r, s in zip(releases, page.states, strict=True) if s is not None]
    differs = ""
    if len({s for _, s in present}) > 1:
        # Releases in a row with the same state, together: "Verified with 2.13.0; ..."
        differs = "; ".join(
            f"{STATE_TEXT[State(s)][0]} with {_and([r for r, _ in run])}"
            for s, run in groupby(present, key=lambda p: p[1])
        )
    return IndexRow(page.view, page.badge.state, page.badge.label, differs)


@dataclass(frozen=True, slots=True)
class NotFound:
    """What the 404 page says: how new the registry is, and where the site lives."""

    registry_note: str
    prefix: str  # path of the configured site URL: the root when the address says nothing
    upstream_registry: str = (
        "https://github.com/pytorch/pytorch/blob/main/torch/_dynamo/graph_break_registry.json"
    )


@dataclass
class SiteModel:
    registry: Registry
    info: SiteInfo
    views: list[EntryView]
    entries: list[EntryPage]
    releases: list[ReleasePage]
    dashboard: Dashboard
    categories: list[Category]
    not_found: NotFound
    has_info: dict[str, bool] = field(default_factory=dict)
    legacy: tuple[LegacyMessage, ...] = ()  # messages of torch before the registry
    adjacent: tuple[AdjacentMessage, ...] = ()  # other messages that lead to a page
    index: tuple[IndexRow, ...] = ()  # the index's rows, in id order
    states: tuple[tuple[str, str], ...] = ()  # (state, title) of every state, for filters
    # What the release pages and the entry pages were made from, for the next model (serve).
    fixes: dict[str, list[EntryView]] = field(default_factory=dict)
    raised: dict[str, RaisedIn] = field(default_factory=dict)


def built_date() -> str | None:
    """Only SOURCE_DATE_EPOCH puts a date on the site, so that builds are reproducible."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch or not epoch.isdigit():
        return None
    return datetime.datetime.fromtimestamp(int(epoch), tz=datetime.UTC).strftime("%Y-%m-%d")


def _and(items: Sequence[str]) -> str:
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else "".join(items)


def badge(
    cfg: Config,
    covered: PageCoverage,
    in_release: bool,
    release: str,
    verified_in: Sequence[str] = (),
    fixed: tuple[str, Sequence[str]] | None = None,
    page: PageExamples | None = None,
) -> Badge:
    """`verified_in`: the releases whose torch the page's repro and fix did what they promise
    with; `fixed`: the release from which its repro no longer breaks, and those it broke with
    (fixed_in); `page`: its blocks, to name those shown and not run."""
    d = covered.declaration
    # Examples that need a newer Python ran with it: the reader's Python decides the break too.
    pythons = sorted({b.python for b in page.blocks if b.python}) if page is not None else []
    on = f" on Python {_and(pythons)} (older Pythons do not reach this break)" if pythons else ""
    missing = sorted({b.without for b in page.blocks if b.without}) if page is not None else []
    on += f" on an install without {_and(missing)}" if missing else ""
    if covered.status == State.FIXED and fixed is not None:
        since, broke_in = fixed
        return Badge(
            "fixed",
            f"Fixed in torch {since}",
            f"upgrading to torch {since} removes this break for code like the example below, "
            f"which breaks with torch {_and(broke_in)}{on}",
        )
    if covered.status == State.VERIFIED or (covered.status == State.NONE and verified_in):
        # Verified with an older torch but not the newest: each example's line says why.
        return Badge(
            "verified",
            "Verified",
            f"the example below breaks and the fix runs without a break, with torch "
            f"{_and(verified_in)}{on}",
        )
    if covered.status == State.PENDING and verified_in:
        # Verified with an older torch, not run with this one yet: both are true.
        return Badge(
            "verified",
            "Verified",
            f"the example below breaks and the fix runs without a break, with torch "
            f"{_and(verified_in)}{on}; not run with torch {release} yet",
        )
    if covered.status == State.PENDING:
        return Badge(
            "pending",
            "Examples not run yet",
            f"the examples below are new or changed and have not been run with torch {release} "
            "yet: CI runs them and records what they did",
        )
    if d is not None and d.status == State.ENVIRONMENT and d.needs:
        from gbsite.examples.annotations import FIX, REPRO, needs_label

        need = needs_label(d.needs)
        blocks = page.blocks if page is not None else ()
        shown = {b.kind for b in blocks if b.needs}
        ran = [b for b in blocks if not b.needs and b.kind in (REPRO, FIX)]
        if shown == {REPRO} and ran:
            what = "the example that breaks is shown, not run"
        elif shown == {FIX} and ran:
            what = "the fix is shown, not run"
        elif shown:
            what = "the examples below are shown, not run"
        else:
            what = "no example below was run"
        return Badge("environment", f"Needs {need}", f"{what}: it needs {need}")
    # A state that holds from a newer torch on: the page's examples are for the older ones.
    later = d is not None and d.since is not None and verified_in
    older = f"; the examples below are for torch {_and(verified_in)}" if later else ""
    if d is not None and d.status == State.INTERNAL:
        since = f"from torch {d.since} on, " if d.since else ""
        return Badge(
            "internal",
            "Internal",
            f"{since}no user program is known to reach it: seeing it means a bug in PyTorch{older}",
        )
    if d is not None and d.status == State.UNRAISED:
        replaced = f"; {d.replaced_by} took its place" if d.replaced_by else ""
        torch = f"torch {d.since} and later do" if d.since else f"torch {release} does"
        return Badge(
            "unraised",
            "No longer raised",
            f"{torch} not raise it{replaced}{older}",
            urls.Links(urls.entry(covered.id)).near(urls.entry(d.replaced_by))
            if d.replaced_by
            else None,
            f"Go to {d.replaced_by}" if d.replaced_by else "",
        )
    where = "" if in_release else f" (the examples run against torch {release}, which lacks it)"
    return Badge(
        "none",
        "No example yet",
        f"nobody has written a checked example and fix for this break{where}",
        urls.github_source(cfg, urls.WRITING_GUIDE),
        "Add one",
    )


def status_notes(
    page: PageExamples | None, release: str
) -> tuple[tuple[StatusNote, ...], tuple[StatusNote, ...]]:
    """The page's status blocks in words: the one that holds with `release` (the newest release
    of the examples with the id), and the others. Sources link to the file at its tag."""
    if page is None:
        return (), ()
    blocks = [d for d in (page.declaration, *page.later) if d is not None]
    held = page.declared_for(release)

    def note(d: Declaration) -> StatusNote:
        url = urls.torch_source(release, d.source) if d.source else None
        title = STATE_TEXT[d.status][0]
        return StatusNote(d.span, title, d.reason, d.source, d.function, url, d.replaced_by)

    return (
        tuple(note(d) for d in blocks if d is held),
        tuple(note(d) for d in blocks if d is not held),
    )


def wrong_result(
    page: PageExamples | None, record: Record, releases: Sequence[str]
) -> WrongResult | None:
    """The releases a gb-wrong block of the page was recorded computing the wrong value with."""
    from gbsite.examples.annotations import WRONG

    if page is None:
        return None
    found = [
        r
        for r in releases
        if any(
            b.kind == WRONG
            and b.key in record.rows
            and record.rows[b.key].outcomes.get(r) == runs_record.passing(WRONG)
            for b in page.blocks
        )
    ]
    return WrongResult(tuple(found)) if found else None


def release_state(release: str, covered: PageCoverage, present: bool) -> ReleaseState:
    """One row of a page's states by release: a state declared by a status block says which
    block (its releases as written); one from the examples, that it comes from them."""
    if not present:
        return ReleaseState(release, None, "Not in this release", "its registry has no such id")
    d = covered.declaration
    title = STATE_TEXT[covered.status][0]
    if d is not None:
        why = f"status block, {d.span}" if d.span else "status block"
    elif covered.status in (State.VERIFIED, State.FIXED, State.PENDING):
        why = "the examples' runs"
    else:
        why = ""
    return ReleaseState(release, covered.status, title, why)


class EntryPages:
    """Builds each entry's page model; the facts shared by all of them are worked out once."""

    def __init__(
        self,
        cfg: Config,
        registry: Registry,
        examples: Examples,
        raised: dict[str, RaisedIn] | None = None,
    ) -> None:
        """`raised`: raised_in(registry), when a model of the same registry has it."""
        self.cfg = cfg
        self.registry = registry
        self.examples = examples
        self.labels = registry.labels
        # Each example release's registry label (2.14.1 -> 2.14.0).
        self.release_labels = release_order.registry_labels(examples.releases, self.labels)
        self.docs_dir = cfg.docs_dir.relative_to(cfg.root).as_posix()
        self.raised = raised if raised is not None else raised_in(registry)

    def _in(self, entry: Entry, release: str) -> bool:
        label = self.release_labels.get(release)
        return label is not None and release_order.in_release(entry, self.labels, label)

    def page(
        self, view: EntryView, prev: EntryView | None, next: EntryView | None, doc: Doc | None
    ) -> EntryPage:
        ex, entry, labels = self.examples, view.entry, self.labels
        page = ex.pages.get(view.id)
        by_release = {
            r: page_coverage(page, view.id, ex.record, r, ex.releases) for r in ex.releases
        }
        # The state shown is for the newest example release that has the id.
        present = [r for r in ex.releases if self._in(entry, r)]
        release = present[-1] if present else ex.release
        if release in by_release:  # computed above: each is a scan of the record
            covered = by_release[release]
        else:
            covered = page_coverage(page, view.id, ex.record, release, ex.releases)
        verified_in = [r for r in ex.releases if by_release[r].status == State.VERIFIED]
        fixed = fixed_in(page, ex.record, ex.releases) if page else None
        doc_path = f"{self.docs_dir}/{view.slug}.md"
        notes_now, notes_other = status_notes(page, release)
        return EntryPage(
            view=view,
            coverage=covered,
            in_release=self._in(entry, ex.release),
            badge=badge(
                self.cfg, covered, self._in(entry, release), release, verified_in, fixed, page
            ),
            title=f"{view.id}: {plain_title(view.current.text.gb_type)}",
            info_block=doc.block if doc is not None and doc.has_content else None,
            edit_url=urls.github_edit(self.cfg, doc_path),
            source_url=urls.github_source(self.cfg, doc_path),
            prev=prev,
            next=next,
            last_release=labels[labels.index(entry.removed) - 1] if entry.removed else labels[-1],
            fixed_since=fixed[0] if fixed is not None else None,
            states=tuple(by_release[r].status if self._in(entry, r) else None for r in ex.releases),
            by_release=tuple(
                release_state(r, by_release[r], self._in(entry, r)) for r in ex.releases
            ),
            status_notes=notes_now,
            status_other=notes_other,
            wrong=wrong_result(page, ex.record, ex.releases),
            category_note=covered.status not in (State.INTERNAL, State.UNRAISED),
            raised=self.raised.get(view.id),
        )


_SYNC_LABEL = re.compile(r"^(?P<branch>[^@]+)@(?P<date>\d{4}-\d\d-\d\d)")


def registry_note(newest: str) -> str:
    """When the registry was last synced, from the newest label: `main@2026-11-21` (the daily
    sync) has a date; a release label names the release."""
    if match := _SYNC_LABEL.match(newest):
        return (
            f"Its registry was last synced on {match['date']}, "
            f"from PyTorch's {match['branch']} branch."
        )
    return f"Its registry was last synced from PyTorch {newest}."


def not_found(cfg: Config, registry: Registry) -> NotFound:
    from urllib.parse import urlparse

    prefix = urlparse(cfg.site_url).path or "/"
    return NotFound(registry_note(registry.labels[-1]), prefix)


def model(cfg: Config, inputs: Inputs, previous: SiteModel | None = None) -> SiteModel:
    """`previous`: the model of the last build in this process (serve, cache.py); when it was
    made from the same registry, record and settings, what depends on those alone is reused,
    and an entry page wherever its block is unchanged, with its row of the index; so are the
    dashboard and the release pages when what they are made of is equal (serve's rebuild after
    a save: ~12 ms of ~17 less)."""
    registry, views, docs, examples = inputs.registry, inputs.views, inputs.docs, inputs.examples
    # Within a generation (cache.py) the record and settings are the same: the registry tells.
    kept = previous if previous is not None and previous.registry is registry else None
    known: dict[str, tuple[EntryPage, IndexRow]] = {}  # each page with its row of the index
    if kept is not None:
        known = {p.view.id: (p, row) for p, row in zip(kept.entries, kept.index, strict=True)}
    make = EntryPages(cfg, registry, examples, kept.raised if kept is not None else None)
    entries, index = [], []
    for i, view in enumerate(views):
        doc = docs.get(view.id)
        reused = known.get(view.id)
        block = doc.block if doc is not None and doc.has_content else None
        if reused is not None and reused[0].info_block == block:
            entries.append(reused[0])
            index.append(reused[1])
            continue
        prev = views[i - 1] if i else None
        next = views[i + 1] if i + 1 < len(views) else None
        page = make.page(view, prev, next, doc)
        entries.append(page)
        index.append(index_row(page, examples.releases))
    has_info = {gb_id: doc.has_content for gb_id, doc in docs.items()}
    info = SiteInfo(
        cfg.title,
        urls.github_repository(cfg),
        registry.labels[-1],
        tuple(registry.labels),
        built_date(),
    )
    newest = len(examples.releases) - 1
    covered = coverage_summary(
        examples.release, views, {p.view.id: p.states[newest] for p in entries}
    )
    by_release = []
    for n, release in enumerate(examples.releases):
        states = [p.states[n] for p in entries if p.states[n] is not None]
        by_release.append(
            ReleaseCoverage(release, len(states), tuple(states.count(s) for s in State))
        )
    # Each imported release lists the pages whose break upgrading to it fixes: the example
    # release a repro stops breaking with, as the registry's label (2.14.1 -> 2.14.0).
    labels = release_order.registry_labels(examples.releases, registry.labels)
    fixes: dict[str, list[EntryView]] = {}
    for p in entries:
        if p.fixed_since is not None and p.fixed_since in labels:
            fixes.setdefault(labels[p.fixed_since], []).append(p.view)
    made_of = (has_info, covered, tuple(by_release))  # all the dashboard is made of, but views
    releases, board = None, None
    if kept is not None and kept.views is views:
        releases = kept.releases if kept.fixes == fixes else None
        was = (kept.has_info, kept.dashboard.coverage, kept.dashboard.by_release)
        board = kept.dashboard if was == made_of else None
    if releases is None:
        releases = release_pages(registry, views, fixes)
    if board is None:
        board = dashboard(registry, views, *made_of)
    return SiteModel(
        registry=registry,
        info=info,
        views=views,
        entries=entries,
        releases=releases,
        dashboard=board,
        categories=registry.categories,
        not_found=not_found(cfg, registry),
        has_info=has_info,
        legacy=inputs.legacy,
        adjacent=inputs.adjacent,
        index=tuple(index),
        states=tuple((str(s), STATE_TEXT[s][0]) for s in State),
        fixes=fixes,
        raised=make.raised,
    )

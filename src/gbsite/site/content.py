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
from gbsite.examples.states import PageCoverage, fixed_in, page_coverage
from gbsite.examples.vocabulary import State
from gbsite.registry.model import Category, Entry, Registry
from gbsite.registry.views import EntryView

if TYPE_CHECKING:
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
    """The line near the top of an entry page that says what its examples are worth."""

    state: str  # a coverage state: the CSS class
    label: str
    detail: str
    link: str | None = None  # where to read on, or to add an example
    link_text: str = ""


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
    states: tuple[str | None, ...]  # its state for each example release; None: not in it
    by_release: tuple[ReleaseState, ...] = ()  # the same, as the page shows it

    @property
    def path(self) -> str:
        return urls.entry(self.view.id)

    @property
    def json_path(self) -> str:
        return urls.entry_json(self.view.id)


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
) -> Badge:
    """`verified_in`: the releases whose torch the page's repro and fix did what they promise
    with; `fixed`: the release from which its repro no longer breaks, and those it broke with
    (fixed_in)."""
    d = covered.declaration
    if covered.status == State.FIXED and fixed is not None:
        since, broke_in = fixed
        return Badge(
            "fixed",
            f"Fixed in torch {since}",
            f"upgrading to torch {since} removes this break for code like the example: its "
            f"repro breaks with torch {_and(broke_in)} and compiles without a break from "
            f"{since} on",
            "#additional-information",
            "See the example",
        )
    if covered.status == State.VERIFIED or (covered.status == State.NONE and verified_in):
        # Verified with an older torch but not the newest: each example's line says why.
        torch = _and(verified_in)
        return Badge(
            "verified",
            "Verified example",
            f"the repro and the fix below were run with torch {torch}",
            "#additional-information",
            "See the example",
        )
    if covered.status == State.PENDING and verified_in:
        # Verified with an older torch, not run with this one yet: both are true.
        return Badge(
            "verified",
            "Verified example",
            f"the repro and the fix below were run with torch {_and(verified_in)}; CI runs "
            f"them with torch {release} on the next push",
            "#additional-information",
            "See the example",
        )
    if covered.status == State.PENDING:
        return Badge(
            "pending",
            "Examples not run yet",
            f"the examples below are new or changed and have not been run with torch {release} "
            "yet: CI runs them on the next push and records what they did",
            "#additional-information",
            "See the examples",
        )
    if d is not None and d.status == State.ENVIRONMENT and d.needs:
        from gbsite.examples.annotations import needs_label

        return Badge(
            "environment",
            f"Needs {needs_label(d.needs)}",
            "the examples below are shown as written, not run by the site's checker",
            "#additional-information",
            "See the example",
        )
    # A state that holds from a newer torch on: the page's examples are for the older ones.
    later = d is not None and d.since is not None and verified_in
    older = f"; the examples below are for torch {_and(verified_in)}" if later else ""
    if d is not None and d.status == State.INTERNAL:
        since = f"from torch {d.since} on, " if d.since else ""
        return Badge(
            "internal",
            "Internal",
            f"{since}no user program is known to reach it; torch raises it in {d.source} "
            f"({d.function}){older}",
            "#additional-information",
            "What to do if you see it",
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
            else "#additional-information",
            f"Go to {d.replaced_by}" if d.replaced_by else "Read more",
        )
    where = "" if in_release else f" (the examples run against torch {release}, which lacks it)"
    return Badge(
        "none",
        "No example yet",
        f"nobody has written a repro and a fix for this page{where}",
        urls.github_source(cfg, urls.WRITING_GUIDE),
        "Add one",
    )


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

    def __init__(self, cfg: Config, registry: Registry, examples: Examples) -> None:
        self.cfg = cfg
        self.registry = registry
        self.examples = examples
        self.labels = registry.labels
        # Each example release's registry label (2.14.1 -> 2.14.0).
        self.release_labels = release_order.registry_labels(examples.releases, self.labels)
        self.docs_dir = cfg.docs_dir.relative_to(cfg.root).as_posix()

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
        covered = page_coverage(page, view.id, ex.record, release, ex.releases)
        verified_in = [r for r in ex.releases if by_release[r].status == State.VERIFIED]
        fixed = fixed_in(page, ex.record, ex.releases) if page else None
        doc_path = f"{self.docs_dir}/{view.slug}.md"
        return EntryPage(
            view=view,
            coverage=covered,
            in_release=self._in(entry, ex.release),
            badge=badge(self.cfg, covered, self._in(entry, release), release, verified_in, fixed),
            title=f"{view.id}: {plain_title(view.current.text.gb_type)}",
            info_block=doc.block if doc is not None and doc.has_content else None,
            edit_url=urls.github_edit(self.cfg, doc_path),
            source_url=urls.github_source(self.cfg, doc_path),
            prev=prev,
            next=next,
            last_release=labels[labels.index(entry.removed) - 1] if entry.removed else labels[-1],
            states=tuple(by_release[r].status if self._in(entry, r) else None for r in ex.releases),
            by_release=tuple(
                release_state(r, by_release[r], self._in(entry, r)) for r in ex.releases
            ),
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
    and an entry page wherever its block is unchanged."""
    registry, views, docs, examples = inputs.registry, inputs.views, inputs.docs, inputs.examples
    same = previous is not None and previous.registry is registry
    known = {p.view.id: p for p in previous.entries} if previous is not None and same else {}
    make = EntryPages(cfg, registry, examples)
    entries = []
    for i, view in enumerate(views):
        doc = docs.get(view.id)
        reused = known.get(view.id)
        block = doc.block if doc is not None and doc.has_content else None
        if reused is not None and reused.info_block == block:
            entries.append(reused)
            continue
        prev = views[i - 1] if i else None
        next = views[i + 1] if i + 1 < len(views) else None
        entries.append(make.page(view, prev, next, doc))
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
    return SiteModel(
        registry=registry,
        info=info,
        views=views,
        entries=entries,
        releases=previous.releases
        if previous is not None and same
        else release_pages(registry, views),
        dashboard=dashboard(registry, views, has_info, covered, tuple(by_release)),
        categories=registry.categories,
        not_found=not_found(cfg, registry),
        has_info=has_info,
        legacy=inputs.legacy,
    )

"""What the site shows, as plain data: every page's model, computed before any template runs."""

from __future__ import annotations

import datetime
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gbsite.config import Config
from gbsite.docs.files import Doc
from gbsite.examples import coverage
from gbsite.examples.coverage import Page, PageCoverage
from gbsite.examples.record import Record
from gbsite.registry.derive import DEFECTS, Defect
from gbsite.registry.model import Category, Entry, Registry, Revision, Text
from gbsite.registry.views import EntryView
from gbsite.site.charts import BarChart, bar_chart


def release_slug(label: str) -> str:
    return re.sub(r"[^0-9A-Za-z._-]", "-", label)


def plain_title(text: str) -> str:
    """Registry text for <title> and other plain-text places: code spans lose their backticks."""
    return re.sub(r"(`+)(.+?)\1", r"\2", text).strip()


@dataclass(frozen=True, slots=True)
class SiteInfo:
    """Facts every page shows (header, footer)."""

    title: str
    repository: str
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

    @property
    def path(self) -> str:
        return f"gb/{self.view.slug}.html"

    @property
    def json_path(self) -> str:
        return f"gb/{self.view.slug}.json"


@dataclass(frozen=True, slots=True)
class Change:
    view: EntryView
    fields: tuple[str, ...]  # which parts of the text changed, for "changed" entries


@dataclass(frozen=True, slots=True)
class ReleasePage:
    label: str
    previous: str | None
    entries: int
    texts: int
    added: tuple[EntryView, ...]
    changed: tuple[Change, ...]
    removed: tuple[EntryView, ...]

    @property
    def path(self) -> str:
        return f"releases/{release_slug(self.label)}.html"


@dataclass(frozen=True, slots=True)
class EntryList:
    """A list behind a number on the dashboard."""

    key: str
    title: str
    description: str
    entries: tuple[EntryView, ...]


def share(count: int, total: int) -> float:
    """Percent, one decimal, for a bar; 0 of nothing (an empty registry) is 0."""
    return round(100 * count / total, 1) if total else 0.0


@dataclass(frozen=True, slots=True)
class CategoryCount:
    category: Category | None  # None: no canned hint, so no category
    count: int
    share: float  # percent of the current entries


@dataclass(frozen=True, slots=True)
class CoverageList:
    state: str
    title: str
    description: str
    entries: tuple[EntryView, ...]
    share: float  # percent of the release's ids


@dataclass(frozen=True, slots=True)
class CoverageSummary:
    """How many ids of the release the examples run against are in each state."""

    release: str
    total: int
    lists: tuple[CoverageList, ...]  # one per state, in coverage.STATES order

    @property
    def verified(self) -> int:
        return next(len(c.entries) for c in self.lists if c.state == "verified")


@dataclass(frozen=True, slots=True)
class ReleaseCoverage:
    """One row of the dashboard's table of coverage by release of the examples."""

    release: str
    total: int  # ids of that release
    counts: tuple[int, ...]  # per state, in coverage.STATES order


@dataclass(frozen=True, slots=True)
class Dashboard:
    coverage: CoverageSummary
    by_release: tuple[ReleaseCoverage, ...]
    states: tuple[tuple[str, str], ...]  # (state, title), the table's columns
    total: int
    current: int
    removed: int
    with_info: int
    missing_content: int
    by_category: tuple[CategoryCount, ...]
    growth: BarChart
    growth_table: tuple[tuple[str, int, int], ...]  # release, ids, texts
    lists: tuple[EntryList, ...]


@dataclass
class SiteModel:
    registry: Registry
    info: SiteInfo
    views: list[EntryView]
    entries: list[EntryPage]
    releases: list[ReleasePage]
    dashboard: Dashboard
    categories: list[Category]
    has_info: dict[str, bool] = field(default_factory=dict)


def _text_fields_changed(old: Text, new: Text) -> tuple[str, ...]:
    names = (
        ("gb_type", "type"),
        ("context", "context"),
        ("explanation", "explanation"),
        ("hints", "hints"),
    )
    return tuple(label for attr, label in names if getattr(old, attr) != getattr(new, attr))


def _current_before(
    revisions: Sequence[Revision], index: dict[str, int], release: int
) -> Text | None:
    """The text that was current in the release before `release`, if known."""
    best: tuple[int, Text] | None = None
    for rev in revisions:
        since = index[rev.current_since] if rev.current_since is not None else None
        if since is not None and since < release and (best is None or since > best[0]):
            best = (since, rev.text)
    return best[1] if best else None


def release_pages(registry: Registry, views: list[EntryView]) -> list[ReleasePage]:
    index = {label: i for i, label in enumerate(registry.labels)}
    pages = []
    for i, source in enumerate(registry.sources):
        label = source.label
        added, changed, removed = [], [], []
        for view in views:
            entry = view.entry
            if entry.added == label:
                added.append(view)
            if entry.removed == label:
                removed.append(view)
            revisions = [*entry.history, *entry.replaced]
            if entry.added != label and any(r.current_since == label for r in revisions):
                new = next(r.text for r in revisions if r.current_since == label)
                old = _current_before(revisions, index, i)
                fields = _text_fields_changed(old, new) if old else ()
                changed.append(Change(view, fields))
        pages.append(
            ReleasePage(
                label,
                registry.labels[i - 1] if i else None,
                source.entries,
                source.items,
                tuple(added),
                tuple(changed),
                tuple(removed),
            )
        )
    return pages


def coverage_summary(
    release: str, views: list[EntryView], pages: list[EntryPage]
) -> CoverageSummary:
    by_id = {p.view.id: p for p in pages}
    ids = [v for v in views if by_id[v.id].in_release]
    lists = []
    for state in coverage.STATES:
        listed = tuple(v for v in ids if by_id[v.id].coverage.status == state)
        title, description = coverage.STATE_TEXT[state]
        lists.append(CoverageList(state, title, description, listed, share(len(listed), len(ids))))
    return CoverageSummary(release, len(ids), tuple(lists))


def dashboard(
    registry: Registry,
    views: list[EntryView],
    has_info: dict[str, bool],
    covered: CoverageSummary,
    by_release: tuple[ReleaseCoverage, ...] = (),
) -> Dashboard:
    current = [v for v in views if not v.entry.is_removed]

    def with_defect(key: str) -> tuple[EntryView, ...]:
        return tuple(v for v in current if any(d.key == key for d in v.defects))

    missing_keys = ("no-hints", "empty-explanation", "empty-context")
    missing = [v for v in current if any(d.key in missing_keys for d in v.defects)]
    counts: list[CategoryCount] = []
    for category in registry.categories:
        n = sum(category in v.categories for v in current)
        counts.append(CategoryCount(category, n, share(n, len(current))))
    n = sum(not v.categories for v in current)
    counts.append(CategoryCount(None, n, share(n, len(current))))
    growth = [(s.label, s.entries, s.items) for s in registry.sources]
    lists = [
        EntryList(
            "with-info",
            "With additional information",
            "Entries whose page has a contributor's Additional Information.",
            tuple(v for v in views if has_info.get(v.id)),
        ),
        EntryList(
            "missing-content",
            "With missing content",
            "Current entries with no hints, an empty explanation or an empty context.",
            tuple(missing),
        ),
        *(EntryList(d.key, d.label, d.description, with_defect(d.key)) for d in _listed_defects()),
        EntryList(
            "removed",
            "Removed",
            "Ids PyTorch no longer has; their pages stay.",
            tuple(v for v in views if v.entry.is_removed),
        ),
    ]
    return Dashboard(
        coverage=covered,
        by_release=by_release,
        states=tuple((s, coverage.STATE_TEXT[s][0]) for s in coverage.STATES),
        total=len(views),
        current=len(current),
        removed=len(views) - len(current),
        with_info=sum(1 for v in views if has_info.get(v.id)),
        missing_content=len(missing),
        by_category=tuple(counts),
        growth=bar_chart("Graph-break ids per PyTorch release", [(g[0], g[1]) for g in growth]),
        growth_table=tuple(growth),
        lists=tuple(lists),
    )


def _listed_defects() -> list[Defect]:
    order = (
        "no-hints",
        "empty-explanation",
        "empty-context",
        "runtime-explanation",
        "split-hints",
        "leaked-source",
    )
    return [DEFECTS[key] for key in order]


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
    (coverage.fixed_in)."""
    d = covered.declaration
    if covered.status == "fixed" and fixed is not None:
        fixed_in, broke_in = fixed
        return Badge(
            "fixed",
            f"Fixed in torch {fixed_in}",
            f"upgrading to torch {fixed_in} removes this break for code like the example: its "
            f"repro breaks with torch {_and(broke_in)} and compiles without a break from "
            f"{fixed_in} on",
            "#additional-information",
            "See the example",
        )
    if covered.status == "verified" or (covered.status == "none" and verified_in):
        # Verified with an older torch but not the newest: each example's line says why.
        torch = _and(verified_in)
        return Badge(
            "verified",
            "Verified example",
            f"the repro and the fix below were run with torch {torch}",
            "#additional-information",
            "See the example",
        )
    if d is not None and d.status == "environment" and d.needs:
        from gbsite.examples.annotations import needs_label

        return Badge(
            "environment",
            f"Needs {needs_label(d.needs)}",
            "the examples below are shown as written, not run by the site's checker",
            "#additional-information",
            "See the example",
        )
    if d is not None and d.status == "internal":
        return Badge(
            "internal",
            "Internal",
            f"no user program is known to reach it; torch raises it in {d.source} ({d.function})",
            "#additional-information",
            "What to do if you see it",
        )
    if d is not None and d.status == "unraised":
        replaced = f"; {d.replaced_by} took its place" if d.replaced_by else ""
        return Badge(
            "unraised",
            "No longer raised",
            f"torch {release} does not raise it{replaced}",
            f"{d.replaced_by.lower()}.html" if d.replaced_by else "#additional-information",
            f"Go to {d.replaced_by}" if d.replaced_by else "Read more",
        )
    where = "" if in_release else f" (the examples run against torch {release}, which lacks it)"
    return Badge(
        "none",
        "No example yet",
        f"nobody has written a repro and a fix for this page{where}",
        cfg.source_url("README.md") + "#writing-a-page",
        "Add one",
    )


def entry_pages(
    cfg: Config,
    registry: Registry,
    views: list[EntryView],
    docs: dict[str, Doc],
    examples: Examples,
) -> list[EntryPage]:
    labels = registry.labels
    docs_dir = cfg.docs_dir.relative_to(cfg.root).as_posix()
    release_labels = coverage.registry_labels(examples.releases, labels)
    newest = release_labels[examples.release]  # the release the dashboard counts
    pages = []
    for i, view in enumerate(views):
        entry = view.entry
        last = labels[labels.index(entry.removed) - 1] if entry.removed else labels[-1]
        doc = f"{docs_dir}/{view.slug}.md"
        page = examples.pages.get(view.id)
        release = examples.release_of(entry, labels)
        covered = coverage.page_coverage(page, view.id, examples.record, release, examples.releases)
        in_release = coverage.in_release(entry, labels, newest)
        verified_in = [
            r
            for r in examples.releases
            if coverage.page_coverage(page, view.id, examples.record, r).status == "verified"
        ]
        pages.append(
            EntryPage(
                view=view,
                coverage=covered,
                in_release=in_release,
                badge=badge(
                    cfg,
                    covered,
                    coverage.in_release(entry, labels, release_labels[release]),
                    release,
                    verified_in,
                    coverage.fixed_in(page, examples.record, examples.releases) if page else None,
                ),
                title=f"{view.id}: {plain_title(view.current.text.gb_type)}",
                info_block=docs[view.id].block
                if view.id in docs and docs[view.id].has_content
                else None,
                edit_url=cfg.edit_url(doc),
                source_url=cfg.source_url(doc),
                prev=views[i - 1] if i else None,
                next=views[i + 1] if i + 1 < len(views) else None,
                last_release=last,
            )
        )
    return pages


@dataclass(frozen=True, slots=True)
class Examples:
    """What the coverage of the pages is derived from (coverage.py)."""

    pages: dict[str, Page]  # each docs file's annotated blocks and status block
    record: Record  # what each block did with each release
    releases: tuple[str, ...]  # the torch releases the examples run against, oldest first

    @property
    def release(self) -> str:
        """The release the dashboard counts: the newest."""
        return self.releases[-1]

    def release_of(self, entry: Entry, labels: list[str]) -> str:
        """The release a page's state is shown for: the newest one that has the id."""
        found = [
            r
            for r, label in coverage.registry_labels(self.releases, labels).items()
            if coverage.in_release(entry, labels, label)
        ]
        return found[-1] if found else self.release


UPSTREAM_REGISTRY = (
    "https://github.com/pytorch/pytorch/blob/main/torch/_dynamo/graph_break_registry.json"
)
_SYNC_LABEL = re.compile(r"^(?P<branch>[^@]+)@(?P<date>\d{4}-\d\d-\d\d)")


@dataclass(frozen=True, slots=True)
class NotFound:
    """What the 404 page says: how new the registry is, and where the site lives."""

    registry_note: str
    prefix: str  # path of the configured site URL: the root when the address says nothing
    upstream_registry: str = UPSTREAM_REGISTRY


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


def model(
    cfg: Config,
    registry: Registry,
    views: list[EntryView],
    docs: dict[str, Doc],
    examples: Examples,
) -> SiteModel:
    has_info = {gb_id: doc.has_content for gb_id, doc in docs.items()}
    info = SiteInfo(
        cfg.title, cfg.repository, registry.labels[-1], tuple(registry.labels), built_date()
    )
    entries = entry_pages(cfg, registry, views, docs, examples)
    covered = coverage_summary(examples.release, views, entries)
    by_release = []
    for release in examples.releases:
        states = coverage.coverage(
            registry, examples.pages, examples.record, release, examples.releases
        )
        counts = coverage.counts(states)
        by_release.append(
            ReleaseCoverage(release, len(states), tuple(counts[s] for s in coverage.STATES))
        )
    return SiteModel(
        registry=registry,
        info=info,
        views=views,
        entries=entries,
        releases=release_pages(registry, views),
        dashboard=dashboard(registry, views, has_info, covered, tuple(by_release)),
        categories=registry.categories,
        has_info=has_info,
    )


# ---- machine-readable outputs ----------------------------------------------------------------


def _text_json(text: Text) -> dict[str, Any]:
    return {
        "gb_type": text.gb_type,
        "context": text.context,
        "explanation": text.explanation,
        "hints": list(text.hints),
    }


def _entry_record(view: EntryView, has_info: bool) -> dict[str, Any]:
    e = view.entry
    return {
        "id": e.id,
        "url": f"gb/{view.slug}.html",
        "status": view.status,
        "added": e.added,
        "removed": e.removed,
        "changed_in": view.changed_in,
        "categories": [c.key for c in view.categories],
        "has_additional_information": has_info,
        "current": {**_text_json(e.current), "hints_joined": list(view.current.hints)},
        "history": [{**_text_json(r.text), "current_since": r.current_since} for r in e.history],
        "replaced": [
            {**_text_json(r.text), "current_since": r.current_since, "last_seen": r.last_seen}
            for r in e.replaced
        ],
    }


def entry_json(page: EntryPage, site: SiteModel) -> str:
    """One entry for tools (gb/gbXXXX.json, linked from its page): what registry.json says of
    it, and its state for the release the examples run against."""
    release = site.dashboard.coverage.release
    data = {
        **_entry_record(page.view, site.has_info.get(page.view.id, False)),
        "url": f"{page.view.slug}.html",  # beside this file
        "state": {
            "release": release,
            "state": page.coverage.status if page.in_release else None,
            "last_release": page.last_release,
            # What each example did with each torch release of the examples.
            "examples": [
                {"kind": b.kind, "needs": b.needs or None, "outcomes": dict(b.outcomes)}
                for b in page.coverage.blocks
            ],
        },
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def registry_json(registry: Registry, site: SiteModel) -> str:
    """The whole registry with lifecycle and categories, for tools (registry.json)."""
    entries = {
        view.id: _entry_record(view, site.has_info.get(view.id, False)) for view in site.views
    }
    data = {
        "sources": [
            {"label": s.label, "sha256": s.sha256, "entries": s.entries, "items": s.items}
            for s in registry.sources
        ],
        "categories": [
            {"key": c.key, "constant": c.constant, "label": c.label, "summary": c.summary}
            for c in registry.categories
        ],
        "entries": entries,
    }
    # Compact on purpose: with `indent`, json falls back to its pure-Python encoder (~10x slower).
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def sitemap(cfg: Config, site: SiteModel) -> str:
    paths = ["", "dashboard.html", "releases/index.html"]
    paths += [page.path for page in site.releases]
    paths += [page.path for page in site.entries]
    urls = "".join(f"  <url><loc>{cfg.site_url}{p}</loc></url>\n" for p in paths)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{urls}</urlset>\n"
    )

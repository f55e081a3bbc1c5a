"""The dashboard and the release pages, as plain data: counts, coverage and lists of entries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gbsite import urls
from gbsite.examples.vocabulary import State
from gbsite.registry.derive import DEFECTS, Defect
from gbsite.registry.model import Category, Registry, Revision, Text
from gbsite.registry.views import EntryView
from gbsite.site.charts import BarChart, bar_chart

# What each state means to a reader: a title and a sentence, for the dashboard.
STATE_TEXT: dict[State, tuple[str, str]] = {
    State.VERIFIED: ("Verified", "A repro and a fix on the page were run and did what they say."),
    State.FIXED: (
        "Fixed by upgrading",
        "The page's repro breaks with an older torch and compiles without a break with this one.",
    ),
    State.PENDING: (
        "Examples not run yet",
        "The page's examples are new or changed and have not been run with this torch yet: "
        "CI runs them on the next push and records what they did.",
    ),
    State.ENVIRONMENT: (
        "Needs an environment",
        "Reachable only with a CUDA device, several processes, another package or a newer "
        "Python: the "
        "examples are shown, not run.",
    ),
    State.INTERNAL: (
        "Internal",
        "No user program reaches it; the page says where torch raises it and what to do.",
    ),
    State.UNRAISED: (
        "No longer raised",
        "The registry keeps the id, but torch no longer raises it.",
    ),
    State.NONE: (
        "No example yet",
        "Pages waiting for a repro and a fix that do what they say with this torch (some have "
        "an example for an older one): pick one and write it.",
    ),
}


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
    fixes: tuple[EntryView, ...] = ()  # pages whose example upgrading to this release fixes

    @property
    def path(self) -> str:
        return urls.release(self.label)


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
    lists: tuple[CoverageList, ...]  # one per state, in State order

    @property
    def verified(self) -> int:
        return next(len(c.entries) for c in self.lists if c.state == State.VERIFIED)


@dataclass(frozen=True, slots=True)
class ReleaseCoverage:
    """One row of the dashboard's table of coverage by release of the examples."""

    release: str
    total: int  # ids of that release
    counts: tuple[int, ...]  # per state, in State order


@dataclass(frozen=True, slots=True)
class Dashboard:
    coverage: CoverageSummary
    by_release: tuple[ReleaseCoverage, ...]
    states: tuple[tuple[str, str], ...]  # (state, title), the table's columns
    total: int
    current: int
    removed: int
    without_info: int  # ids whose page has no contributor's text yet (a new id)
    missing_content: int
    by_category: tuple[CategoryCount, ...]
    growth: BarChart
    growth_table: tuple[tuple[str, int, int], ...]  # release, ids, texts
    lists: tuple[EntryList, ...]


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


def release_pages(
    registry: Registry,
    views: list[EntryView],
    fixes: dict[str, list[EntryView]] | None = None,
) -> list[ReleasePage]:
    """`fixes`: by imported release, the pages whose repro stops breaking with it. One pass
    over the pages, each listed under the releases it was added, changed and removed in (serve
    makes these pages again after every save)."""
    index = {label: i for i, label in enumerate(registry.labels)}
    added: dict[str, list[EntryView]] = {}
    removed: dict[str, list[EntryView]] = {}
    changed: dict[str, list[Change]] = {}
    for view in views:
        entry = view.entry
        added.setdefault(entry.added, []).append(view)
        if entry.removed is not None:
            removed.setdefault(entry.removed, []).append(view)
        revisions = [*entry.history, *entry.replaced]
        for label in dict.fromkeys(r.current_since for r in revisions):  # each once, in order
            if label is None or label == entry.added or label not in index:
                continue
            new = next(r.text for r in revisions if r.current_since == label)
            old = _current_before(revisions, index, index[label])
            fields = _text_fields_changed(old, new) if old else ()
            changed.setdefault(label, []).append(Change(view, fields))
    return [
        ReleasePage(
            source.label,
            registry.labels[i - 1] if i else None,
            source.entries,
            source.items,
            tuple(added.get(source.label, ())),
            tuple(changed.get(source.label, ())),
            tuple(removed.get(source.label, ())),
            tuple((fixes or {}).get(source.label, ())),
        )
        for i, source in enumerate(registry.sources)
    ]


def coverage_summary(
    release: str, views: list[EntryView], states: dict[str, str | None]
) -> CoverageSummary:
    """`states`: each id's coverage state for `release`, None when the release lacks the id."""
    ids = [v for v in views if states[v.id] is not None]
    lists = []
    for state in State:
        listed = tuple(v for v in ids if states[v.id] == state)
        title, description = STATE_TEXT[state]
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
            "without-info",
            "With no page text yet",
            "Entries whose page has no contributor's text yet: only what PyTorch prints.",
            tuple(v for v in views if not has_info.get(v.id)),
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
        states=tuple((s, STATE_TEXT[s][0]) for s in State),
        total=len(views),
        current=len(current),
        removed=len(views) - len(current),
        without_info=sum(1 for v in views if not has_info.get(v.id)),
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

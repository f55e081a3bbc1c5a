"""What a page shows about an entry, computed once from the registry for docs and site alike."""

from __future__ import annotations

from dataclasses import dataclass

from gbsite.registry.derive import Classifier, Defect, defects_of, is_runtime_text, is_source_text
from gbsite.registry.model import Category, Entry, Registry, Text


@dataclass(frozen=True, slots=True)
class TextView:
    """A text as shown: hints rejoined, with the releases in which it was current."""

    text: Text
    hints: tuple[str, ...]
    period: str  # "2.8.0 to 2.13.0", "since 2.14.0", or a note when never current in a release


@dataclass(frozen=True, slots=True)
class EntryView:
    entry: Entry
    current: TextView
    earlier: tuple[TextView, ...]  # distinct older wordings, newest first
    categories: tuple[Category, ...]
    defects: tuple[Defect, ...]
    changed_in: str | None  # release the current text arrived in, if after `added`
    runtime_explanation: bool  # the registry only has an expression like `msg` here
    source_explanation: bool  # the registry holds the Python expression that builds the text

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def slug(self) -> str:
        return self.entry.slug

    @property
    def status(self) -> str:
        return "removed" if self.entry.is_removed else "current"


def _periods(entry: Entry, labels: list[str]) -> dict[int, str]:
    """Period label per revision index (history first, then replaced)."""
    revisions = [*entry.history, *entry.replaced]
    index = {label: i for i, label in enumerate(labels)}
    timed = sorted(
        (index[r.current_since], i) for i, r in enumerate(revisions) if r.current_since is not None
    )
    # The last release the id existed in bounds the newest period.
    end = index[entry.removed] - 1 if entry.removed else len(labels) - 1
    out: dict[int, str] = {}
    for n, (start, i) in enumerate(timed):
        stop = timed[n + 1][0] - 1 if n + 1 < len(timed) else end
        last_seen = revisions[i].last_seen
        if last_seen is not None:
            stop = min(stop, index[last_seen])
        if stop < start:
            stop = start
        if stop == start:
            out[i] = f"in {labels[start]}"
        elif n + 1 == len(timed) and not entry.removed and stop == len(labels) - 1:
            out[i] = f"since {labels[start]}"
        else:
            out[i] = f"{labels[start]} to {labels[stop]}"
    for i in range(len(revisions)):
        if i not in out:
            out[i] = "never the current text in an imported release"
    return out


def entry_view(entry: Entry, registry: Registry, classifier: Classifier) -> EntryView:
    revisions = [*entry.history, *entry.replaced]
    periods = _periods(entry, registry.labels)

    def view(i: int) -> TextView:
        text = revisions[i].text
        return TextView(text, tuple(classifier.join_hints(text.hints)), periods[i])

    current = view(0)
    seen = {entry.current}
    earlier: list[TextView] = []
    # Order older wordings by when they were current (newest first); never-current ones last.
    index = {label: n for n, label in enumerate(registry.labels)}
    order = sorted(
        range(1, len(revisions)),
        key=lambda i: -index[s] if (s := revisions[i].current_since) is not None else 1,
    )
    for i in order:
        if revisions[i].text not in seen:
            seen.add(revisions[i].text)
            earlier.append(view(i))
    since = entry.history[0].current_since
    return EntryView(
        entry=entry,
        current=current,
        earlier=tuple(earlier),
        categories=tuple(classifier.categories_of(entry.current)),
        defects=tuple(defects_of(entry, classifier)),
        changed_in=since if since != entry.added else None,
        runtime_explanation=is_runtime_text(entry.current.explanation),
        source_explanation=is_source_text(entry.current.explanation),
    )


def entry_views(registry: Registry) -> list[EntryView]:
    classifier = Classifier(registry.categories)
    return [entry_view(e, registry, classifier) for e in registry.entries.values()]

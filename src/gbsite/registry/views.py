"""What a page shows about an entry, computed once from the registry for docs and site alike."""

from __future__ import annotations

from dataclasses import dataclass

from gbsite.registry.derive import Classifier, Defect, defects_of, is_runtime_text, is_source_text
from gbsite.registry.model import Category, Entry, Registry, Text
from gbsite.releases import release_of


@dataclass(frozen=True, slots=True)
class TextView:
    """A text as shown: hints rejoined, with the releases in which it was current."""

    text: Text
    hints: tuple[str, ...]
    period: str  # "2.8.0 to 2.13.0", "since 2.14.0", or a note when never current in a release


@dataclass(frozen=True, slots=True)
class ResolvedView:
    """A field of the current text that is a Python name, with what the name holds in the
    torch source of the newest imported release that resolved it (registry/resolved/)."""

    field: str  # gb_type, context, explanation or hints
    name: str  # the registry's text
    text: str
    label: str  # the snapshot whose release's source gave it
    torch: str  # the version of that source
    file: str  # torch/...py
    line: int

    @property
    def filled_in(self) -> bool:
        """Whether it has `{...}` parts, which torch fills in when the break happens."""
        return "{" in self.text


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
    resolved: tuple[ResolvedView, ...] = ()  # the current text's fields that are names, resolved
    # Every text a name of the id resolved to in some release (a field of a text that is a name,
    # with that field filled in), newest release first, for search.
    resolved_wordings: tuple[TextView, ...] = ()

    def resolution(self, field: str) -> ResolvedView | None:
        return next((r for r in self.resolved if r.field == field), None)

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
    resolved, wordings = _resolved(entry, registry, classifier)
    return EntryView(
        entry=entry,
        current=current,
        earlier=tuple(earlier),
        categories=tuple(classifier.categories_of(entry.current)),
        defects=tuple(defects_of(entry, classifier)),
        changed_in=since if since != entry.added else None,
        runtime_explanation=is_runtime_text(entry.current.explanation)
        and not any(r.field == "explanation" for r in resolved),
        source_explanation=is_source_text(entry.current.explanation),
        resolved=resolved,
        resolved_wordings=wordings,
    )


def _resolved(
    entry: Entry, registry: Registry, classifier: Classifier
) -> tuple[tuple[ResolvedView, ...], tuple[TextView, ...]]:
    current = entry.current
    shown: dict[tuple[str, str], ResolvedView] = {}
    wordings: list[TextView] = []
    for res, r in registry.resolved_texts(entry.id):  # newest release first
        file, _, line = r.source.rpartition(":")
        torch = release_of(res.torch)  # 2.15.0+cu132: the release is what a reader needs
        view = ResolvedView(r.field, r.name, r.text, res.label, torch, file, int(line))
        if _names(current, r.field, r.name):
            shown.setdefault((r.field, r.name), view)
        for rev in (*entry.history, *entry.replaced):
            if _names(rev.text, r.field, r.name):
                text = _filled(rev.text, r.field, r.name, r.text)
                if all(w.text != text for w in wordings):
                    hints = tuple(classifier.join_hints(text.hints))
                    wordings.append(TextView(text, hints, f"the text of {r.name} in torch {torch}"))
    return tuple(shown.values()), tuple(wordings)


def _names(text: Text, field: str, name: str) -> bool:
    if field == "hints":
        return any(h.strip() == name for h in text.hints)
    return bool(getattr(text, field).strip() == name)


def _filled(text: Text, field: str, name: str, value: str) -> Text:
    """`text` with the field that is `name` replaced by what the name holds."""
    if field == "hints":
        hints = tuple(value if h.strip() == name else h for h in text.hints)
        return Text(text.gb_type, text.context, text.explanation, hints)
    values = {"gb_type": text.gb_type, "context": text.context, "explanation": text.explanation}
    values[field] = value
    return Text(values["gb_type"], values["context"], values["explanation"], text.hints)


def entry_views(registry: Registry) -> list[EntryView]:
    classifier = Classifier(registry.categories)
    return [entry_view(e, registry, classifier) for e in registry.entries.values()]

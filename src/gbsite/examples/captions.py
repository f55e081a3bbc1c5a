"""The caption above each example of a page: what it shows, and what it did with each torch
release of the examples (from the record), for the Markdown renderer (docs/markdown.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gbsite.examples import record
from gbsite.examples.record import Record

if TYPE_CHECKING:
    from gbsite.docs.fences import Fence, FenceView

WRONG_TITLE = "Silent wrong result"  # the warning box a gb-wrong block is shown in


class ExampleCaptions:
    """Says above a gb-repro or gb-fix block what it shows, and what it did with each torch
    release of the examples: `torch 2.13.0 breaks · 2.14.1 breaks · 2.15.0 no break`; a
    gb-wrong block is shown in a warning box, saying with which releases the value is wrong."""

    def __init__(self, runs: Record, releases: Sequence[str]) -> None:
        self.runs = runs
        self.releases = releases

    def __call__(self, fence: Fence, gb_id: str) -> FenceView | None:
        from html import escape

        from gbsite.docs.fences import Caption, FenceView
        from gbsite.examples import annotations as examples
        from gbsite.examples.shown import as_run

        if "gb-status" in fence.info.split():
            return FenceView(hidden=True)  # the page says it in words (site/content.py)
        try:
            a = examples.parse_info(fence.info)
        except ValueError:
            return None  # `gbsite check` reports the bad info string
        if a is None:
            return None
        shown = as_run(fence.code, a)
        if a.kind == examples.WRONG:
            what = (
                "Without a graph break or an error, torch.compile computes another value than "
                "plain PyTorch; the program asserts that they differ"
            )
            key = (gb_id, examples.digest(a.kind, a.compile_name, a.backend, fence.code))
            return FenceView(Caption(f"{what} · {self.outcomes(key, a.kind)}", WRONG_TITLE))
        if a.compile_name == examples.SCRIPT:
            what = (
                f"Breaks with {escape(gb_id)} when run as written"
                if a.kind == examples.REPRO
                else "Fix: runs as written, without a graph break"
            )
        elif a.fullgraph == examples.NO_FULLGRAPH:
            what = f"Logs {escape(gb_id)} as a graph break (the highlighted lines compile it)"
        elif a.kind == examples.REPRO:
            what = f"Breaks with {escape(gb_id)} when compiled as highlighted"
        else:
            what = "Fix: no graph break, compiled as highlighted and called at least twice"
        if a.eager == examples.EAGER_RAISES:
            what += "; this code fails without torch.compile too"
        if a.since:
            what += f"; written for torch {escape(a.since)} and later"
        if a.recompiles == examples.RECOMPILES:
            what += "; recompiles as its inputs change"
        python = examples.python_needed(a.needs)
        if python:
            what += f"; run with Python {escape(python)}"
        elif a.needs.startswith("without:"):
            what += f"; run without {escape(a.needs.removeprefix('without:'))} installed"
        elif a.needs:
            # Never run: what it should do is the author's word, not an outcome.
            needs = escape(examples.needs_label(a.needs))
            caption = (
                f"Written to show this: {what[0].lower()}{what[1:]} · "
                f'<span class="unverified">needs {needs}: shown, not run</span>'
            )
            return FenceView(caption, shown.code, shown.added)
        digest = examples.digest(
            a.kind,
            a.compile_name,
            a.backend,
            fence.code,
            a.eager,
            a.fullgraph,
            a.since,
            a.recompiles,
            a.needs,
        )
        caption = f"{what} · {self.outcomes((gb_id, digest), a.kind)}"
        return FenceView(caption, shown.code, shown.added)

    def outcomes(self, key: tuple[str, str], kind: str) -> str:
        """One line of outcomes by release, each in words (colour only repeats them)."""
        from html import escape

        from gbsite.examples import annotations as examples

        row = self.runs.rows.get(key)
        if row is None:
            return (
                '<span class="unverified">not run yet: CI runs it and records what it does</span>'
            )
        parts = []
        for release in self.releases:
            outcome = row.outcomes.get(release)
            said = outcome.describe() if outcome else "not run"
            if kind == examples.WRONG and outcome == record.passing(kind):
                css = "wrong"  # what it promised: a wrong value, a warning, not a success
            else:
                css = "verified" if outcome == record.passing(kind) else "unverified"
            parts.append(f'<span class="{css}">{escape(release)} {escape(said)}</span>')
        # The backends a fix was also run with (CI: inductor with the newest release).
        for column in sorted(row.outcomes, key=record.key_order):
            release, backend = record.split_key(column)
            if backend:
                outcome = row.outcomes[column]
                css = "verified" if outcome == record.passing(kind) else "unverified"
                said = f"{release} with {backend}: {outcome.describe()}"
                parts.append(f'<span class="{css}">{escape(said)}</span>')
        return '<span class="outcomes">torch ' + " · ".join(parts) + "</span>"

"""What `gbsite show GBxxxx` prints, as plain data: one id's registry texts, its page's state for
each release of the examples, the "Why this happens" section and the annotated examples with
what each did with each release (from docs/verified-examples.yaml).

Everything comes from the parsers the site uses: the registry entry (registry/store.py,
views.py), the docs file (docs/files.py) and its examples and status blocks (examples/pages.py),
its states (examples/states.py), the record (examples/record.py). Only the one entry and the one
docs file are read, so that it answers at once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gbsite.errors import GbsiteError
from gbsite.examples.record import Key, Record, key_order, split_key

if TYPE_CHECKING:
    from gbsite.config import Config
    from gbsite.docs.files import Doc
    from gbsite.examples.vocabulary import Outcome
    from gbsite.registry.model import Registry

# What names an id: GB0025, gb0025, 25, gb0025.html (or .md, .json), a page URL or path.
_ID = re.compile(r"(?:gb)?-?(\d{1,4})(?:\.(?:html?|md|json))?", re.IGNORECASE)
# The section of a page that says why the break happens: its heading, matched loosely.
WHY_TITLE = "Why this happens"


def parse_id(text: str) -> str | None:
    """`GB0025`, `gb0025`, `25`, `gb0025.html` or `https://.../gb/gb0025.html?x#y` -> `GB0025`;
    None when `text` names no id."""
    last = text.strip().split("#", 1)[0].split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    match = _ID.fullmatch(last)
    return f"GB{int(match.group(1)):04d}" if match else None


@dataclass(frozen=True, slots=True)
class Example:
    """An annotated gb-repro, gb-fix or gb-wrong block, with the prose just above it (what it
    shows, when to choose the fix and what it costs) and what it did with each release of the
    examples."""

    kind: str
    line: int  # of the opening fence in the docs file
    lead: str  # Markdown between the previous heading or block and this one
    code: str  # as written in the docs file
    run: str  # as it was run: the compile call the checker adds, written in (shown.py)
    after: str  # for the last block of a section: the Markdown after it, to the next heading
    needs: str  # shown, not run (cuda, distributed, ...); "" when run
    since: str  # written for this release and later; "" for the page's home
    promise: Outcome  # the outcome that keeps its promise: breaks (repro), runs (fix), wrong
    outcomes: tuple[tuple[str, Outcome | None], ...]  # (release, outcome or None: not run)


@dataclass(frozen=True, slots=True)
class State:
    release: str  # a release of the examples
    state: str | None  # a vocabulary.State; None when its registry lacks the id


@dataclass(frozen=True, slots=True)
class Declared:
    """The page's status block (internal, unraised, environment) that holds with the newest
    release of the examples."""

    status: str
    reason: str
    source: str | None
    function: str | None
    needs: str | None
    replaced_by: str | None


@dataclass(frozen=True, slots=True)
class Shown:
    id: str
    gb_type: str
    status: str  # current or removed
    added: str
    removed: str | None
    newest: str  # the newest imported label
    url: str
    doc: str  # the docs file, relative to the project
    context: str
    explanation: str
    hints: tuple[str, ...]
    categories: tuple[str, ...]  # labels
    states: tuple[State, ...]
    why_title: str | None  # "Why this happens", or the first section's title on pages without
    why: str  # its Markdown
    declared: Declared | None
    examples: tuple[Example, ...]

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of `gbsite show --format json` (docs/search.md: `gbsite show`)."""
        return {
            "id": self.id,
            "type": self.gb_type,
            "status": self.status,
            "added": self.added,
            "removed": self.removed,
            "newest_import": self.newest,
            "url": self.url,
            "doc": self.doc,
            "states": {s.release: s.state for s in self.states},
            "why": {"title": self.why_title, "markdown": self.why} if self.why_title else None,
            "declared": None
            if self.declared is None
            else {
                "status": self.declared.status,
                "reason": self.declared.reason,
                "source": self.declared.source,
                "function": self.declared.function,
                "needs": self.declared.needs,
                "replaced_by": self.declared.replaced_by,
            },
            "examples": [
                {
                    "kind": e.kind,
                    "line": e.line,
                    "lead": e.lead,
                    "code": e.code,
                    "run": e.run,
                    "after": e.after,
                    "needs": e.needs or None,
                    "since": e.since or None,
                    "promise": str(e.promise),
                    "outcomes": {r: None if o is None else str(o) for r, o in e.outcomes},
                }
                for e in self.examples
            ],
            "registry": {
                "explanation": self.explanation,
                "context": self.context,
                "hints": list(self.hints),
                "categories": list(self.categories),
            },
        }


def unknown(cfg: Config, text: str) -> GbsiteError:
    """The one-line error for an id the registry lacks, naming the newest import."""
    from gbsite.registry import store

    sources = store.load_sources(cfg.registry_dir)
    newest = sources[-1].label if sources else "nothing imported yet"
    return GbsiteError(
        f"show: {text} is not in the registry (newest import: {newest}); "
        "`gbsite lookup --words WORD...` finds an id by its words"
    )


def shown(cfg: Config, text: str) -> Shown:
    """What `gbsite show TEXT` prints; a GbsiteError for what names no id of the registry."""
    from gbsite import urls
    from gbsite.registry import store
    from gbsite.registry.derive import Classifier
    from gbsite.registry.views import entry_view

    gb_id = parse_id(text)
    if gb_id is None:
        raise GbsiteError(
            f"show: {text!r} names no graph-break id; give one as GB0025, gb0025, 25, "
            "gb0025.html or the page's URL"
        )
    reg = store.load_entry(cfg.registry_dir, gb_id)
    if reg is None:
        raise unknown(cfg, gb_id)
    entry = reg.entries[gb_id]
    view = entry_view(entry, reg, Classifier(reg.categories))
    doc_path = cfg.docs_dir / f"{urls.slug(gb_id)}.md"
    states, declared, why_title, why, examples = _page(cfg, gb_id, doc_path, reg)
    return Shown(
        id=gb_id,
        gb_type=entry.current.gb_type,
        status=view.status,
        added=entry.added,
        removed=entry.removed,
        newest=reg.labels[-1] if reg.labels else "",
        url=urls.absolute(cfg, urls.entry(gb_id)),
        doc=_relative(doc_path, cfg.root),
        context=entry.current.context,
        explanation=entry.current.explanation,
        hints=view.current.hints,
        categories=tuple(c.label for c in view.categories),
        states=states,
        why_title=why_title,
        why=why,
        declared=declared,
        examples=examples,
    )


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _page(
    cfg: Config, gb_id: str, path: Path, reg: Registry
) -> tuple[tuple[State, ...], Declared | None, str | None, str, tuple[Example, ...]]:
    """The page's part: states by release, the status block, the why section, the examples."""
    from gbsite.docs import files as docs
    from gbsite.examples import record as runs
    from gbsite.examples.pages import Lifecycles, read_page
    from gbsite.examples.shown import of_block
    from gbsite.examples.states import page_coverage

    doc = docs.read(path, outside=False) if path.is_file() else None
    # The page's examples and status block, validated as `gbsite check` validates them; the
    # known ids (for `replaced-by:`) are the registry's files.
    known = {p.stem for p in (cfg.registry_dir / "gb").glob("GB*.yaml")}
    releases = cfg.example_releases
    lifecycles = Lifecycles.of(reg, releases, known)
    page = read_page(gb_id, doc, lifecycles) if doc and doc.has_content else None
    record = runs.read_page(cfg.verified_file, gb_id)
    states = tuple(
        State(
            release,
            page_coverage(page, gb_id, record, release, releases).status
            if release in lifecycles.present[gb_id]
            else None,
        )
        for release in releases
    )
    if page is None or doc is None:
        return states, None, None, "", ()
    newest = page.declared_for(releases[-1]) if releases else page.declaration
    declared = (
        None
        if newest is None
        else Declared(
            newest.status,
            newest.reason,
            newest.source,
            newest.function,
            newest.needs,
            newest.replaced_by,
        )
    )
    title, why, leads = _sections(doc)
    examples = tuple(
        Example(
            kind=b.kind,
            line=b.line,
            lead=leads.get(b.line, ("", ""))[0],
            code=b.code,
            run=of_block(b).code,
            after=leads.get(b.line, ("", ""))[1],
            needs=b.needs,
            since=b.since,
            promise=runs.passing(b.kind),
            outcomes=tuple(
                (r, record.outcome(b.key, r)) for r in _run_keys(record, b.key, releases)
            ),
        )
        for b in page.blocks
    )
    return states, declared, title, why, examples


def _run_keys(record: Record, key: Key, releases: Sequence[str]) -> list[str]:
    """The releases, then the backend runs the record has for the block with one of them
    (`2.15.0/inductor`): what the fix did with the backend users run, beside eager's."""
    row = record.rows.get(key)
    backends = [k for k in row.outcomes if "/" in k and split_key(k)[0] in releases] if row else []
    return [*releases, *sorted(backends, key=key_order)]


def _sections(doc: Doc) -> tuple[str | None, str, dict[int, tuple[str, str]]]:
    """From the block's Markdown (parsed with the parser the examples are found with): the
    "Why this happens" section (or, on a page without one, the first section) as its title and
    Markdown, and the Markdown just above each fence and (for the last one of a section) below
    it, by the fence's line in the file."""
    from gbsite.examples.annotations import block_parser

    lines = doc.block.split("\n")
    tokens = block_parser().parse(doc.block)
    headings: list[tuple[int, int, int, str]] = []  # level, first line, line after, title
    leads: dict[int, tuple[str, str]] = {}
    after = 0  # the line after the last heading or fence
    fence: int | None = None  # the line of the last fence, until a heading

    def text(start: int, end: int) -> str:
        return "\n".join(lines[start:end]).strip()

    def close(end: int) -> None:
        if fence is not None:
            leads[fence] = (leads[fence][0], text(after, end))

    for n, t in enumerate(tokens):
        if t.map is None:
            continue
        if t.type == "heading_open":
            close(t.map[0])
            headings.append((int(t.tag[1:]), t.map[0], t.map[1], tokens[n + 1].content.strip()))
            after, fence = t.map[1], None
        elif t.type == "fence" and t.level == 0:
            fence = doc.block_line_of(0) + t.map[0]
            leads[fence] = (text(after, t.map[0]), "")
            after = t.map[1]
    close(len(lines))
    if not headings:
        return None, "", leads
    chosen = next((h for h in headings if h[3].lower() == WHY_TITLE.lower()), headings[0])
    level, _, start, title = chosen
    end = next(
        (h[1] for h in headings if h[1] >= start and h[0] <= level),
        len(lines),
    )
    return title, "\n".join(lines[start:end]).strip(), leads

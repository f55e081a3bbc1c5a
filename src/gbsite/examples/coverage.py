"""Coverage: the state of every id's page, derived from its Additional Information block.

    verified     a gb-repro and a gb-fix that ran as they promise, recorded for the release
    fixed        the gb-repro broke with an older release of the examples and compiles without
                 a break with this one: upgrading removes the break for code like it
    environment  reachable only with a CUDA device, several processes, another package or a newer
                 Python: the blocks carry `needs=` and are shown, not run
    internal     no user program reaches it; the page cites the torch file and function
    unraised     the registry keeps it, but nothing in torch raises it any more
    none         nothing yet

The last three are declared by a status block, a YAML fence that GitHub shows as it is:

    ```yaml gb-status
    status: internal
    source: torch/_dynamo/variables/builtin.py
    function: BuiltinVariable.call_self_handler
    reason: Why no user program reaches it, in a sentence or two.
    ```

`gbsite check` validates declarations against the page (reason and source present, blocks that
agree); `gbsite check --examples` validates them against the installed torch (torch_problems).
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from dataclasses import dataclass
from pathlib import Path

from gbsite.docs.files import Doc
from gbsite.errors import GbsiteError, Problem
from gbsite.examples import record as runs
from gbsite.examples.annotations import NEEDS_HELP, Block, blocks_of, scan, valid_needs
from gbsite.examples.record import Record
from gbsite.registry.model import GB_ID, Entry, Registry

STATES = ("verified", "fixed", "environment", "internal", "unraised", "none")
# What each state means to a reader: a title and a sentence, for the dashboard.
STATE_TEXT = {
    "verified": ("Verified", "A repro and a fix on the page were run and did what they say."),
    "fixed": (
        "Fixed by upgrading",
        "The page's repro breaks with an older torch and compiles without a break with this one.",
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
DECLARED = ("environment", "internal", "unraised")
STATUS_KIND = "gb-status"
STATUS_INFO = "yaml gb-status"
_FIELDS = {"status", "reason", "source", "function", "needs", "replaced-by"}
_REQUIRED = {
    "environment": ("reason", "needs", "source", "function"),
    "internal": ("reason", "source", "function"),
    "unraised": ("reason",),
}
_SOURCE = re.compile(r"torch/[\w./-]+\.py")
_FUNCTION = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


@dataclass(frozen=True, slots=True)
class Declaration:
    """A page's status block."""

    status: str  # environment, internal or unraised
    reason: str
    source: str | None  # a path inside the torch package, "torch/..."
    function: str | None  # the function or Class.method there that raises the break
    needs: str | None  # environment: cuda, distributed or package:NAME
    replaced_by: str | None  # unraised: the id that took its place, if one did
    path: Path
    line: int

    @property
    def cited(self) -> str | None:
        return f"{self.source} {self.function}" if self.source and self.function else None


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
class Page:
    """What a docs file says about its examples: its annotated blocks and its status block."""

    id: str
    blocks: tuple[Block, ...]
    declaration: Declaration | None
    paragraphs: tuple[str, ...] = ()  # its prose outside code, for the content figures

    @property
    def words(self) -> int:
        return sum(len(p.split()) for p in self.paragraphs)


def _declaration(
    doc: Doc, info: str, content: str, line: int, known: Container[str]
) -> Declaration:
    import yaml

    def problem(message: str, at: int = line) -> GbsiteError:
        return GbsiteError.at(doc.path, at, message)

    if info.split() != STATUS_INFO.split():
        raise problem(f"a status block's info string is `{STATUS_INFO}`, not `{info}`")
    try:
        data = yaml.safe_load(content)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = line + 1 + mark.line if mark is not None else line
        why = getattr(exc, "problem", exc)
        raise problem(f"the status block is not valid YAML: {why}", at) from None
    if not isinstance(data, dict):
        raise problem("the status block is YAML with `status:` and `reason:` fields")
    unknown = sorted(str(k) for k in data if k not in _FIELDS)
    if unknown:
        raise problem(
            f"unknown field `{unknown[0]}` in the status block "
            f"(fields: {', '.join(sorted(_FIELDS))})"
        )
    fields = {str(k): ("" if v is None else str(v).strip()) for k, v in data.items()}
    status = fields.get("status", "")
    if status not in DECLARED:
        raise problem(
            f"status `{status}`: a status block declares {', '.join(DECLARED)} "
            "(verified comes from the examples, none from their absence)"
        )
    for name in _REQUIRED[status]:
        if not fields.get(name):
            what = {
                "reason": "say in `reason:` why there is no run example",
                "source": "cite in `source:` the torch file that raises it (torch/...py)",
                "function": "name in `function:` the function there that raises it",
                "needs": f"say in `needs:` what it takes: {NEEDS_HELP}",
            }[name]
            raise problem(f"a `{status}` status block without `{name}`: {what}")
    source, function = fields.get("source") or None, fields.get("function") or None
    if source is not None and not _SOURCE.fullmatch(source):
        raise problem(f"`source: {source}` is a path in the torch package: torch/....py")
    if function is not None and not _FUNCTION.fullmatch(function):
        raise problem(f"`function: {function}` is a name such as Class.method")
    needs = fields.get("needs") or None
    if needs is not None and not valid_needs(needs):
        raise problem(f"`needs: {needs}`: {NEEDS_HELP}")
    replaced = fields.get("replaced-by") or None
    if replaced is not None and (not GB_ID.fullmatch(replaced) or replaced not in known):
        raise problem(f"`replaced-by: {replaced}` is not an id of the registry")
    return Declaration(status, fields["reason"], source, function, needs, replaced, doc.path, line)


def read_page(gb_id: str, doc: Doc, known: Container[str]) -> Page:
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
                declarations.append(_declaration(doc, fence.info, fence.content, line, known))
            except GbsiteError as exc:
                problems += exc.problems
    if len(declarations) > 1:
        problems.append(
            Problem("a second status block: a page has one state", doc.path, declarations[1].line)
        )
    declared = declarations[0] if declarations else None
    shown = [b for b in blocks if not b.runnable]
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
                "program reaches is verified (remove the status block) or environment",
                b.path,
                b.line,
            )
            for b in blocks
        ]
    if problems:
        raise GbsiteError(problems)
    return Page(gb_id, tuple(blocks), declared, tuple(scanned.paragraphs))


def page_coverage(
    page: Page | None, gb_id: str, record: Record, release: str, releases: tuple[str, ...] = ()
) -> PageCoverage:
    """The state of one id for an example release, from its page and the record of runs.
    `releases`: every example release, oldest first (a page is `fixed` in `release` when its
    repro broke with an older one)."""
    if page is None:
        return PageCoverage(gb_id, "none")
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
        for b in page.blocks
    )
    if page.declaration is not None:
        status = page.declaration.status
    elif {s.kind for s in states if s.verified} == {"gb-repro", "gb-fix"}:
        status = "verified"
    else:
        fixed = fixed_in(page, record, releases)
        since = fixed[0] if fixed is not None else None
        later = since is not None and release in releases
        fixed_here = later and releases.index(release) >= releases.index(str(since))
        status = "fixed" if fixed_here else "none"
    return PageCoverage(gb_id, status, states, page.declaration, page.words)


def fixed_in(
    page: Page, record: Record, releases: tuple[str, ...]
) -> tuple[str, tuple[str, ...]] | None:
    """The example release from which the page's repro no longer breaks, having broken with
    an older one (the release that removes the break for code like the example), and the
    releases it broke with."""
    for block in page.blocks:
        if block.kind != "gb-repro" or not block.runnable or block.key not in record.rows:
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


def repeated_paragraphs(pages: Iterable[Page], most: int = 2) -> dict[str, list[str]]:
    """Paragraphs (of more than a few words) found on more than `most` pages: boilerplate,
    which a page should replace with what is true of its own break."""
    where: dict[str, list[str]] = {}
    for page in pages:
        for text in set(page.paragraphs):
            if len(text.split()) > 8:
                where.setdefault(text, []).append(page.id)
    return {text: sorted(ids) for text, ids in where.items() if len(ids) > most}


def in_release(entry: Entry, labels: list[str], release: str) -> bool:
    """Whether the id is in that release's registry."""
    index = labels.index(release)
    if labels.index(entry.added) > index:
        return False
    return entry.removed is None or labels.index(entry.removed) > index


def registry_labels(releases: Iterable[str], labels: list[str]) -> dict[str, str]:
    """Each example release's registry label: the newest imported release not newer than it
    (2.14.1 -> 2.14.0). Releases older than every import are left out."""

    def key(release: str) -> tuple[int, ...]:
        return tuple(int(n) for n in re.findall(r"\d+", release))

    out: dict[str, str] = {}
    for release in releases:
        older = [label for label in labels if key(label) <= key(release)]
        if older:
            out[release] = max(older, key=key)
    return out


def read_pages(docs: dict[str, Doc], known: Container[str]) -> dict[str, Page]:
    """Every page with a block; all problems of all pages raise together. `known`: the
    registry's ids (its entries)."""
    pages: dict[str, Page] = {}
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
    pages: dict[str, Page],
    record: Record,
    release: str,
    releases: tuple[str, ...],
) -> list[PageCoverage]:
    """The state of every id of an example release, by id."""
    labels = registry.labels
    label = registry_labels([release], labels)[release]
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


# ---- against the installed torch ---------------------------------------------------------------


class TorchSource:
    """The installed torch package's Python source, searched for graph-break type strings."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder  # the package folder, .../site-packages/torch
        self._strings: dict[Path, set[str]] = {}
        self._texts: dict[Path, str] = {}
        self._all: list[Path] = []

    def path(self, source: str) -> Path:
        return self.folder.joinpath(*source.split("/")[1:])

    def text(self, path: Path) -> str:
        if path not in self._texts:
            self._texts[path] = path.read_text(encoding="utf-8", errors="replace")
        return self._texts[path]

    def strings(self, path: Path) -> set[str]:
        """The string literals of a file as Python sees them: implicitly concatenated pieces
        joined, f-strings with their `{placeholders}` as written."""
        if path not in self._strings:
            import ast

            found: set[str] = set()
            try:
                tree = ast.parse(self.text(path))
            except SyntaxError:
                tree = ast.Module(body=[], type_ignores=[])
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.add(node.value)
                elif isinstance(node, ast.JoinedStr):
                    found.add(
                        "".join(
                            str(v.value)
                            if isinstance(v, ast.Constant)
                            else "{" + ast.unparse(v.value) + "}"  # type: ignore[attr-defined]
                            for v in node.values
                        )
                    )
            self._strings[path] = found
        return self._strings[path]

    def mentions(self, path: Path, gb_types: Iterable[str]) -> bool:
        text = self.text(path)
        return any(t in text or t in self.strings(path) for t in gb_types)

    def find(self, gb_types: Iterable[str]) -> Path | None:
        """A file of the package that has one of these graph-break types as a string literal
        of its own, if any: quoted in the text, or as the joined value of implicitly
        concatenated literals in the files that raise graph breaks (gb_type=...). A type that
        is only part of a longer string (`functools.wraps` in a docstring) does not count."""
        if not self._all:
            self._all = sorted(self.folder.rglob("*.py"))
        wanted = set(gb_types)
        quoted = [q + t + q for t in wanted for q in ('"', "'")]
        for path in self._all:
            text = self.text(path)
            if any(t in text for t in wanted) and any(q in text for q in quoted):
                return path
        for path in self._all:
            if "gb_type" in self.text(path) and wanted & self.strings(path):
                return path
        return None


def reported_types(entry: Entry, labels: list[str], version: str) -> set[str]:
    """The graph-break type PyTorch reported for this id in the release installed: the text
    current then (a text the id never reported in a release, such as a wording another id now
    uses, says nothing about this id). For a torch that is no imported release, every type the
    id ever reported."""
    reported = [r for r in (*entry.history, *entry.replaced) if r.current_since is not None]
    release = runs.release_of(version)
    label = registry_labels([release], labels).get(release)
    if label is not None:
        index = labels.index(label)
        then = [r for r in reported if labels.index(str(r.current_since)) <= index]
        if then:
            newest = max(then, key=lambda r: labels.index(str(r.current_since)))
            return {newest.text.gb_type}
    return {r.text.gb_type for r in reported}


def torch_problems(
    pages: dict[str, Page], registry: Registry, torch: TorchSource, version: str
) -> list[Problem]:
    """Declarations that the installed torch contradicts: a cited file that does not exist or
    does not raise the break, or an `unraised` break that torch does raise."""
    problems: list[Problem] = []
    release = runs.release_of(version)
    label = registry_labels([release], registry.labels).get(release)
    for gb_id, page in sorted(pages.items()):
        d = page.declaration
        if d is None or gb_id not in registry.entries:
            continue
        entry = registry.entries[gb_id]
        if label is not None and not in_release(entry, registry.labels, label):
            continue  # not an id of this torch: nothing to hold its declaration against
        gb_types = {r.text.gb_type for r in (*entry.history, *entry.replaced)}
        if d.source is not None:
            path = torch.path(d.source)
            if not path.is_file():
                problems.append(
                    Problem(
                        f"`source: {d.source}` does not exist in torch {version}", d.path, d.line
                    )
                )
                continue
            if not torch.mentions(path, gb_types):
                problems.append(
                    Problem(
                        f"`source: {d.source}` does not contain the graph-break type of "
                        f"{gb_id} ({entry.current.gb_type!r}) in torch {version}: cite the "
                        "file that raises it",
                        d.path,
                        d.line,
                    )
                )
            elif d.function and not re.search(
                rf"\bdef {re.escape(d.function.rsplit('.', 1)[-1])}\b", torch.text(path)
            ):
                problems.append(
                    Problem(
                        f"`function: {d.function}` is not defined in {d.source} (torch {version})",
                        d.path,
                        d.line,
                    )
                )
        if d.status == "unraised":
            found = torch.find(reported_types(entry, registry.labels, version))
            if found is not None:
                rel = "torch/" + found.relative_to(torch.folder).as_posix()
                problems.append(
                    Problem(
                        f"declared unraised, but torch {version} still has the graph-break type "
                        f"of {gb_id} in {rel}: find where it is raised",
                        d.path,
                        d.line,
                    )
                )
    return problems

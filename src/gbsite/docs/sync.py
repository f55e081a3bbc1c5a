"""`gbsite sync` and `gbsite check`: bring docs/gb/ in line with the registry, losing nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from gbsite import templating, urls
from gbsite.config import Config
from gbsite.docs import files as docs
from gbsite.docs import links
from gbsite.errors import GbsiteError, Problem
from gbsite.fs.files import read_input, write_atomic
from gbsite.registry.model import Registry
from gbsite.registry.views import EntryView, entry_views

DOC_TEMPLATE = "doc.md.j2"


@dataclass
class Plan:
    """Files sync would write, and what stops it or deserves a mention."""

    writes: dict[Path, str] = field(default_factory=dict)
    created: set[Path] = field(default_factory=set)
    problems: list[Problem] = field(default_factory=list)  # sync refuses to write anything
    orphans: list[Problem] = field(default_factory=list)  # left alone
    mentions: list[Problem] = field(default_factory=list)  # unknown ids in blocks, links
    unchanged: int = 0
    blocks: dict[str, docs.Doc] = field(default_factory=dict)  # id -> parsed doc


def page_url(cfg: Config, view: EntryView) -> str:
    return urls.absolute(cfg, urls.entry(view.id))


def render_doc(
    env: jinja2.Environment,
    cfg: Config,
    view: EntryView,
    block: str,
    current: docs.Doc | None = None,
) -> str:
    """The docs file of `view` with `block`; `current`: the file as it is (read with its lines
    outside the block), whose block `block` is."""
    body = templating.render(
        env,
        DOC_TEMPLATE,
        cfg.templates_dir,
        v=view,
        block=block,
        start_marker=docs.START_MARKER,
        end_marker=docs.END_MARKER,
        page_url=page_url(cfg, view),
    )
    # A file that holds this body below its header line: the lines outside its block are the
    # body's, and parsing the body again was a tenth of `gbsite check`.
    if (
        current is not None
        and current.checksum is not None
        and current.text.partition("\n")[2] == body
    ):
        return docs.header(view.id, docs.checksum_of(current.outside)) + body
    generated = docs.parse(Path(DOC_TEMPLATE), body)
    if generated.block != block:  # the template must carry the block through untouched
        raise GbsiteError.at(
            cfg.templates_dir / DOC_TEMPLATE,
            None,
            "template must output start_marker, block and end_marker verbatim",
        )
    return docs.header(view.id, docs.checksum_of(generated.outside)) + body


def hand_edit(cfg: Config, view: EntryView, doc: docs.Doc) -> Problem | None:
    """Text a person wrote outside the block of `doc`, which the site leaves out (the build
    warns; sync refuses to overwrite it). Only a file whose generated part no longer matches
    its checksum is compared with what sync would write, so this costs nothing for the rest."""
    if docs.checksum_of(doc.outside) == doc.checksum:
        return None
    env = templating.environment(cfg.templates_dir, html=False)
    expected = docs.parse(doc.path, render_doc(env, cfg, view, doc.block))
    problem = docs.hand_edit_problem(doc, expected)
    if problem is None:
        return None
    return Problem(f"not on the site: {problem.message}", problem.path, problem.line)


def plan(cfg: Config, registry: Registry) -> Plan:
    env = templating.environment(cfg.templates_dir, html=False)
    result = Plan()
    files, unexpected = docs.scan(cfg.docs_dir)
    result.orphans.extend(unexpected)
    for gb_id, path in files.items():
        if gb_id not in registry.entries:
            result.orphans.append(
                Problem(
                    f"{gb_id} is not in the registry, so this file is left alone (never deleted); "
                    "if the id is new in PyTorch, import that registry first",
                    path,
                )
            )
    for view in entry_views(registry):
        path = cfg.docs_dir / f"{view.slug}.md"
        doc = None
        if view.id in files:
            try:
                doc = docs.read(path)
            except GbsiteError as exc:
                result.problems.extend(exc.problems)
                continue
            result.blocks[view.id] = doc
        new = render_doc(env, cfg, view, doc.block if doc else docs.EMPTY_BLOCK, doc)
        if doc is None:
            result.writes[path] = new
            result.created.add(path)
            continue
        broken = links.broken(doc, registry.entries)
        result.mentions += [links.problem(doc, i, line, cfg.docs_dir) for i, line in broken]
        for mention, line in docs.mentions(doc):
            # A link's target is a mention too (`gb9998.md`): reported once, as the link.
            if mention not in registry.entries and (mention, line) not in broken:
                result.mentions.append(
                    Problem(
                        f"{mention} is not a graph break in the registry; check the id", path, line
                    )
                )
        if new == doc.text:
            result.unchanged += 1
            continue
        # A generated part that no longer matches its checksum (or lost the line recording it)
        # may hold a person's text: it must already be what we would write.
        if docs.checksum_of(doc.outside) != doc.checksum:
            problem = docs.hand_edit_problem(doc, docs.parse(path, new))
            if problem is not None:
                result.problems.append(problem)
                continue
        result.writes[path] = new
    return result


def remove_stale_temp_files(docs_dir: Path) -> None:
    """Temp files left by a killed sync are ours alone; the files they were for are intact."""
    if docs_dir.is_dir():
        for path in docs_dir.iterdir():
            if docs.is_temp_file(path.name):
                path.unlink(missing_ok=True)


def apply(docs_dir: Path, result: Plan) -> list[Path]:
    """Write the plan's files: into a copy of `docs_dir` that is then swapped in whole, so an
    interrupted sync leaves every file as it was or every file new (fs/transaction.py). Call it
    inside transaction.writing(docs_dir)."""
    from gbsite.fs import transaction

    changed = {}
    for path, text in result.writes.items():
        data = text.encode("utf-8")
        try:
            if read_input(path) == data:
                continue
        except FileNotFoundError:
            pass
        changed[path] = data
    if not changed:
        return []
    with transaction.replacing(docs_dir) as stage:
        for path, data in changed.items():
            write_atomic(transaction.staged_path(docs_dir, stage, path), data)
    return list(changed)


def check_problems(cfg: Config, result: Plan) -> list[Problem]:
    """Everything check reports, in file order."""
    problems = list(result.problems) + list(result.orphans) + list(result.mentions)
    for path in result.writes:
        rel = path.relative_to(cfg.root).as_posix()
        if path in result.created:
            message = "missing; run `gbsite sync` to create it"
        else:
            message = "out of date with the registry; run `gbsite sync` and commit the result"
        problems.append(Problem(message, cfg.root / rel))
    return sorted(problems, key=lambda p: (str(p.path), p.line or 0))

"""The build's load phase: the registry, the docs of docs/gb/ and the record of examples,
validated, from the bytes the fingerprint read (inputs.py holds the result). With a BuildCache
(serve), only files whose bytes changed since the last build are parsed again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gbsite.errors import GbsiteError, Problem
from gbsite.site.cache import KeptDoc, KeptPage, Scanned, Shared
from gbsite.site.inputs import Examples, Inputs

if TYPE_CHECKING:
    from gbsite.config import Config
    from gbsite.docs.files import Doc
    from gbsite.examples.pages import Lifecycles, PageExamples
    from gbsite.registry.model import Registry
    from gbsite.site.cache import BuildCache
    from gbsite.site.fingerprint import ReadInputs


def load(cfg: Config, snapshot: ReadInputs, cache: BuildCache, warnings: list[Problem]) -> Inputs:
    from gbsite import releases as gb_releases
    from gbsite.examples import record
    from gbsite.examples.pages import Lifecycles
    from gbsite.registry import store
    from gbsite.registry.views import entry_views
    from gbsite.search import adjacent, legacy

    if cache.shared is None:  # else: the registry, record and settings are those of last time
        registry = store.load(cfg.registry_dir, read=snapshot.read)
        if not registry.labels:  # no release for the pages and the dashboard to speak of
            raise GbsiteError(
                f"{cfg.registry_dir}: no release imported yet: import one first "
                "(gbsite release add R, or gbsite import SOURCE)"
            )
        # A release of the examples must be imported: its pages would say "verified 0" else.
        unimported = gb_releases.problems(
            cfg.file, cfg.example_releases, registry.labels, read=snapshot.read
        )
        if unimported:
            raise GbsiteError(unimported)
        runs = record.read(cfg.verified_file)  # read even when unused: a broken one is an error
        older = tuple(legacy.load(cfg.registry_dir / legacy.FILE, read=snapshot.read))
        beside = tuple(adjacent.load(cfg.registry_dir / adjacent.FILE, read=snapshot.read))
        cache.shared = Shared(registry, entry_views(registry), runs, older, beside)
    registry, views, runs, older, beside = cache.shared
    docs = _load_docs(cfg, snapshot, registry, cache, warnings)
    pages = _read_pages(docs, Lifecycles.of(registry, cfg.example_releases), cache)
    releases = tuple(gb_releases.registry_labels(cfg.example_releases, registry.labels))
    examples = Examples(pages, runs, releases or (registry.labels[-1],))
    return Inputs(registry, views, docs, examples, older, beside)


def _load_docs(
    cfg: Config,
    snapshot: ReadInputs,
    registry: Registry,
    cache: BuildCache,
    warnings: list[Problem],
) -> dict[str, Doc]:
    """Every docs file of an id the registry has; all problems of all files raise together.
    The site shows only a file's block: text a person wrote elsewhere in it is a warning."""
    from gbsite.docs import files, sync

    listed = snapshot.listed[-1]  # the docs files the fingerprint found
    if cache.scanned is None or cache.scanned.listed != listed:
        cache.scanned = Scanned(listed, *files.scan(cfg.docs_dir))
    _, found, unexpected = cache.scanned
    warnings.extend(unexpected)
    problems: list[Problem] = []
    docs: dict[str, Doc] = {}
    views = {v.id: v for v in cache.shared.views} if cache.shared else {}
    for gb_id, path in found.items():
        if gb_id not in registry.entries:
            warnings.append(Problem(f"{gb_id} is not in the registry; not built", path))
            continue
        data = snapshot.read(path)
        kept = cache.docs.get(gb_id)
        if kept is None or kept.data != data:
            try:
                doc = files.read(path, read=snapshot.read)
            except GbsiteError as exc:
                problems.extend(exc.problems)
                continue
            kept = cache.docs[gb_id] = KeptDoc(data, doc, sync.hand_edit(cfg, views[gb_id], doc))
        docs[gb_id] = kept.doc
        if kept.hand_edit is not None:
            warnings.append(kept.hand_edit)
    if problems:
        raise GbsiteError(problems)
    return docs


def _read_pages(
    docs: dict[str, Doc], lifecycles: Lifecycles, cache: BuildCache
) -> dict[str, PageExamples]:
    """Each docs file's annotated blocks and status blocks (a malformed one stops the build,
    with its file and line, as `gbsite check` says it); parsed again only when the file's block
    changed."""
    from gbsite.examples import pages as examples

    pages: dict[str, PageExamples] = {}
    fresh = {}
    for gb_id, doc in docs.items():
        kept = cache.pages.get(gb_id)
        if kept is not None and kept.block == doc.block:
            if kept.examples is not None:
                pages[gb_id] = kept.examples
        else:
            fresh[gb_id] = doc
    read = examples.read_pages(fresh, lifecycles)  # raises every problem at once
    for gb_id, doc in fresh.items():
        cache.pages[gb_id] = KeptPage(doc.block, read.get(gb_id))
    pages.update(read)
    return dict(sorted(pages.items()))

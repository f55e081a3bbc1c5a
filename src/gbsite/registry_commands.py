"""The registry's commands: import, release add, release resolve and export-json.

They bring PyTorch's graph_break_registry.json into registry/ (a release also into gbsite.toml's
releases of the examples and docs/gb/) and out again: the parsed arguments in, a summary
printed, an exit status out. Bad input raises GbsiteError, which the CLI prints. The commands of
docs/gb/ and the site are in commands.py."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from gbsite.config import Config
from gbsite.errors import GbsiteError, json_printable
from gbsite.fs import transaction
from gbsite.fs.files import read_input, read_input_text
from gbsite.registry import store as registry
from gbsite.report import say

if TYPE_CHECKING:
    from gbsite.registry import fetch
    from gbsite.registry.importer import UpstreamSnapshot
    from gbsite.registry.resolve import Outcome
    from gbsite.registry.torchtree import TorchTree


def import_snapshot(cfg: Config, args: argparse.Namespace) -> int:
    from gbsite.registry import importer

    snapshot = importer.read_source(args.source, _limits(args))
    tree = _torch_tree(args, snapshot)
    # All or nothing: the new registry/ is staged beside the old one and swapped in whole.
    with transaction.writing(cfg.registry_dir, "import"):
        reg = registry.load(cfg.registry_dir, must_exist=False)
        new, result = importer.import_snapshot(reg, snapshot, args.label)
        if result.skipped_reason:
            say(f"{args.source}: {result.skipped_reason}")
            return 0
        outcome = None
        if tree is not None:
            new, outcome = importer.with_resolution(new, result.label, snapshot.texts, tree)
        with transaction.replacing(cfg.registry_dir) as stage:
            written = registry.save(new, stage, snapshots={result.label: snapshot.data})
    print(
        f"imported {result.label}: {len(snapshot.texts)} ids "
        f"({len(result.added)} new, {len(result.changed)} changed, {len(result.removed)} removed); "
        f"{len(written)} files written"
    )
    if outcome is not None:
        _print_resolution(result.label, outcome, verbose=args.verbose)
    for title, ids in (
        ("new", result.added),
        ("changed", result.changed),
        ("removed", result.removed),
    ):
        if ids and args.verbose:
            print(f"  {title}: {' '.join(ids)}")
    return 0


def _torch_tree(args: argparse.Namespace, snapshot: UpstreamSnapshot) -> TorchTree | None:
    """Where the torch source of an imported snapshot is: `--torch-source DIR`, else the wheel
    it came from; None for a JSON file or URL without --torch-source."""
    from gbsite.registry import torchtree

    if getattr(args, "torch_source", None) is not None:
        return torchtree.folder_tree(args.torch_source)
    if snapshot.wheel:
        tree = torchtree.WheelTree(Path(snapshot.origin), snapshot.wheel)
        return tree if tree.members else None  # a wheel of the registry alone
    return None


def _print_resolution(label: str, outcome: Outcome, *, verbose: bool) -> None:
    from gbsite.report import say  # each line quotes torch's source: kept one line

    say(
        f"resolved {len(outcome.resolved)} field(s) of {label} that name a Python value, from "
        f"torch {outcome.torch}'s source; {len(outcome.unresolved)} left as written"
    )
    for r in outcome.resolved:
        say(f"  {r.id} {r.field} {r.name}: {r.source}")
    for notice in dict.fromkeys(outcome.skipped):  # resolve.py and sites.py may both tell one
        say(f"  skipped: {notice}")
    for w, why in outcome.unresolved if verbose else ():
        say(f"  left: {w.id} {w.field} {w.name}: {why}")


def release_resolve(cfg: Config, args: argparse.Namespace) -> int:
    """`gbsite release resolve LABEL`: the fields of an imported snapshot that are Python
    names, resolved from that release's torch source into registry/resolved/LABEL.yaml."""
    import gzip

    from gbsite.registry import importer, torchtree

    label = args.label
    with transaction.writing(cfg.registry_dir, "release resolve"):
        reg = registry.load(cfg.registry_dir)
        if label not in reg.labels:
            raise GbsiteError(
                f"{label} is not an imported snapshot ({', '.join(reg.labels)} in sources.yaml)"
            )
        path = registry.snapshot_path(cfg.registry_dir, label)
        try:
            data = gzip.decompress(read_input(path))
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise GbsiteError.at(path, None, f"cannot read the snapshot: {exc}") from None
        texts = importer.parse_registry_json(path, data)
        if args.torch_source is not None:
            tree: TorchTree = torchtree.folder_tree(args.torch_source)
        else:
            tree = _cached_tree(cfg, label)
        new, outcome = importer.with_resolution(reg, label, texts, tree)
        _print_resolution(label, outcome, verbose=args.verbose)
        with transaction.replacing(cfg.registry_dir) as stage:
            written = registry.save(new, stage)
    print(f"release resolve {label}: {len(written)} file(s) written")
    return 0


def _cached_tree(cfg: Config, label: str) -> TorchTree:
    """The torch source of release `label` without --torch-source: gbsite's environment of a
    release of the examples judged with that registry (`check --examples --torch R` made it),
    or this Python's torch when it is that release."""
    import importlib.util

    from gbsite import releases
    from gbsite.examples import torchenv
    from gbsite.registry import torchtree

    want = releases.version(label)
    folders = [
        torchenv.env_dir(r)
        for r in reversed(cfg.example_releases)
        if releases.registry_label(r, [label]) == label
    ]
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.origin is not None:
        folders.append(Path(spec.origin).parent)
    for folder in folders:
        if not folder.is_dir():
            continue
        try:
            tree = torchtree.folder_tree(folder)
        except GbsiteError:
            continue
        have = releases.version(tree.version)
        if want is not None and have is not None and have[:2] == want[:2] and have >= want:
            return tree
    raise GbsiteError(
        f"no torch {label} source found here (gbsite's torch environments, this Python's torch): "
        f"pass --torch-source DIR, a torch {label} package folder or an environment with it"
    )


def _limits(args: argparse.Namespace) -> fetch.Limits:
    from gbsite.registry import fetch

    return fetch.Limits(
        download=int(args.max_download * fetch.MB),
        seconds=args.download_timeout,
        expanded=int(args.max_json * fetch.MB),
    )


class _ReleaseChange(NamedTuple):
    """What `release add R` changes in gbsite.toml, as the file is now."""

    cfg: Config  # the settings the file holds now
    text: str  # its text now
    new_text: str | None  # with R added to [examples] releases; None: it lists R already
    imported: bool  # listed and imported: what is left to do, if anything, is the sync


def _release_change(cfg: Config, release: str, labels: Sequence[str]) -> _ReleaseChange:
    """Read gbsite.toml and decide the change, refusing what cannot be done. `labels`: the
    imported snapshots."""
    from gbsite import config, releases

    text = read_input_text(cfg.file)
    now = config.load(cfg.root, text=text)
    listed = now.example_releases
    if release in listed:
        # Listed but not imported (listed by hand, or an add cut short): import it only.
        return _ReleaseChange(now, text, None, releases.registry_label(release, labels) is not None)
    if releases.order(release) < releases.order(listed[-1]):
        raise GbsiteError(
            f"{release} is older than {listed[-1]}, the newest release of the examples: "
            "releases are added oldest first"
        )
    new_text = releases.with_release(text, release, listed)
    if config.load(cfg.root, text=new_text).example_releases != (*listed, release):
        raise GbsiteError.at(
            cfg.file,
            None,
            f"cannot add {release} to [examples] releases in this file's layout; add it "
            f"by hand, then run gbsite release add {release}",
        )
    return _ReleaseChange(now, text, new_text, False)


def release_add(cfg: Config, args: argparse.Namespace) -> int:
    """`gbsite release add R [SOURCE]`: import release R's registry, add R to gbsite.toml's
    [examples] releases and sync docs/gb/. gbsite.toml is read, changed and written under the
    lock of registry/, so two adds take turns and neither loses the other's release. All or
    nothing for registry/ and gbsite.toml: everything that can be refused is, before the first
    write; gbsite.toml is written while the new registry/ is staged, and put back if the swap
    fails. An add killed after the swap left docs/gb/ as it was: run again, it syncs them. The
    examples' outcomes for R are left to CI (`gbsite check --examples --torch R --changed`)."""
    import tempfile

    from gbsite import releases
    from gbsite.docs import sync
    from gbsite.fs.files import write_atomic
    from gbsite.registry import fetch, importer

    release = args.release
    if not releases.is_release(release):
        raise GbsiteError(f"{release[:40]!r} is not a torch release such as 2.16.0")
    # A first look, so that a refused add downloads nothing; the look that decides is taken
    # again under the lock, where no other gbsite process changes the files.
    first = _release_change(cfg, release, registry.load(cfg.registry_dir, must_exist=False).labels)
    snapshot: UpstreamSnapshot | None = None
    tree = None
    if not first.imported:
        limits = _limits(args)
        if args.source:
            snapshot = importer.read_source(args.source, limits)
        else:
            with tempfile.TemporaryDirectory(prefix="gbsite-wheel-") as folder:
                print(f"downloading the torch {release} wheel with pip (about 140 MB)")
                wheel = fetch.torch_wheel(release, Path(folder), limits)
                snapshot = importer.read_source(str(wheel), limits)
        named = snapshot.label  # from a wheel's or file's name
        if named is not None and releases.version(named) is not None and named != release:
            raise GbsiteError(f"{args.source}: this is torch {named}, not {release}")
        tree = _torch_tree(args, snapshot)
    with (
        transaction.writing(cfg.registry_dir, "release add"),
        transaction.writing(cfg.docs_dir, "release add"),
    ):
        reg = registry.load(cfg.registry_dir, must_exist=False)
        change = _release_change(cfg, release, reg.labels)
        cfg = change.cfg
        new, result, outcome = reg, None, None
        if not change.imported:
            if snapshot is None:  # imported when first looked, and no more
                raise GbsiteError(
                    f"registry/ changed while this ran; run gbsite release add {release} again"
                )
            new, result = importer.import_snapshot(reg, snapshot, release)
            if tree is not None and not result.skipped_reason:
                new, outcome = importer.with_resolution(new, release, snapshot.texts, tree)
        planned = sync.plan(cfg, new)  # docs that cannot be synced stop it before any write
        if planned.problems:
            raise GbsiteError(planned.problems)
        if change.imported and not planned.writes:
            raise GbsiteError.at(
                cfg.file,
                releases.line_of(change.text, release),
                f"{release} is a release of the examples already, and imported",
            )
        if result is not None:
            wrote_toml = False
            try:
                with transaction.replacing(cfg.registry_dir) as stage:
                    if snapshot is not None and not result.skipped_reason:
                        registry.save(new, stage, snapshots={release: snapshot.data})
                    if change.new_text is not None:
                        write_atomic(cfg.file, change.new_text.encode("utf-8"))  # then the swap
                        wrote_toml = True
            except BaseException:
                if wrote_toml:
                    write_atomic(cfg.file, change.text.encode("utf-8"))
                raise
        sync.remove_stale_temp_files(cfg.docs_dir)
        written = sync.apply(cfg.docs_dir, planned)
    if result is None:
        what = "imported already; an add cut short is finished"
    elif result.skipped_reason:
        what = result.skipped_reason
    else:
        what = (
            f"{len(snapshot.texts) if snapshot else 0} ids ({len(result.added)} new, "
            f"{len(result.changed)} changed, {len(result.removed)} removed)"
        )
    say(f"release add {release}: registry: {what}")
    print(
        f"  gbsite.toml: [examples] releases = {', '.join((*cfg.example_releases, release))}"
        if change.new_text is not None
        else f"  gbsite.toml lists {release} already"
    )
    print(f"  docs/gb: {len(written)} written ({len(planned.created)} new)")
    if outcome is not None:
        _print_resolution(release, outcome, verbose=False)
    print(
        f"  next: commit; CI records what the examples do with torch {release} "
        f"(gbsite check --examples --torch {release} --changed)"
    )
    return 0


def export_json(cfg: Config, args: argparse.Namespace) -> int:
    from gbsite.fs.files import write_atomic
    from gbsite.registry import importer

    text = importer.dumps_upstream(registry.load(cfg.registry_dir))
    if args.output in (None, "-"):
        # What a terminal may show: the bidi controls, C1 and DEL as `\uXXXX`, the same JSON to
        # a tool. A file (-o) keeps PyTorch's own formatting, byte for byte.
        sys.stdout.write(json_printable(text))
    elif Path(args.output).is_dir():
        raise GbsiteError(f"{args.output}: is a folder; name the file to write (-o FILE)")
    else:
        write_atomic(Path(args.output), text.encode("utf-8"))
    return 0

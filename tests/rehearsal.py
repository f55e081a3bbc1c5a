"""A release and a daily sync rehearsed in a copy of the repository, before either happens.

    python tests/rehearsal.py DIR     # DIR: a new folder
    cd DIR && PYTHONPATH=$PWD/src python -m pytest     # the copy's suite, with the copy's code

The copy gets a made-up next release (`gbsite release add` of the newest snapshot with one id
more and one text reworded), then the next day's snapshot of main (an id new on main, a text
changed on a page with examples, an id gone whose page has examples), each followed by `sync`
and `check`, as the maintainers' loops run them (DESIGN.md). Every test that hard-codes what a
release or a sync changes then fails in the copy, months before a real release would fail it.

tests/test_living.py makes the same changes and runs the copy's repo_data tests (not browser or
torch) on every run; .github/workflows/rehearsal.yml runs this script and the copy's whole suite,
browser tests included, every week.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbsite.registry.model import Registry

REPO = Path(__file__).resolve().parent.parent
# What lies beside the project's files and is no part of it: at its top (src/gbsite/site is
# code, not a built site), and anywhere.
NOT_COPIED_AT_TOP = (".git", "site")  # and .venv, .venv-ci
NOT_COPIED = ("__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")
Snapshot = dict[str, list[dict[str, object]]]


def git_files() -> list[str] | None:
    """The repository's files as git lists them (tracked ones, and new ones git does not
    ignore), or None without git."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
    )
    if listed.returncode != 0:
        return None
    return [name for name in listed.stdout.decode().split("\0") if name]


def copy_repository(target: Path, *, use_git: bool = True) -> Path:
    """git's list of the repository's files (git_files) in `target`; without git (or `use_git`
    false), its folder minus what is not the project's."""
    listed = git_files() if use_git else None
    if listed is not None:
        for name in listed:
            source = REPO / name
            if source.is_file():  # a tracked file deleted in the working tree is gone
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
    else:
        shutil.copytree(REPO, target, ignore=not_copied)
    return target


def not_copied(folder: str, names: list[str]) -> list[str]:
    top = Path(folder) == REPO
    return [
        n
        for n in names
        if n in NOT_COPIED
        or n.endswith(".egg-info")
        or (top and (n in NOT_COPIED_AT_TOP or n.startswith(".venv")))
    ]


def environment(root: Path, **extra: str) -> dict[str, str]:
    """The environment of a command in the copy: the copy's code, not the installed one."""
    return {**os.environ, "PYTHONPATH": str(root / "src"), **extra}


def gbsite(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A gbsite command in the copy, with the copy's code."""
    return subprocess.run(
        [sys.executable, "-m", "gbsite", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=environment(root, **env),
        timeout=600,
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def registry(root: Path) -> Registry:
    """The copy's registry, as its files say now (load it again after a command changed it)."""
    from gbsite.registry import store

    return store.load(root / "registry")


def newest_snapshot(root: Path, reg: Registry) -> Snapshot:
    path = root / "registry" / "snapshots" / f"{reg.labels[-1]}.json.gz"
    data: Snapshot = json.loads(gzip.decompress(path.read_bytes()))
    return data


def free_id(reg: Registry, data: Snapshot, *, after: str = "GB0000") -> str:
    """The first id after `after` that neither the registry nor `data` has (not the highest
    free one, which the tests use as an id the registry lacks)."""
    known = set(reg.entries) | set(data)
    start = int(after[2:]) + 1
    return next(f"GB{n:04d}" for n in range(start, 9999) if f"GB{n:04d}" not in known)


def pages_with_examples(root: Path, data: Snapshot) -> list[str]:
    """Current ids whose page has contributed text, by id: an import must keep it."""
    from gbsite.docs import files as docs

    return [
        gb_id
        for gb_id in sorted(data)
        if docs.read(root / "docs" / "gb" / f"{gb_id.lower()}.md").has_content
    ]


def next_release(root: Path, reg: Registry) -> str:
    """A release newer than any imported or listed for the examples: the minor after the newest
    (once a real 2.16.0 is added, the made-up one is 2.17.0)."""
    from gbsite import config, releases

    listed = [*reg.labels, *config.load(root).example_releases]
    known = [v for label in listed if (v := releases.version(label)) is not None]
    major, minor = max(known)[:2]
    return f"{major}.{minor + 1}.0"


def next_sync_date(reg: Registry) -> date:
    """A day after today and after every dated snapshot imported: one no daily sync has taken
    yet."""
    from gbsite import releases

    dated = [date(*d) for label in reg.labels if (d := releases.date(label)) is not None]
    return max([date.today(), *dated]) + timedelta(days=1)


def next_sync(reg: Registry) -> str:
    """A label of main that no daily sync has taken yet (next_sync_date)."""
    return f"main@{next_sync_date(reg)}"


@dataclass
class Release:
    """A made-up release written beside the copy, not yet added."""

    name: str  # 2.17.0
    source: Path  # its registry, as PyTorch ships it
    data: Snapshot
    new: str  # an id only it has
    changed: str  # an id whose explanation it rewords


def made_up_release(root: Path, folder: Path) -> Release:
    reg = registry(root)
    name = next_release(root, reg)
    data = newest_snapshot(root, reg)
    new = free_id(reg, data)
    changed = next(iter(data))
    data[new] = [
        {"Gb_type": "A break new in this release", "Context": "", "Explanation": "", "Hints": []}
    ]
    data[changed][0]["Explanation"] = str(data[changed][0]["Explanation"]) + " Reworded."
    source = folder / f"torch-{name}.json"
    source.write_text(json.dumps(data, indent=2))
    return Release(name, source, data, new, changed)


@dataclass
class Sync:
    """The next day's snapshot of main after a release, written beside the copy."""

    label: str
    source: Path
    on_main: str  # an id new on main
    reworded: str  # a page with examples whose text changed
    removed: str  # a page with examples whose id is gone


def next_day_of_main(root: Path, release: Release) -> Sync:
    """The release's text changed again, an id new on main, a text changed on a page with
    examples and an id gone whose page has examples, as the daily sync has."""
    reg = registry(root)  # the release added
    data = json.loads(json.dumps(release.data))
    data[release.changed][0]["Explanation"] = (
        str(data[release.changed][0]["Explanation"]) + " Again."
    )
    reworded, *_, removed = pages_with_examples(root, data)
    on_main = free_id(reg, data, after=release.new)
    data[on_main] = [{"Gb_type": "New on main", "Context": "", "Explanation": "", "Hints": []}]
    data[reworded][0]["Explanation"] = str(data[reworded][0]["Explanation"]) + " Clearer."
    del data[removed]
    source = release.source.with_name("graph_break_registry.json")
    source.write_text(json.dumps(data, indent=2))
    label = ok(gbsite(root, "ci", "sync-label", "--date", str(next_sync_date(reg)))).strip()
    return Sync(label, source, on_main, reworded, removed)


def add_release(root: Path, release: Release, **env: str) -> str:
    """`gbsite release add` of the made-up release, then `check`; what the add printed."""
    out = ok(gbsite(root, "release", "add", release.name, str(release.source), **env))
    ok(gbsite(root, "check", **env))
    return out


def import_sync(root: Path, sync: Sync, **env: str) -> str:
    """The daily sync's `import` of the snapshot of main, `sync` and `check`; what the import
    printed (--verbose: each id new, changed or removed)."""
    out = ok(gbsite(root, "import", str(sync.source), "--label", sync.label, "--verbose", **env))
    ok(gbsite(root, "sync", **env))
    ok(gbsite(root, "check", **env))
    return out


def rehearse(target: Path) -> tuple[Release, Sync]:
    """The copy in `target`, with the release added and the sync after it imported."""
    root = copy_repository(target)
    outside = target.parent / f".{target.name}-upstream"  # what PyTorch ships, not in the copy
    outside.mkdir()
    try:
        release = made_up_release(root, outside)
        add_release(root, release)
        sync = next_day_of_main(root, release)
        import_sync(root, sync)
    finally:
        shutil.rmtree(outside)
    return release, sync


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("target", type=Path, help="a new folder for the copy")
    args = parser.parse_args(argv)
    target = args.target.resolve()
    if target.exists():
        print(f"rehearsal: {target} exists: give a new folder", file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO / "src"))
    try:
        release, sync = rehearse(target)
    except AssertionError as exc:
        print(f"rehearsal: a command failed in {target}:\n{exc}", file=sys.stderr)
        return 1
    print(
        f"rehearsal: {target}: release {release.name} added (new {release.new}, reworded "
        f"{release.changed}), then {sync.label} (new {sync.on_main}, reworded {sync.reworded}, "
        f"removed {sync.removed}); check passes. Next: cd {target} && PYTHONPATH=$PWD/src "
        "python -m pytest"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

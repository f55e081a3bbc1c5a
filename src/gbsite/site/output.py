"""The output folder: a new site is written beside the old one, then swapped in whole.

    staging = Staging(out_dir)     # creates .site.new-PID beside site/
    staging.write(files)           # as pages are rendered, by any of the build's processes
    staging.commit(paths, changed) # the new site replaces the old in one step
    staging.discard()              # always, last: removes what is left of either

A build that fails or is killed leaves the previous site as it was; the next build removes what
a killed one left behind. Unchanged files are hard links to the old site's (same inode, mtime
kept), so a build that changes a few pages writes a few files.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gbsite.errors import GbsiteError
from gbsite.fs.files import write_if_changed
from gbsite.fs.transaction import exchange
from gbsite.site.fingerprint import MARKER, marker

if TYPE_CHECKING:
    from gbsite.site.cache import BuildCache

_PARTS = ".parts"  # inside the new site, removed before the swap


class Target(Protocol):
    """Where a build writes the site: a new folder swapped in whole (Staging), or the
    folder itself (InPlace)."""

    out_dir: Path

    def write(self, files: Mapping[str, bytes], *, apart: bool = False) -> int: ...

    def commit(self, paths: Collection[str], changed: int) -> None: ...

    def discard(self) -> None: ...


class InPlace:
    """The changed files of a site written over the old ones, each atomically: for `serve`,
    whose later builds change a few files of a site it wrote itself (cache.py), and serve the
    pages from memory, never from the folder."""

    def __init__(self, out_dir: Path, previous: Collection[str]) -> None:
        self.out_dir = out_dir
        self.previous = previous  # the paths the folder holds
        self.vouched = True  # the marker describes the folder (until a file is changed)

    def write(self, files: Mapping[str, bytes], *, apart: bool = False) -> int:
        if self.vouched and files and MARKER not in files:
            # A build stopped half-way must not leave a marker that says the folder is whole.
            write_if_changed(self.out_dir / MARKER, marker("-", {}))
            self.vouched = False
        return sum(write_if_changed(self.out_dir / rel, data) for rel, data in files.items())

    def commit(self, paths: Collection[str], changed: int) -> None:
        for gone in set(self.previous) - set(paths):
            (self.out_dir / gone).unlink(missing_ok=True)

    def discard(self) -> None:
        pass


class Staging:
    """A new site being written into a folder beside `out_dir`.

    After a fork, parent and worker may both call write(): each file has one writer, and the
    folders they share are made with exist_ok.
    """

    def __init__(self, out_dir: Path) -> None:
        _refuse_foreign_folder(out_dir)
        self.out_dir = out_dir
        self.had_site = out_dir.is_dir()
        parent = out_dir.parent
        parent.mkdir(parents=True, exist_ok=True)
        remove_leftovers(out_dir)
        self.root = parent / f".{out_dir.name}.new-{os.getpid()}"
        self.old = parent / f".{out_dir.name}.old-{os.getpid()}"
        self.root.mkdir()
        self._folders: set[Path] = {self.root}  # made by this process, or before its fork

    def write(self, files: Mapping[str, bytes], *, apart: bool = False) -> int:
        """Write `files` (paths relative to the site) into the new site; returns how many have
        bytes the old site's file does not.

        With `apart`, new files are created in a folder of this process's own and renamed into
        place. Why: creating a file holds its folder's lock while the file system allocates the
        inode, and on this project's build machine that costs 0.1 to 0.8 ms of kernel time per
        file. Two processes creating files in gb/ would take turns; creating them apart and
        renaming them (a rename allocates nothing) lets both cores do it at once.
        """
        changed = 0
        part = self._folder(self.root / _PARTS / str(os.getpid())) if apart else None
        for rel, data in files.items():
            target = self.root / rel
            self._folder(target.parent)
            if self.had_site and _read(self.out_dir / rel) == data:
                try:
                    os.link(self.out_dir / rel, target)
                    continue
                except OSError:
                    pass  # another file system, or no hard links: write it
            changed += 1
            if part is None:
                target.write_bytes(data)
            else:
                (part / "file").write_bytes(data)
                (part / "file").rename(target)
        return changed

    def commit(self, paths: Collection[str], changed: int) -> None:
        """Replace the old site with the new one, made of exactly `paths`, of which `changed`
        were new or different. When nothing differs, the old site stays as it is."""
        shutil.rmtree(self.root / _PARTS, ignore_errors=True)  # empty folders by now
        if self.had_site and not changed and _existing(self.out_dir) == set(paths):
            return
        if not self.out_dir.exists():
            self.root.rename(self.out_dir)
        elif exchange(self.root, self.out_dir):  # the site folder always holds a whole site
            self.root.rename(self.old)  # it now holds the previous site
        else:
            self.out_dir.rename(self.old)  # not atomic: for a moment there is no site at all
            self.root.rename(self.out_dir)

    def discard(self) -> None:
        """Remove the new site if it was not swapped in, and the old one if it was."""
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.rmtree(self.old, ignore_errors=True)

    def _folder(self, folder: Path) -> Path:
        if folder not in self._folders:
            folder.mkdir(parents=True, exist_ok=True)
            self._folders.add(folder)
        return folder


def remove_leftovers(out_dir: Path) -> None:
    """Remove what killed builds left beside the site: `.site.new-PID`, `.site.old-PID`.
    Only while holding the build lock (lock.py), so never another build's folder."""
    for leftover in out_dir.parent.glob(f".{out_dir.name}.*-*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _refuse_foreign_folder(out_dir: Path) -> None:
    if out_dir.exists() and not (out_dir / MARKER).exists() and any(out_dir.iterdir()):
        raise GbsiteError.at(
            out_dir,
            None,
            "exists and was not written by gbsite build; choose another output folder or remove it",
        )


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _existing(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def target(out_dir: Path, cache: BuildCache) -> Target:
    """Where this build writes: over the files a cache says the folder holds (serve's later
    builds), else a new folder to swap in."""
    if cache.written_to == out_dir and (out_dir / MARKER).is_file():
        return InPlace(out_dir, cache.files)
    return Staging(out_dir)

"""Replacing a whole folder (registry/, docs/gb/) so that an interruption loses nothing.

    with writing(cfg.registry_dir, "import"):      # the lock; what a killed run left, undone
        ...read the folder...
        with replacing(cfg.registry_dir) as stage:
            ...write the changed files into `stage`...

`stage` starts as a copy of the folder (every file hard-linked: no bytes copied, mtimes kept)
beside it, named `.NAME.new-PID`. Only when the block finishes is it renamed `.NAME.ready-PID`
and swapped with the folder: in one atomic step on Linux (renameat2 RENAME_EXCHANGE), elsewhere
in two renames. Then the old copy is removed. So a process killed at any instant, or a write
that fails (disk full), leaves the folder as it was before or as it is after, never a mix.

What a killed run leaves beside the folder is dealt with by the next run, under the same lock:
a staging folder is removed; if the folder itself is missing (killed between the two renames,
where there is no exchange), the complete `ready` copy is put in its place, or else the old one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from gbsite.fs.lock import locked

_KINDS = ("new", "ready", "old")


def leftovers(folder: Path, kind: str | None = None) -> list[Path]:
    """What killed runs left beside `folder`: `.NAME.new-PID` and the like, sorted."""
    kinds = (kind,) if kind else _KINDS
    found: list[Path] = []
    for k in kinds:
        found += sorted(folder.parent.glob(f".{folder.name}.{k}-*"))
    return found


def recover(folder: Path) -> None:
    """Finish or undo what a killed run left beside `folder`; call it holding the lock."""
    if not folder.exists():
        for candidate in (*leftovers(folder, "ready"), *leftovers(folder, "old")):
            if candidate.is_dir():
                candidate.rename(folder)  # complete: the new copy, or else the old one
                break
    for leftover in leftovers(folder):
        remove_tree(leftover)


def remove_tree(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one atomic step (Linux renameat2 RENAME_EXCHANGE), if possible."""
    if sys.platform != "linux":
        return False
    import ctypes  # here: only a command that writes needs it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return bool(result == 0)


def _link_copy(source: Path, target: Path) -> None:
    """`target` as a copy of `source` whose files are hard links (a real copy where not)."""

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    if source.is_dir():
        shutil.copytree(source, target, symlinks=True, copy_function=link)
    else:
        target.mkdir()


def swap_in(ready: Path, folder: Path, old: Path) -> None:
    """Put the complete folder `ready` in the place of `folder`, whose content ends in `old`."""
    if not folder.exists():
        ready.rename(folder)
    elif exchange(ready, folder):
        ready.rename(old)
    else:
        folder.rename(old)  # killed here: no folder, and recover() puts `ready` in its place
        ready.rename(folder)


@contextlib.contextmanager
def writing(folder: Path, what: str) -> Iterator[None]:
    """The lock for replacing `folder`, with what a killed run left undone or finished."""
    with locked(folder.parent, what):
        recover(folder)
        yield


@contextlib.contextmanager
def replacing(folder: Path) -> Iterator[Path]:
    """Stage a new version of `folder` and swap it in when the block succeeds (see above).
    Call it inside writing(folder)."""
    pid = os.getpid()
    stage = folder.parent / f".{folder.name}.new-{pid}"
    ready = folder.parent / f".{folder.name}.ready-{pid}"
    try:
        _link_copy(folder, stage)
        yield stage
        stage.rename(ready)
        swap_in(ready, folder, folder.parent / f".{folder.name}.old-{pid}")
    finally:
        recover(folder)  # the old copy, or the stage of a failed run; the folder if it went


def staged_path(folder: Path, stage: Path, path: Path) -> Path:
    """Where `path`, a file inside `folder`, is in the staged copy."""
    return stage / path.relative_to(folder)

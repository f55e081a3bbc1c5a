"""One writer at a time: commands that replace a folder lock the folder that holds it.

The lock is `flock` on the parent folder itself, so there is no lock file to leave behind, and
the kernel releases it when the process dies, however it dies (kill -9 included). Two builds of
the same site, or an import next to a sync, then take turns instead of removing each other's
staging folders.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from gbsite.errors import GbsiteError

WAIT = 120.0  # seconds a second writer waits for the first before giving up


@contextlib.contextmanager
def locked(
    folder: Path,
    what: str,
    *,
    wait: float = WAIT,
    waiting: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Hold the lock of `folder` (created if missing) while the block runs.

    A second process waits up to `wait` seconds (telling `waiting` once), then fails with a
    one-line error. Where the platform has no flock, the block runs unlocked.
    """
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks on folders
        yield
        return
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        deadline = time.monotonic() + wait
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise GbsiteError(
                        f"{folder}: another gbsite process is still writing here ({what}) after "
                        f"{wait:.0f} s; wait for it to finish, then run this again"
                    ) from None
                if waiting is not None and not told:
                    waiting(f"waiting for another gbsite process writing in {folder} ({what})")
                    told = True
                time.sleep(0.05)
            except OSError:
                break  # a file system without locks: go on unlocked, as before
        yield
    finally:
        os.close(fd)  # releases the lock

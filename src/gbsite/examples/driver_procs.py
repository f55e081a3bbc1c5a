"""Containing what a run starts: the process plumbing of the example driver (driver.py).
Standard library only, like the driver, which imports it as a sibling when run as a script
under a Python without gbsite; gbsite imports it too, to contain the runs it starts.

On Linux a subreaper adopts the orphans among its descendants, so nothing a run starts
outlives it: each is killed, with whatever it started, when the run ends. Elsewhere these
are no-ops (prctl answers False) and a run's process group is what a timeout kills.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def prctl(option: int, value: int) -> bool:
    """Linux's prctl(2), through ctypes; False where there is none."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Orphans among this process's descendants become its children (not init's)."""
    return prctl(PR_SET_CHILD_SUBREAPER, 1)


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux: /proc), zombies included."""
    found: list[int] = []
    try:
        names = os.listdir("/proc")  # noqa: PTH208 - stdlib only, and fast
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:  # noqa: PTH123
                stat = f.read()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (comm) ": state, ppid, ...
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(name))
    return found


def kill_descendants(keep: frozenset[int] = frozenset()) -> None:
    """Kill this process's children but `keep`, and everything they started. In a subreaper
    the orphans of a killed child become children of this process: repeat until none is left
    (each round waits for the children it killed, so a round sees their orphans)."""
    import signal

    me = os.getpid()
    for _ in range(10_000):
        found = [pid for pid in children_of(me) if pid not in keep]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in found:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def contained(run: Any) -> Any:
    """`run()` in this process made a subreaper, killing whatever it started before returning."""
    reaper = become_subreaper()
    try:
        return run()
    finally:
        if reaper:
            kill_descendants()

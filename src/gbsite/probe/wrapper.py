"""Runs one probe program under the example driver (standard library and torch only: it is
imported by the interpreter that has torch, which need not have gbsite installed).

The driver runs a launcher that calls `run(PROGRAM, HIDDEN)`: the program runs as `__main__`,
as `python PROGRAM` would run it, while every graph break Dynamo constructs is noted, even one
it catches and turns into another or into a silent fallback. Those types go to the file HIDDEN
(JSON), written whatever the program does, so that the report can tell a break the user sees
from one raised only inside Dynamo.
"""

from __future__ import annotations

import json
import runpy
from typing import Any

LAUNCHER = (
    "import importlib.util as _util\n"
    "_spec = _util.spec_from_file_location('_probe_wrapper', {wrapper!r})\n"
    "_probe_wrapper = _util.module_from_spec(_spec)\n"
    "_spec.loader.exec_module(_probe_wrapper)\n"
    "_probe_wrapper.run({program!r}, {hidden!r})\n"
)


def launcher(wrapper: str, program: str, hidden: str) -> str:
    """The text of the launcher the driver runs: this file loaded by its path (nothing added
    to sys.path, which the program would see), then `run`."""
    return LAUNCHER.format(wrapper=wrapper, program=program, hidden=hidden)


def _hook(seen: list[str]) -> None:
    """Note the gb_type of every Unsupported Dynamo constructs from now on."""
    try:
        from torch._dynamo import exc
    except Exception:  # a stand-in torch without Dynamo: nothing to note
        return
    original = exc.Unsupported.__init__

    def noting(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        gb_type = getattr(self, "gb_type", None)
        if gb_type and gb_type not in seen:
            seen.append(str(gb_type))

    exc.Unsupported.__init__ = noting  # type: ignore[method-assign]


def run(program: str, hidden: str) -> None:
    seen: list[str] = []
    try:
        _hook(seen)
        runpy.run_path(program, run_name="__main__")
    finally:
        with open(hidden, "w", encoding="utf-8") as out:  # noqa: PTH123 - stdlib only
            json.dump(seen, out)

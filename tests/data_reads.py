"""Which tests read the data an import, a sync or a release add changes, so that
tests/test_living.py can run only those again after a release add and a sync (`-m repo_data`),
knowing that no other test can have changed.

The data is what those commands write: the registry's sources.yaml, gb/ and resolved/, the list
of its snapshots (not a snapshot opened by name: none is ever rewritten), the docs folder, the
record and gbsite.toml (where gbsite.toml's [paths] put them). A test reads it when, during its
setup, call or teardown, Python opens or lists a path in it (an audit hook: `open`,
`os.listdir`, `os.scandir`) or starts a process that may (given such a path or the project's
folder, or started in the project's folder, where a `gbsite` command finds its project, unless
`--root` names another); when a fixture it uses did so while it was set up (a session fixture is
set up once, for the first test using it); when its module did so while it was imported
(parameters made from the registry); or when it calls a helper that keeps the data in memory
(`note`, from conftest.committed). A test that is not a browser or torch test (the nested run
leaves those out, see test_living.py) and reads the data without the `repo_data` mark fails at
teardown, naming what it read: the mark cannot be forgotten. Python audits no `stat`: a test
that only asks whether such a file exists is not seen.

GBSITE_DATA_ROOT names another project (the test of this module); the default is the repository.
"""

# Paths as strings, made absolute without resolving links: the hook sees every open of the run.
# ruff: noqa: PTH100, PTH109

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gbsite import config
from gbsite.registry import model

ROOT = Path(os.environ.get("GBSITE_DATA_ROOT") or Path(__file__).resolve().parent.parent)
MARK = "repo_data"
NEVER_AGAIN = ("browser", "examples")  # marks of tests the nested runs leave out
_OPENS = frozenset({"open", "os.listdir", "os.scandir"})
_PROCESSES = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn"})
_WATCHED = _OPENS | _PROCESSES
_REASONS = 3  # reads kept per test: enough to say why it needs the mark


def _add(found: list[str], what: str) -> None:
    if len(found) < _REASONS and what not in found:
        found.append(what)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + os.sep)


def _data_paths(root: Path) -> tuple[tuple[str, ...], str]:
    """The paths an import, a sync or a release add writes, and the snapshots' folder: a
    snapshot is never rewritten (a later one has a label of its own, from sources.yaml), so
    opening one by name reads nothing they change, but listing the folder does."""
    cfg = config.load(root)
    written = (
        cfg.registry_dir / model.SOURCES_FILE,
        cfg.registry_dir / model.ENTRIES_DIR,
        cfg.registry_dir / model.RESOLVED_DIR,
        cfg.docs_dir,
        cfg.verified_file,
        cfg.file,
    )
    snapshots = cfg.registry_dir / model.SNAPSHOTS_DIR
    return tuple(os.path.abspath(p) for p in written), os.path.abspath(snapshots)


class Reads:
    """What the running test, fixture set-up or module import read of the data."""

    def __init__(self, root: Path) -> None:
        self.root = os.path.abspath(root)
        self.paths, self.snapshots = _data_paths(root)
        self.current: list[str] | None = None  # None: nothing is being watched

    def note(self, what: str) -> None:
        if self.current is not None:
            _add(self.current, what)

    def in_data(self, path: str) -> bool:
        return any(_within(path, p) for p in self.paths)

    def in_root(self, path: str) -> bool:
        return _within(path, self.root)

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if event not in _WATCHED or self.current is None or len(self.current) >= _REASONS:
            return  # a test that has read enough to say why costs nothing more
        if event in _OPENS:
            where = args[0] if args else None
            if event != "open" and where is None:
                where = "."
            if isinstance(where, (str, bytes, os.PathLike)):
                path = os.fsdecode(where)
                if not path.startswith(os.sep) or f"{os.sep}." in path or os.sep * 2 in path:
                    path = os.path.abspath(path)  # only when needed: it doubles an open's cost
                if not path.startswith(self.root):
                    return
                if self.in_data(path) or (event != "open" and path == self.snapshots):
                    self.note(path)
            return
        self._process(event, args)

    def _process(self, event: str, args: tuple[Any, ...]) -> None:
        """A child process may read the data when it is given a data path or the project's
        folder, or starts in the project: a gbsite command looks for gbsite.toml from its
        working folder up, unless `--root` names its project."""
        cwd: Any = None
        if event == "subprocess.Popen":
            command: Any = args[1]
            cwd = args[2]
        elif event == "os.system":
            command = args[0]
        else:
            command = args[1] if len(args) > 1 else args[0]
        single = isinstance(command, (str, bytes, os.PathLike))
        words = [
            os.fsdecode(w) if isinstance(w, (str, bytes, os.PathLike)) else str(w)
            for w in ([command] if single else command or ())
        ]
        for word in words:
            if word.rstrip(os.sep).endswith(self.root) or any(
                p in word for p in (*self.paths, self.snapshots)
            ):
                self.note(f"a process given {word[:200]}")
                return
        rooted = [b for a, b in itertools.pairwise(words) if a == "--root"]
        rooted += [w.removeprefix("--root=") for w in words if w.startswith("--root=")]
        if rooted and not any(self.in_root(os.path.abspath(r)) for r in rooted):
            return
        folder = os.path.abspath(os.fsdecode(cwd)) if cwd is not None else os.getcwd()
        if self.in_root(folder):
            self.note(f"a process started in {folder}")


READS = Reads(ROOT)
sys.addaudithook(READS.hook)
_by_fixture: dict[tuple[str, str], list[str]] = {}  # (baseid, name) of a fixture: what it read
_by_module: dict[str, list[str]] = {}  # a test module's path: what importing it read


@contextlib.contextmanager
def unchanged_by_a_release() -> Iterator[None]:
    """What is read in this block is kept only where an import and a release leave it as it
    was (gbsite.toml without its list of releases): not watched."""
    saved, READS.current = READS.current, None
    try:
        yield
    finally:
        READS.current = saved


def note(what: str) -> None:
    """The running test uses the data without opening it (a helper's copy in memory)."""
    READS.note(what)


@contextlib.contextmanager
def _watching() -> Iterator[list[str]]:
    """What is read meanwhile, on its own; then also what the surrounding watch read (a
    fixture set up for a test: what it read, the test read)."""
    saved, found = READS.current, list[str]()
    READS.current = found
    try:
        yield found
    finally:
        READS.current = saved
        if saved is not None:
            for what in found:
                _add(saved, what)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    if not isinstance(collector, pytest.Module):
        yield
        return
    with _watching() as found:
        yield
    if found:
        _by_module[str(collector.path)] = found


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> Iterator[None]:
    with _watching() as found:
        yield
    if found and fixturedef.scope != "function":
        _by_fixture[(fixturedef.baseid, fixturedef.argname)] = found


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    with _watching():
        yield


def _what_it_read(item: pytest.Item) -> list[str]:
    found = list(READS.current or ())
    found += _by_module.get(str(item.path), [])
    names = set(getattr(item, "fixturenames", ()))
    for (where, name), what in _by_fixture.items():
        # The fixture of that name where the test is (another module may have one too).
        if name in names and (not where or item.nodeid.startswith((f"{where}::", f"{where}/"))):
            found += [f"fixture {name}: {w}" for w in what]
    return found


@pytest.fixture(autouse=True)
def _repo_data_is_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails a test that reads the data without the mark, after everything else it used is
    torn down."""
    yield
    item = request.node
    if item.get_closest_marker(MARK) or any(item.get_closest_marker(m) for m in NEVER_AGAIN):
        return
    found = _what_it_read(item)
    if found:
        pytest.fail(
            f"{item.nodeid} reads the data an import or a release changes without "
            f"@pytest.mark.{MARK} (tests/data_reads.py): " + "; ".join(found[:_REASONS]),
            pytrace=False,
        )

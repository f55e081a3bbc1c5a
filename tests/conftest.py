"""Shared fixtures. Tests use the committed registry and docs, or the real releases'
snapshots kept in registry/snapshots/, and real logs (tests/data).

What the next `gbsite import` or `gbsite release add` changes (how many ids, which labels,
the releases of the examples) is read from the committed files, never written into a test:
`committed()`, `labels()`, `example_releases()`. Facts of the real releases that a later import
could change (an id removed in 2.14.0 could come back) are asserted on a registry imported from
the snapshots of those releases alone (`history_registry`), which no import changes.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import json
import os
import shutil
import signal
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

import data_reads
from gbsite import cli, config, releases
from gbsite.docs import files as docs
from gbsite.registry import store
from gbsite.registry.model import Registry

# Browser fixtures (Chromium, a built and served site) live in their own module.
pytest_plugins = ["browser_support"]

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SNAPSHOTS = REPO / "registry" / "snapshots"
# The releases the registry was first imported from, and the releases of the examples then.
# Their snapshots are never rewritten: what a registry imported from them says stays true.
HISTORY = ("2.8.0", "2.9.0", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.0", "2.15.0")
HISTORY_EXAMPLES = ("2.13.0", "2.14.1", "2.15.0")
# Set in the run that tests/test_living.py starts in a copy of the repository.
NESTED = "GBSITE_NESTED_TEST_RUN"
# Temporary folders in memory: the tests copy projects and build sites into them, and removing
# those files from disk is slow (ext4 with online discard here: docs/development.md).
MEMORY = Path("/dev/shm")
MEMORY_NEEDED = 4 * 2**30  # bytes free


def pytest_configure(config: pytest.Config) -> None:
    """data_reads' hooks and fixture (the module is imported here, for conftest's helpers); and
    the tests' temporary folders (tmp_path, and what their child processes make) in MEMORY
    when it is a large enough tmpfs, unless TMPDIR or --basetemp names a place."""
    if not config.pluginmanager.is_registered(data_reads):
        config.pluginmanager.register(data_reads, "data_reads")
    chosen = os.environ.get("TMPDIR")  # MEMORY itself when xdist's workers inherit it from here
    if (chosen and Path(chosen) != MEMORY) or config.option.basetemp:
        return
    root = memory_folder()
    if root is not None:
        # In the environment for child processes (xdist's workers first); tempfile.tempdir for
        # pytest's own folders, which it makes in tempfile.gettempdir().
        os.environ["TMPDIR"] = str(root)
        tempfile.tempdir = str(root)


def memory_folder() -> Path | None:
    """MEMORY if it is a writable folder with MEMORY_NEEDED bytes free (Docker's default
    /dev/shm has 64 MiB), else None (the system's temporary folder then)."""
    try:
        free = os.statvfs(MEMORY)
    except OSError:
        return None
    room = free.f_bavail * free.f_frsize >= MEMORY_NEEDED
    usable = MEMORY.is_dir() and os.access(MEMORY, os.W_OK | os.X_OK)
    return MEMORY if room and usable else None


def snapshot(label: str) -> Path:
    """The snapshot imported as `label`, as `gbsite import` keeps it."""
    return SNAPSHOTS / f"{label}.json.gz"


def snapshot_json(label: str) -> dict[str, list[dict[str, object]]]:
    data: dict[str, list[dict[str, object]]] = json.loads(
        gzip.decompress(snapshot(label).read_bytes())
    )
    return data


@functools.cache
def _committed() -> Registry:
    return store.load(REPO / "registry")


def committed() -> Registry:
    """The committed registry (do not change it: it is shared), loaded once."""
    data_reads.note("the committed registry (conftest.committed)")
    return _committed()


def labels() -> list[str]:
    """The imported snapshots, oldest first, as registry/sources.yaml lists them."""
    return committed().labels


def sync_note() -> str:
    """What the site says of the newest import: a release, or a dated snapshot of a branch."""
    newest = labels()[-1]
    if "@" in newest:
        branch, date = newest.split("@")
        return f"Its registry was last synced on {date}, from PyTorch's {branch} branch."
    return f"Its registry was last synced from PyTorch {newest}."


def example_releases() -> tuple[str, ...]:
    """The releases of the examples, as gbsite.toml lists them."""
    return config.load(REPO).example_releases


def ids_of(release: str) -> list[str]:
    """The ids of a release of the examples (or an imported release), from the committed
    registry: those of the snapshot it is judged with."""
    reg = committed()
    label = release if release in reg.labels else releases.registry_label(release, reg.labels)
    assert label is not None, f"{release} is not imported"
    return [gb_id for gb_id, e in reg.entries.items() if releases.in_release(e, reg.labels, label)]


def unknown_id() -> str:
    """An id the committed registry does not have (GB9999 unless upstream adds it)."""
    known = committed().entries
    return next(f"GB{n:04d}" for n in range(9999, -1, -1) if f"GB{n:04d}" not in known)


@dataclass
class Result:
    code: int
    out: str
    err: str


@dataclass
class Project:
    """A throwaway gbsite project folder."""

    root: Path

    @property
    def registry(self) -> Path:
        return self.root / "registry"

    @property
    def docs(self) -> Path:
        return self.root / "docs" / "gb"

    @property
    def site(self) -> Path:
        return self.root / "site"

    def run(self, *args: str) -> Result:
        return run_cli("--root", str(self.root), *args)

    def snapshot(self) -> dict[str, bytes]:
        """Every file under the project with its bytes, to prove nothing was written."""
        return {
            str(p.relative_to(self.root)): p.read_bytes()
            for p in sorted(self.root.rglob("*"))
            if p.is_file()
        }

    def write_upstream(self, name: str, data: dict[str, list[dict[str, object]]]) -> Path:
        path = self.root / name
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        return path


def page(project: Project, gb_id: str, block: str) -> Path:
    """Write an Additional Information block (dedented) into a project's docs file."""
    path = project.docs / f"{gb_id.lower()}.md"
    block = "\n" + textwrap.dedent(block).lstrip("\n")
    path.write_text(docs.with_block(path.read_text(), block))
    return path


def line_of(path: Path, needle: str) -> int:
    """The first line of a file that contains `needle`."""
    return next(i for i, t in enumerate(path.read_text().split("\n"), 1) if needle in t)


def run_cli(*args: str) -> Result:
    """Run the CLI in-process and capture what it printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return Result(code, out.getvalue(), err.getvalue())


def make_project(
    root: Path, *, registry: bool = True, docs: bool = False, templates: bool = True
) -> Project:
    root.mkdir(parents=True, exist_ok=True)
    if registry:
        text = (REPO / "gbsite.toml").read_text()
    else:
        with data_reads.unchanged_by_a_release():
            text = (REPO / "gbsite.toml").read_text()
        # Nothing is imported: list no releases of the examples, which would have to be.
        found = releases.release_list(text)
        assert found is not None
        start = text.rindex("\n", 0, found.open) + 1
        text = text[:start] + text[text.index("\n", found.close) + 1 :]
    (root / "gbsite.toml").write_text(text)
    (root / "registry").mkdir()
    if registry:
        for item in ("sources.yaml", "categories.yaml", "gb", "snapshots", "resolved"):
            src = REPO / "registry" / item
            if src.is_dir():
                shutil.copytree(src, root / "registry" / item)
            else:
                shutil.copy(src, root / "registry" / item)
    else:
        shutil.copy(REPO / "registry" / "categories.yaml", root / "registry" / "categories.yaml")
    if docs:
        shutil.copytree(REPO / "docs", root / "docs")
    if templates and (REPO / "templates").is_dir():
        shutil.copytree(REPO / "templates", root / "templates")
    return Project(root)


def interruptible() -> None:
    """preexec_fn of a child a test stops with SIGINT, as a terminal's Ctrl-C does: Ctrl-C
    restored, when pytest itself was started as a script's background job (`pytest &`), whose
    children inherit SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def copy_project(source: Project, target: Path) -> Project:
    """A copy of a project as it is, links kept as links (a snapshot or docs folder a test made a
    link is not followed), with its site and build marker: a build of the copy of a built project
    has nothing to do (the fingerprint names paths relative to the project)."""
    shutil.copytree(source.root, target, symlinks=True)
    return Project(target)


@pytest.fixture
def empty_project(tmp_path: Path) -> Project:
    """A project whose registry has categories.yaml and nothing imported."""
    return make_project(tmp_path / "proj", registry=False)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """A copy of this repository's project: the real registry, docs and templates."""
    return make_project(tmp_path / "proj", docs=True)


def set_example_releases(project: Project, listed: tuple[str, ...]) -> None:
    """Write `listed` as the project's [examples] releases, in place of what it lists."""
    path = project.root / "gbsite.toml"
    text = path.read_text()
    found = releases.release_list(text)
    array = "[" + ", ".join(f'"{r}"' for r in listed) + "]"
    if found is None:  # make_project left it out
        path.write_text(text.replace("[examples]\n", f"[examples]\nreleases = {array}\n", 1))
    else:
        path.write_text(text[: found.open] + array + text[found.close + 1 :])


@pytest.fixture(scope="session")
def history_template(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A project whose registry is what importing the HISTORY releases into an empty one writes
    (the committed registry's first imports), with the examples' releases of that time and
    docs/gb/ as `gbsite sync` writes them (no contributed text, no record). Tests copy it."""
    proj = make_project(tmp_path_factory.mktemp("history") / "proj", registry=False)
    for label in HISTORY:
        result = proj.run("import", str(snapshot(label)))
        assert result.code == 0, result.err
    set_example_releases(proj, HISTORY_EXAMPLES)
    result = proj.run("sync")
    assert result.code == 0, result.err
    from gbsite.examples import record

    record.write(proj.root / "docs" / "verified-examples.yaml", record.EMPTY)
    return proj


@pytest.fixture(scope="session")
def history_registry(history_template: Project) -> Path:
    """The HISTORY registry (do not change it: it is shared)."""
    return history_template.registry


@pytest.fixture
def history(tmp_path: Path, history_template: Project) -> Project:
    """A project of the HISTORY releases: for facts of those releases, and for tests that need
    ids, texts and releases no later import changes."""
    return copy_project(history_template, tmp_path / "history")


def item(
    gb_type: str = "T", context: str = "C", explanation: str = "E", hints: list[str] | None = None
) -> dict[str, object]:
    return {
        "Gb_type": gb_type,
        "Context": context,
        "Explanation": explanation,
        "Hints": hints if hints is not None else ["H"],
    }


# A stand-in for torch: torch.compile calls the function, so an example "breaks" by raising
# the error text PyTorch would, and only while compiled. Fast and deterministic, for testing
# the judging; its package folder is where `check --examples` looks for cited files.
FAKE_TORCH = """
__version__ = "2.13.0+fake"
compiling = False  # True while a compiled function runs: examples "break" only then
backend_used = None  # the backend of the last compile, for examples that depend on it
from torch._dynamo import utils as _utils

def compile(fn, fullgraph=False, backend="inductor"):
    global backend_used
    assert fullgraph is True
    backend_used = backend
    seen = []  # a graph per new argument value, as if Dynamo guarded on each
    def compiled(*args, **kwargs):
        global compiling
        if (args, kwargs) not in seen:
            seen.append((args, kwargs))
            _utils.counters["stats"]["unique_graphs"] += 1
        compiling = True
        try:
            return fn(*args, **kwargs)
        finally:
            compiling = False
    return compiled
"""
FAKE_UTILS = """
import collections
counters = collections.defaultdict(collections.Counter)
"""


def fake_torch(root: Path) -> tuple[str, Path]:
    """A `python` whose `import torch` finds the stand-in, and the stand-in's package folder."""
    (root / "torch" / "_dynamo").mkdir(parents=True)
    (root / "torch" / "__init__.py").write_text(FAKE_TORCH)
    (root / "torch" / "_dynamo" / "__init__.py").write_text("")
    (root / "torch" / "_dynamo" / "utils.py").write_text(FAKE_UTILS)
    # What the driver touches when it compiles with inductor.
    for module in ("_inductor/__init__.py", "_inductor/config.py", "utils/__init__.py"):
        (root / "torch" / module).parent.mkdir(exist_ok=True)
        (root / "torch" / module).write_text("fallback_random = False\n")
    (root / "torch" / "utils" / "cpp_extension.py").write_text("")
    script = root / "python"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{root}" exec "{sys.executable}" "$@"\n')
    script.chmod(0o755)
    return str(script), root / "torch"

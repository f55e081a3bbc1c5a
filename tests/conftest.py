"""Shared fixtures. Tests use the committed registry and real upstream snapshots (tests/data)."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from gbsite import cli
from gbsite.docs import files as docs

# Browser fixtures (Chromium, a built and served site) live in their own module.
pytest_plugins = ["browser_support"]

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
UPSTREAM = DATA / "upstream"
RELEASES = ["2.8.0", "2.9.0", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.0", "2.15.0"]


def upstream(release: str) -> Path:
    return UPSTREAM / f"torch-{release}.json.gz"


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
    shutil.copy(REPO / "gbsite.toml", root / "gbsite.toml")
    (root / "registry").mkdir()
    if registry:
        for item in ("sources.yaml", "categories.yaml", "gb"):
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


@pytest.fixture
def empty_project(tmp_path: Path) -> Project:
    """A project whose registry has categories.yaml and nothing imported."""
    return make_project(tmp_path / "proj", registry=False)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """A copy of this repository's project: the real registry, docs and templates."""
    return make_project(tmp_path / "proj", docs=True)


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
from torch._dynamo import utils as _utils

def compile(fn, fullgraph=False, backend="inductor"):
    assert fullgraph is True
    def compiled(*args, **kwargs):
        global compiling
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
    script = root / "python"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{root}" exec "{sys.executable}" "$@"\n')
    script.chmod(0o755)
    return str(script), root / "torch"

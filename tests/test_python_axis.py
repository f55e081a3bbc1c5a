"""Python and the install as axes of the examples: a block with `needs=python:3.N` runs with an
interpreter of that version, in a torch environment of its own per release (torchenv.py), and its
page is verified like any other; where no such interpreter is found, the block is skipped with a
note and stays pending. A block with `needs=without:NAME` runs where NAME cannot be imported."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import Project, fake_torch, line_of, page
from gbsite.docs import files as docs
from gbsite.examples import annotations as examples
from gbsite.examples import record, torchenv

pytestmark = pytest.mark.repo_data

# Breaks (as the stand-in torch's graph breaks do) only where the interpreter is the one the
# block needs: the fake environment of that Python says which it is in FAKE_PYTHON.
NEEDS_312 = """
### Why this happens

Only newer bytecode reaches it.

```python gb-repro needs=python:3.12
import os


def fn(x):
    if os.environ.get("FAKE_PYTHON") == "3.12" and __import__("torch").compiling:
        raise RuntimeError("For more details, please visit: https://x.io/gb/gb0025.html")
    return x


fn(1)
```

### How to fix it

```python gb-fix
def fn(x):
    return x + 1


fn(1)
fn(2)
```
"""


def fake_env(cache: Path, release: str, python: str, torch_root: Path) -> None:
    """The cached environment of `release` with Python `python`: the stand-in torch, run by
    this interpreter, telling the programs which Python it stands for."""
    bin_dir = cache / "torch" / f"{release}-py{python}" / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "python"
    script.write_text(
        f'#!/bin/sh\nFAKE_PYTHON={python} PYTHONPATH="{torch_root}" exec "{sys.executable}" "$@"\n'
    )
    script.chmod(0o755)


@pytest.mark.slow  # runs examples in child processes
def test_a_block_that_needs_another_python_runs_with_it(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python, package = fake_torch(tmp_path / "torch")
    cache = tmp_path / "cache"
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(cache))
    fake_env(cache, "2.13.0", "3.12", package.parent)
    path = page(project, "GB0025", NEEDS_312)
    result = project.run("check", "--examples", "GB0025", "--python", python)
    assert result.code == 0, result.out + result.err
    line = line_of(path, "gb-repro")
    said = result.out + result.err
    ran = next(ln for ln in said.splitlines() if f"gb0025.md:{line}" in ln)
    assert ran.split()[0] == "ok" and "(Python 3.12)" in ran, said
    blocks = examples.blocks_of("GB0025", docs.read(path))
    repro = next(b for b in blocks if b.kind == examples.REPRO)
    assert repro.python == "3.12" and repro.runnable
    runs = record.read(project.root / "docs" / "verified-examples.yaml")
    assert runs.outcome(repro.key, "2.13.0") == record.BREAKS
    found = json.loads(project.run("coverage", "--format", "json", "--release", "2.13.0").out)
    assert next(e["status"] for e in found["ids"] if e["id"] == "GB0025") == "verified"


@pytest.mark.slow  # runs examples in child processes
def test_a_block_whose_python_is_missing_is_skipped_and_stays_pending(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python, _ = fake_torch(tmp_path / "torch")
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    path = page(project, "GB0025", NEEDS_312.replace("python:3.12", "python:3.99"))
    result = project.run("check", "--examples", "GB0025", "--python", python)
    assert result.code == 0, result.out + result.err
    line = line_of(path, "gb-repro")
    said = result.out + result.err
    assert f"gb0025.md:{line}: gb-repro not run with torch 2.13.0: no Python 3.99 found" in said
    assert "1 passed, 0 failed" in said  # the fix ran
    repro = next(b for b in examples.blocks_of("GB0025", docs.read(path)) if b.python)
    assert (
        record.read(project.root / "docs" / "verified-examples.yaml").outcome(repro.key, "2.13.0")
        is None
    )
    pending = project.run("check", "--record")
    assert f"gb0025.md:{line}: gb-repro not run yet with torch" in pending.out + pending.err


def interpreter_script(path: Path, prints: str, status: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {prints}\nexit {status}\n")
    path.chmod(0o755)


def test_the_interpreter_is_found_on_path_or_in_pyenv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    torchenv.version_of.cache_clear()
    root = tmp_path / "pyenv"
    for version in ("3.12.1", "3.12.10", "3.12-dev", "3.13.0"):
        name = f"python{version[:4]}"
        interpreter_script(root / "versions" / version / "bin" / name, version[:4])
    # pyenv's shim of a version that is not selected fails: it is passed over.
    interpreter_script(tmp_path / "shims" / "python3.12", "pyenv: python3.12: not found", 127)
    monkeypatch.setenv("PYENV_ROOT", str(root))
    monkeypatch.setenv("PATH", f"{tmp_path / 'shims'}:/usr/bin:/bin")
    assert torchenv.interpreter("3.12") == str(root / "versions/3.12.10/bin/python3.12")
    assert torchenv.interpreter("3.13") == str(root / "versions/3.13.0/bin/python3.13")
    assert torchenv.interpreter(torchenv.this_python()) == sys.executable
    # A working python3.12 on PATH comes first.
    interpreter_script(tmp_path / "bin" / "python3.12", "3.12")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    assert torchenv.interpreter("3.12") == str(tmp_path / "bin" / "python3.12")
    with pytest.raises(Exception, match=r"no Python 3\.14 found"):
        torchenv.interpreter("3.14")
    torchenv.version_of.cache_clear()


def test_each_release_and_python_has_an_environment_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path))
    here = torchenv.this_python()
    assert torchenv.env_dir("2.15.0") == torchenv.env_dir("2.15.0", here)
    assert torchenv.env_dir("2.15.0") == tmp_path / "torch/2.15.0"
    assert torchenv.env_dir("2.15.0", "3.99") == tmp_path / "torch/2.15.0-py3.99"
    created: list[tuple[str, str, str]] = []

    def fake_create(release: str, folder: Path, say: object, index: object, *, base: str) -> None:
        created.append((release, folder.name, base))

    monkeypatch.setattr(torchenv, "create", fake_create)
    monkeypatch.setattr(torchenv, "interpreter", lambda version: f"/opt/python{version}")
    torchenv.python_for("2.15.0", ("2.15.0",), python="3.99", current="/nowhere/python")
    assert created == [("2.15.0", "2.15.0-py3.99", "/opt/python3.99")]


def test_the_digest_names_the_python_a_block_runs_with() -> None:
    def key(needs: str) -> str:
        return examples.digest("gb-repro", "fn", "eager", "fn()\n", needs=needs)

    # Needs that are never run leave the digest (and the outcomes recorded before) alone.
    assert key("") == key("cuda") == key("package:triton")
    assert len({key(""), key("python:3.12"), key("python:3.13")}) == 3


def test_a_status_block_cannot_declare_a_python(project: Project) -> None:
    path = page(
        project,
        "GB0025",
        "```yaml gb-status\nstatus: environment\nneeds: python:3.12\nreason: newer bytecode\n"
        "source: torch/_dynamo/symbolic_convert.py\nfunction: InstructionTranslator.run\n```\n",
    )
    result = project.run("check")
    assert result.code == 1
    assert (
        f"gb0025.md:{line_of(path, 'gb-status')}: `needs: python:3.12`: a block that needs "
        "another Python runs with it" in result.out + result.err
    )


def test_ci_installs_the_pythons_the_blocks_need(project: Project) -> None:
    """`gbsite ci pythons`: what setup-python installs in the examples jobs, this Python last
    (setup-python makes the last one `python`)."""
    page(project, "GB0025", NEEDS_312)
    here = torchenv.this_python()
    lines = project.run("ci", "pythons").out.split()
    assert lines[-1] == here and "3.12" in lines
    assert len(lines) == len(set(lines))
    releases = json.loads(project.run("ci", "releases").out)
    assert project.run("ci", "releases", "--newest").out.strip() == releases[-1]


# Breaks only where `fractions` cannot be imported: the checker hides it for this block alone.
WITHOUT_FRACTIONS = """
### Why this happens

It needs an install without an optional package.

```python gb-repro needs=without:fractions
import torch


def fn(x):
    try:
        import fractions  # noqa: F401
    except ImportError:
        if torch.compiling:
            raise RuntimeError("For more details, please visit: https://x.io/gb/gb0025.html")
    return x


fn(1)
```

```python gb-fix
import fractions


def fn(x):
    return fractions.Fraction(x, 2)


fn(1)
fn(3)
```
"""


@pytest.mark.slow  # runs examples in child processes
def test_a_block_that_needs_an_install_without_a_package_runs_without_it(
    project: Project, tmp_path: Path
) -> None:
    python, _ = fake_torch(tmp_path / "torch")
    path = page(project, "GB0025", WITHOUT_FRACTIONS)
    result = project.run("check", "--examples", "GB0025", "--python", python)
    said = result.out + result.err
    assert result.code == 0, said
    assert "2 passed, 0 failed" in said  # the fix, in the same run, still has the package
    repro = next(b for b in examples.blocks_of("GB0025", docs.read(path)) if b.without)
    assert repro.without == "fractions" and repro.runnable
    runs = record.read(project.root / "docs" / "verified-examples.yaml")
    assert runs.outcome(repro.key, "2.13.0") == record.BREAKS

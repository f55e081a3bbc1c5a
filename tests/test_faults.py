"""The fault suite: gbsite tried as an unlucky user and an attacker would (issue 18).

Every case runs the real command line in a child process and asserts what the user relies on:
it exits within a time limit, prints no traceback, and registry/ and docs/gb/ are byte for byte
as they were before or exactly as a complete run leaves them. Families: kill -9 at many points
of import, sync and build; a full disk; hostile input bytes; files that are not plain files.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import Project, make_project, upstream

TIME_LIMIT = 60.0  # seconds any one command may take, on a loaded two-core machine


def gbsite(
    project: Project,
    *args: str,
    stdin: bytes | None = None,
    preexec: Callable[[], None] | None = None,
    limit: float = TIME_LIMIT,
) -> subprocess.CompletedProcess[str]:
    """Run the command line in a child process; it must finish in time and never trace back."""
    result = subprocess.run(
        [sys.executable, "-m", "gbsite", "--root", str(project.root), *args],
        input=stdin,
        capture_output=True,
        timeout=limit,
        preexec_fn=preexec,
        cwd=project.root,
    )
    out = subprocess.CompletedProcess(
        result.args,
        result.returncode,
        result.stdout.decode("utf-8", "replace"),
        result.stderr.decode("utf-8", "replace"),
    )
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode >= 0, f"killed by signal {-out.returncode}: {out.stderr}"
    return out


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` with its bytes."""
    if not folder.is_dir():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def state(project: Project) -> tuple[dict[str, bytes], dict[str, bytes]]:
    return tree(project.registry), tree(project.docs)


def leftovers(project: Project) -> list[str]:
    """Staging folders beside registry/, docs/gb/ and site/."""
    return sorted(
        p.name
        for parent in (project.root, project.root / "docs")
        if parent.is_dir()
        for p in parent.iterdir()
        if p.name.startswith((".registry.", ".gb.", ".site."))
    )


def saved(project: Project) -> dict[Path, dict[str, bytes]]:
    return {folder: tree(folder) for folder in (project.registry, project.docs, project.site)}


def restore(project: Project, saved: dict[Path, dict[str, bytes]]) -> None:
    for folder, files in saved.items():
        shutil.rmtree(folder, ignore_errors=True)
        for rel, data in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for name in leftovers(project):
        parent = project.root / "docs" if name.startswith(".gb.") else project.root
        shutil.rmtree(parent / name, ignore_errors=True)


def new_release(project: Project) -> Path:
    """A snapshot after 2.15.0 in which every id's text changed: import rewrites every file."""
    data = json.loads(gzip.decompress(upstream("2.15.0").read_bytes()))
    for items in data.values():
        items[0]["Explanation"] += " (reworded)"
    return project.write_upstream("torch-2.16.0.json", data)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The repository's project with docs; tests copy it (copying is cheaper than building)."""
    return make_project(tmp_path_factory.mktemp("base") / "proj", docs=True)


@pytest.fixture
def proj(base: Project, tmp_path: Path) -> Project:
    shutil.copytree(base.root, tmp_path / "proj", symlinks=True)
    return Project(tmp_path / "proj")


# ---- kill -9 at many points ------------------------------------------------------------------


def start(project: Project, args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "gbsite", "--root", str(project.root), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def staging_window(proc: subprocess.Popen[bytes], parent: Path, watch: str) -> tuple[float, float]:
    """When a folder named `watch...` appeared in `parent` (seconds after now), and for how long
    one was there, while `proc` runs to its end."""
    t0 = time.monotonic()
    seen: list[float] = []
    while proc.poll() is None and time.monotonic() - t0 < TIME_LIMIT:
        if any(p.name.startswith(watch) for p in parent.iterdir()):
            seen.append(time.monotonic() - t0)
        time.sleep(0.001)
    proc.wait()
    return (seen[0], seen[-1] - seen[0]) if seen else (0.0, 0.0)


def killed_at(project: Project, args: list[str], parent: Path, watch: str, delay: float) -> bool:
    """Start `gbsite ARGS`, wait until its staging folder appears, then `delay` seconds more,
    and kill it with SIGKILL. True if a staging folder was there when it died."""
    proc = start(project, args)
    deadline = time.monotonic() + TIME_LIMIT
    while proc.poll() is None and time.monotonic() < deadline:
        if any(p.name.startswith(watch) for p in parent.iterdir()):
            break
        time.sleep(0.001)
    time.sleep(delay)
    staged = any(p.name.startswith(watch) for p in parent.iterdir())
    with contextlib.suppress(ProcessLookupError):  # it may have finished: then it is "new"
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return staged


def kill_at_many_points(
    project: Project,
    args: list[str],
    rounds: int,
    watch: str,
    snapshot: Callable[[Project], object] = state,
) -> dict[str, int]:
    """Run `gbsite ARGS` `rounds` times, each killed with SIGKILL at a different moment from the
    appearance of its staging folder (named `watch...`) to after its swap, and check after each
    kill that the files (`snapshot`) are old or complete-new, and that the next run removes what
    the killed one left and finishes the job."""
    parent = project.root / "docs" if watch == ".gb." else project.root
    before, files = snapshot(project), saved(project)
    full = start(project, args)
    appeared, window = staging_window(full, parent, watch)
    assert full.returncode == 0
    after = snapshot(project)
    assert after != before
    assert leftovers(project) == []
    outcomes = {"old": 0, "new": 0, "mid-write": 0}
    for n in range(rounds):
        restore(project, files)
        # From the staging folder's appearance to a little after it went: writes, swap, cleanup.
        staged = killed_at(project, args, parent, watch, (window * 1.5 + 0.05) * n / (rounds - 1))
        now = snapshot(project)
        assert now in (before, after), f"round {n}: a mix of old and new files"
        outcomes["old" if now == before else "new"] += 1
        outcomes["mid-write"] += staged
        again = gbsite(project, *args)
        assert again.returncode == 0, again.stderr
        assert leftovers(project) == []
        assert snapshot(project) == after
    print(f"{' '.join(args[:1])}: staging after {appeared:.2f} s for {window:.2f} s; {outcomes}")
    return outcomes


@pytest.mark.slow
def test_kill_during_import(proj: Project) -> None:
    source = new_release(proj)
    outcomes = kill_at_many_points(proj, ["import", str(source)], rounds=6, watch=".registry.")
    assert outcomes["mid-write"] >= 3, outcomes  # the kills did land among the writes
    assert outcomes["new"] >= 1, outcomes


@pytest.mark.slow
def test_kill_during_sync(proj: Project) -> None:
    config = proj.root / "gbsite.toml"
    # A changed site URL changes the generated part of every file: sync rewrites all of them.
    config.write_text(config.read_text().replace("meta-pytorch.github.io", "example.org"))
    outcomes = kill_at_many_points(proj, ["sync"], rounds=6, watch=".gb.")
    assert outcomes["mid-write"] >= 3, outcomes
    assert outcomes["new"] >= 1, outcomes


def site(project: Project) -> dict[str, bytes]:
    return tree(project.site)


@pytest.mark.slow
def test_kill_during_build(proj: Project) -> None:
    assert gbsite(proj, "build").returncode == 0
    path = proj.docs / "gb0025.md"
    path.write_text(
        path.read_text().replace(
            "<!-- ADDITIONAL INFORMATION END", "New.\n<!-- ADDITIONAL INFORMATION END"
        )
    )
    outcomes = kill_at_many_points(proj, ["build"], rounds=5, watch=".site.", snapshot=site)
    assert outcomes["mid-write"] >= 2, outcomes


def test_build_removes_what_a_build_killed_after_its_swap_left(proj: Project) -> None:
    assert gbsite(proj, "build").returncode == 0
    old = proj.root / f".site.old-{2**22 + 1}"  # what a build killed right after its swap leaves
    shutil.copytree(proj.site, old)
    result = gbsite(proj, "build")
    assert result.returncode == 0 and "nothing changed" in result.stdout
    assert leftovers(proj) == []


def test_concurrent_builds_take_turns(proj: Project) -> None:
    assert gbsite(proj, "build").returncode == 0
    complete = site(proj)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gbsite", "--root", str(proj.root), "build", "--force"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=TIME_LIMIT)
        assert proc.returncode == 0, err.decode()
        assert b"Traceback" not in err
    assert site(proj) == complete
    assert leftovers(proj) == []


# ---- a full disk -----------------------------------------------------------------------------


def file_size_limit(limit: int) -> Callable[[], None]:
    """In the child: files may not grow past `limit` bytes, and a write past it fails with
    EFBIG (File too large) instead of killing the process, as a full disk's ENOSPC would."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    return apply


@pytest.mark.parametrize("limit", [0, 1500])
def test_disk_full_during_import_and_sync(proj: Project, limit: int) -> None:
    source = new_release(proj)
    before = state(proj)
    result = gbsite(proj, "import", str(source), preexec=file_size_limit(limit))
    assert result.returncode == 2
    assert result.stderr.startswith("gbsite: ") and len(result.stderr.splitlines()) == 1
    assert "File too large" in result.stderr
    assert state(proj) == before and leftovers(proj) == []

    assert gbsite(proj, "import", str(source)).returncode == 0
    before = state(proj)
    result = gbsite(proj, "sync", preexec=file_size_limit(limit))
    assert result.returncode == 2 and "File too large" in result.stderr
    assert state(proj) == before and leftovers(proj) == []

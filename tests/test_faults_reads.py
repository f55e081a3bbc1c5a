"""The third fault suite, reads (issue 45): every reader goes through fs/files.read_input.

A named pipe, a link to /dev/zero, a file far over its size limit or a symbolic link loop, in
each place a command reads: one line and exit 2, in bounded time, nothing written. Before the
guard, `build` hung on a pipe as the record and on /dev/zero, a link loop in docs/gb/ ended in
a RuntimeError (exit 3), `lookup` hung on a pipe as the older-wordings data, and `release
resolve` hung on a pipe in the torch tree and ran out of memory on a 3 GB .py file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import Project, fake_torch
from gbsite.errors import GbsiteError
from gbsite.fs import files
from test_faults import gbsite, one_line_error, tree

pytestmark = pytest.mark.slow

RECORD = "docs/verified-examples.yaml"
LEGACY = "registry/legacy-messages.json"


def pipe(path: Path) -> None:
    os.mkfifo(path)


def zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def huge(path: Path) -> None:
    with path.open("wb") as f:
        f.truncate(3 * 2**30)  # sparse: 3 GB that take no disk


def loop(path: Path) -> None:
    path.symlink_to(path.name)  # a link to itself


HOSTILE: dict[str, tuple[Callable[[Path], None], str]] = {
    "named pipe": (pipe, "named pipe"),
    "link to /dev/zero": (zero, "/dev/zero"),
    "3 GB": (huge, "larger than"),
    "link loop": (loop, "symbolic link loop"),
}


def replace(project: Project, relative: str, how: Callable[[Path], None]) -> None:
    path = project.root / relative
    path.unlink(missing_ok=True)
    how(path)


def assert_refused(result: subprocess.CompletedProcess[str], relative: str, says: str) -> None:
    one_line_error(result, says)
    assert relative in result.stderr, result.stderr


@pytest.mark.repo_data
@pytest.mark.parametrize("case", HOSTILE)
def test_the_build_refuses_a_hostile_record(project: Project, case: str) -> None:
    how, says = HOSTILE[case]
    replace(project, RECORD, how)
    docs = tree(project.docs)
    assert_refused(gbsite(project, "build"), RECORD, says)
    assert not project.site.exists() and tree(project.docs) == docs


@pytest.mark.repo_data
@pytest.mark.parametrize("case", HOSTILE)
@pytest.mark.parametrize("command", [["lookup", "--words", "skipped"], ["build"]])
def test_a_hostile_older_wordings_file(
    project: Project, case: str, command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    how, says = HOSTILE[case]
    replace(project, LEGACY, how)
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(project.root / ".cache"))  # no shared index
    assert_refused(gbsite(project, *command), LEGACY, says)


@pytest.mark.repo_data
@pytest.mark.parametrize("where", ["docs/gb/gb0003.md", "registry/resolved/2.13.0.yaml"])
@pytest.mark.parametrize("command", ["check", "build", "sync"])
def test_a_link_loop_among_the_inputs(project: Project, where: str, command: str) -> None:
    replace(project, where, loop)
    registry, docs = tree(project.registry), tree(project.docs)
    assert_refused(gbsite(project, command), where, "symbolic link loop")
    assert (tree(project.registry), tree(project.docs)) == (registry, docs)


@pytest.mark.repo_data
@pytest.mark.parametrize("case", HOSTILE)
def test_release_resolve_refuses_a_hostile_torch_tree(
    project: Project, tmp_path: Path, case: str
) -> None:
    how, says = HOSTILE[case]
    package = fake_torch(tmp_path / "tree")[1]
    how(package / "_dynamo" / "hostile.py")
    registry = tree(project.registry)
    result = gbsite(project, "release", "resolve", "2.13.0", "--torch-source", str(package))
    assert_refused(result, "hostile.py", says)
    assert tree(project.registry) == registry


@pytest.mark.repo_data
@pytest.mark.parametrize("case", HOSTILE)
def test_ci_merge_refuses_a_hostile_outcomes_file(
    project: Project, tmp_path: Path, case: str
) -> None:
    how, says = HOSTILE[case]
    outcomes = tmp_path / "outcomes"
    outcomes.mkdir()
    how(outcomes / "outcomes-2.13.0.json")
    record = (project.root / RECORD).read_bytes()
    result = gbsite(project, "ci", "merge", str(outcomes))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "outcomes-2.13.0.json" in result.stderr and says in result.stderr, result.stderr
    assert (project.root / RECORD).read_bytes() == record


# ---- read_input itself ------------------------------------------------------------------------


def test_read_input_reads_a_file_and_a_link_inside_its_tree(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"x" * 10)
    (tmp_path / "b.txt").symlink_to("a.txt")
    assert files.read_input(tmp_path / "b.txt", root=tmp_path, limit=10) == b"x" * 10
    with pytest.raises(files.InputTooLarge, match="larger than "):
        files.read_input(tmp_path / "a.txt", root=tmp_path, limit=9)
    with pytest.raises(FileNotFoundError):  # the caller decides what a missing file means
        files.read_input(tmp_path / "none.txt", root=tmp_path)


@pytest.mark.parametrize("size", [0, 10, 39])
def test_read_input_reads_what_a_file_grew_to_after_its_size_was_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    """read_input asks for the size fstat gave: a file that grew since is read whole up to the
    limit, and refused past it (0: a file whose size says nothing, as in /proc)."""
    path = tmp_path / "growing.txt"
    path.write_bytes(b"x" * 40)
    fstat = os.fstat

    def smaller(fd: int) -> os.stat_result:
        info = list(fstat(fd))
        info[6] = size  # st_size
        return os.stat_result(info)

    monkeypatch.setattr(os, "fstat", smaller)
    assert files.read_input(path, limit=40) == b"x" * 40
    with pytest.raises(files.InputTooLarge, match="larger than "):
        files.read_input(path, limit=39)


def test_read_input_refuses_a_link_out_of_its_tree_and_a_folder(tmp_path: Path) -> None:
    inside, outside = tmp_path / "tree", tmp_path / "elsewhere.txt"
    inside.mkdir()
    outside.write_text("secret")
    (inside / "link.txt").symlink_to(outside)
    with pytest.raises(GbsiteError, match=f"outside {inside}"):
        files.read_input(inside / "link.txt", root=inside)
    with pytest.raises(GbsiteError, match="is a folder"):
        files.read_input(inside, root=tmp_path)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pipe opened without blocking")
def test_read_input_never_blocks_on_a_pipe_swapped_in(tmp_path: Path) -> None:
    """check_input passed a regular file, then the file became a pipe: the open does not wait
    for a writer, and the opened file is refused."""
    path = tmp_path / "swapped"
    path.write_text("")
    original = files.check_input

    def swap(p: Path, root: Path | None = None) -> None:
        original(p, root)
        p.unlink()
        os.mkfifo(p)

    files.check_input = swap  # type: ignore[assignment]
    try:
        with pytest.raises(GbsiteError, match="named pipe"):
            files.read_input(path, root=tmp_path)
    finally:
        files.check_input = original  # type: ignore[assignment]

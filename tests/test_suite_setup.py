"""Where the tests' temporary folders are (conftest.py): in memory when it has room, else where
the system keeps them, and where TMPDIR says when it is set; those of passing tests removed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import conftest
from conftest import MEMORY, REPO, memory_folder

WHERE = """
import os

def test_passes(tmp_path):
    (tmp_path / "written").write_text("")
    print("TMP_PATH", tmp_path, os.environ.get("TMPDIR"))

def test_fails(tmp_path):
    (tmp_path / "written").write_text("")
    print("TMP_PATH", tmp_path, os.environ.get("TMPDIR"))
    assert False
"""


def this_conftest_on(
    tests: Path, cwd: Path, env: dict[str, str], *options: str
) -> subprocess.CompletedProcess[str]:
    """A pytest run with this repository's settings and conftest (data_reads.py with it) on
    test files of their own in `tests`, started in `cwd`."""
    env = {**env, "PYTHONPATH": os.pathsep.join([str(REPO / "tests"), env.get("PYTHONPATH", "")])}
    args = ["-c", str(REPO / "pyproject.toml"), "-p", "conftest", "-n", "0", *options]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider", str(tests)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
@pytest.mark.parametrize("told", [False, True], ids=["not told", "TMPDIR"])
def test_where_a_run_keeps_its_temporary_folders(tmp_path: Path, told: bool) -> None:
    """A run with this conftest: its folders in MEMORY when it has room and TMPDIR names no
    other place, else in TMPDIR; a passing test's folder gone when it ends, a failing one's
    kept."""
    (tmp_path / "test_where.py").write_text(WHERE)
    env = {k: v for k, v in os.environ.items() if k != "TMPDIR"}
    place = tmp_path / "place"
    if told:
        place.mkdir()
        env["TMPDIR"] = str(place)
    done = this_conftest_on(tmp_path, tmp_path, env, "-s")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # one test failed
    printed = re.findall(r"^.*?TMP_PATH (\S+) (\S+)$", done.stdout, re.MULTILINE)
    (passed, tmpdir), (failed, _) = [(Path(p), t) for p, t in printed]
    try:
        where = place if told else memory_folder()  # None: the system's temporary folder
        for folder in (passed, failed):
            assert folder.is_relative_to(where) if where else not folder.is_relative_to(MEMORY)
        assert tmpdir == str(where)  # what the run's child processes are given ("None": unset)
        assert not passed.exists()  # tmp_path_retention_policy = "failed"
        assert (failed / "written").is_file()
    finally:
        run = failed.parent  # the failed run's numbered folder, which pytest keeps
        if run.name.startswith("pytest-"):
            shutil.rmtree(run, ignore_errors=True)


def test_memory_is_used_only_with_room(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A folder is used when it is writable and has MEMORY_NEEDED bytes free; not when it has
    less (Docker's 64 MiB /dev/shm), is missing or is a file."""
    monkeypatch.setattr(conftest, "MEMORY", tmp_path)
    assert memory_folder() == tmp_path
    monkeypatch.setattr(conftest, "MEMORY_NEEDED", 2**62)
    assert memory_folder() is None
    monkeypatch.undo()
    monkeypatch.setattr(conftest, "MEMORY", tmp_path / "missing")
    assert memory_folder() is None
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(conftest, "MEMORY", tmp_path / "file")
    assert memory_folder() is None


READERS = """
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(os.environ["GBSITE_DATA_ROOT"])
ENTRY = ROOT / "registry" / "gb" / "GB0001.yaml"


@pytest.fixture(scope="session")
def sources():
    return (ROOT / "registry" / "sources.yaml").read_text()


def test_opens_an_entry():
    ENTRY.read_text()


@pytest.mark.repo_data
def test_marked_opens_an_entry():
    ENTRY.read_text()


@pytest.mark.browser
def test_browser_opens_an_entry():
    ENTRY.read_text()


def test_lists_the_docs():
    os.listdir(ROOT / "docs" / "gb")


def test_reads_the_record():
    (ROOT / "docs" / "verified-examples.yaml").read_text()


def test_opens_a_snapshot_and_what_no_import_writes():
    (ROOT / "registry" / "snapshots" / "2.8.0.json.gz").read_bytes()
    (ROOT / "registry" / "categories.yaml").read_text()
    (ROOT / "README.md").read_text()


def test_lists_the_snapshots():
    sorted((ROOT / "registry" / "snapshots").iterdir())


def test_sets_up_the_fixture(sources):
    pass


def test_uses_the_fixture_set_up(sources):
    pass


def test_starts_a_process_in_the_project():
    subprocess.run([sys.executable, "-c", "pass"], cwd=ROOT / "src", check=True)


def test_gives_a_process_a_data_path(tmp_path):
    subprocess.run([sys.executable, "-c", "pass", f"--docs={ROOT}/docs/gb"], cwd=tmp_path)


def test_gives_a_process_the_project(tmp_path):
    subprocess.run([sys.executable, "-c", "pass", "--root", str(ROOT)], cwd=tmp_path)


def test_starts_gbsite_on_a_project_elsewhere(tmp_path):
    subprocess.run([sys.executable, "-c", "pass", "--root", str(tmp_path)], cwd=ROOT / "src")


def test_starts_a_process_elsewhere(tmp_path):
    subprocess.run([sys.executable, "-c", "pass", str(ROOT / "README.md")], cwd=tmp_path)
"""
IMPORT_READS = """
import os
from pathlib import Path

SETTINGS = (Path(os.environ["GBSITE_DATA_ROOT"]) / "gbsite.toml").read_text()


def test_made_from_what_its_module_read():
    pass
"""


@pytest.mark.slow
def test_a_test_reading_the_data_without_the_mark_fails(tmp_path: Path) -> None:
    """data_reads.py, with this repository's conftest, in a run of tests on a project of their
    own: each test that reads the registry, docs, record or settings an import or a release
    writes, lists the snapshots, is given what a fixture read or what its module read, or starts
    a process that may read them, fails unless marked repo_data (or a browser test); opening a
    snapshot by name and reading other files is no such read."""
    root = tmp_path / "proj"
    for name in (
        "registry/gb/GB0001.yaml",
        "registry/sources.yaml",
        "registry/categories.yaml",
        "registry/snapshots/2.8.0.json.gz",
        "docs/gb/gb0001.md",
        "docs/verified-examples.yaml",
        "gbsite.toml",
        "README.md",
        "src/.keep",
    ):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_readers.py").write_text(READERS)
    (tests / "test_import_reads.py").write_text(IMPORT_READS)
    report = tmp_path / "report.xml"
    env = {**os.environ, "GBSITE_DATA_ROOT": str(root)}
    done = this_conftest_on(tests, tmp_path, env, "-q", f"--junitxml={report}")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    failed = {}
    for case in ET.parse(report).iter("testcase"):
        problem = case.find("error")
        assert case.find("failure") is None, case.get("name")
        failed[case.get("name")] = "" if problem is None else problem.get("message", "")
    unmarked = "without @pytest.mark.repo_data"
    assert {name for name, message in failed.items() if unmarked in message} == {
        "test_opens_an_entry",
        "test_lists_the_docs",
        "test_reads_the_record",
        "test_lists_the_snapshots",
        "test_sets_up_the_fixture",
        "test_uses_the_fixture_set_up",
        "test_starts_a_process_in_the_project",
        "test_gives_a_process_a_data_path",
        "test_gives_a_process_the_project",
        "test_made_from_what_its_module_read",
    }
    assert not any(failed[name] for name in failed if unmarked not in failed[name])
    assert len(failed) == 15  # every test ran
    assert "fixture sources: " in failed["test_uses_the_fixture_set_up"]


def test_the_rehearsal_refuses_a_folder_that_exists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tests/rehearsal.py writes its copy into a new folder only: one line, exit 2, nothing
    written. (What it does in a new one, tests/test_living.py plays step by step.)"""
    import rehearsal

    (tmp_path / "mine.txt").write_text("kept")
    assert rehearsal.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rehearsal: ") and "exists" in err and err.count("\n") == 1
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


@pytest.mark.slow
@pytest.mark.repo_data
def test_a_copy_without_git_has_the_code_tests_and_data(tmp_path: Path) -> None:
    """tests/rehearsal.py copies the repository without git when there is none (a copy of a copy:
    the weekly rehearsal's own test_living): every file git lists is there, code included
    (src/gbsite/site once went missing, taken for a built site)."""
    import rehearsal

    listed = rehearsal.git_files()
    if listed is None:
        pytest.skip("no git here")
    copy = rehearsal.copy_repository(tmp_path / "copy", use_git=False)
    wanted = {n for n in listed if (conftest.REPO / n).is_file()}
    assert {"src/gbsite/site/build.py", "tests/rehearsal.py"} <= wanted
    missing = sorted(n for n in wanted if not (copy / n).is_file())
    assert missing == []
    assert not (copy / ".git").exists() and not (copy / "site").exists()

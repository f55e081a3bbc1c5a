"""Faults of adding a release and of reading deep or forged input (a review of issue 35's suite).

`release add` run twice at once, or killed with SIGKILL at many points, then run again; input
nested deeper than any reader recurses (a torch source expression, the older wordings' JSON);
and input that is small but wrong (adopt's names differing in case, a forged torch version, an
unknown key in the record). Each case runs the command line in child processes
(test_faults.gbsite: within a time limit, never a traceback) and checks what the user relies on:
one line and exit 2 for bad input, and registry/, gbsite.toml, docs/gb/ and the record as they
were or wholly new.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Project, example_releases, item, labels, snapshot
from gbsite import config, releases
from gbsite.registry import store
from test_faults import TIME_LIMIT, gbsite, leftovers, one_line_error, tree

# As in test_faults.py: every case runs the command line in child processes, seconds each.
pytestmark = pytest.mark.slow

Files = tuple[dict[str, bytes], bytes, dict[str, bytes], bytes]


def files(project: Project) -> Files:
    """registry/, gbsite.toml, docs/gb/ and the record, byte for byte."""
    return (
        tree(project.registry),
        (project.root / "gbsite.toml").read_bytes(),
        tree(project.docs),
        project.docs.parent.joinpath("verified-examples.yaml").read_bytes(),
    )


# ---- release add: whole, or finished by running it again ------------------------------------


def next_releases(count: int) -> list[str]:
    """`count` releases newer than every release imported or listed, in order."""
    known = [v for r in (*labels(), *example_releases()) if (v := releases.version(r))]
    major, minor = max(known)[:2]
    return [f"{major}.{minor + n}.0" for n in range(1, count + 1)]


def release_file(project: Project, release: str) -> Path:
    """The newest snapshot as release `release`'s registry, every explanation reworded: its
    import changes every file of registry/gb/ and its sync every page."""
    data = json.loads(gzip.decompress(snapshot(labels()[-1]).read_bytes()))
    for items in data.values():
        items[0]["Explanation"] += f" (reworded in {release})"
    return project.write_upstream(f"torch-{release}.json", data)


def listed_and_imported(project: Project, release: str) -> tuple[bool, bool]:
    return (
        release in config.load(project.root).example_releases,
        release in store.load(project.registry).labels,
    )


def start(project: Project, *args: str, out: bool = False) -> subprocess.Popen[bytes]:
    """`gbsite ARGS` in a child process; with `out`, what it prints is kept."""
    kept = subprocess.PIPE if out else subprocess.DEVNULL
    return subprocess.Popen(
        [sys.executable, "-m", "gbsite", "--root", str(project.root), *args],
        stdout=kept,
        stderr=kept,
    )


@pytest.mark.repo_data
def test_two_release_adds_at_once_both_land_or_one_is_refused(project: Project) -> None:
    """Both read gbsite.toml under the lock of registry/: the second sees the first's release.
    (Read before the lock, the second wrote its list over the first's.)"""
    added = next_releases(2)
    sources = {r: release_file(project, r) for r in added}
    procs = {r: start(project, "release", "add", r, str(sources[r]), out=True) for r in added}
    ended: dict[str, tuple[int, str]] = {}
    for release, proc in procs.items():
        _, err = proc.communicate(timeout=TIME_LIMIT * 2)  # one waits for the other
        ended[release] = (proc.returncode, err.decode())
        assert "Traceback" not in ended[release][1]
    assert all(proc.poll() is not None for proc in procs.values())
    done = [r for r, (code, _) in ended.items() if code == 0]
    assert done, ended
    for release, (code, said) in ended.items():
        if code != 0:
            # Only the older, after the newer: releases are added oldest first.
            assert (code, release) == (2, added[0]), ended
            assert len(said.splitlines()) == 1 and f"is older than {added[1]}" in said, said
            assert listed_and_imported(project, release) == (False, False)
    for release in done:
        assert listed_and_imported(project, release) == (True, True), (release, ended)
    assert config.load(project.root).example_releases[-len(done) :] == tuple(done)
    check = gbsite(project, "check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert leftovers(project) == []


def kill_when(proc: subprocess.Popen[bytes], parent: Path, prefix: str, delay: float) -> None:
    """SIGKILL `proc` `delay` seconds after a folder named `prefix...` appears in `parent` (at
    once if it ended first), and wait for it."""
    deadline = time.monotonic() + TIME_LIMIT
    while proc.poll() is None and time.monotonic() < deadline:
        if any(p.name.startswith(prefix) for p in parent.iterdir()):
            break
        time.sleep(0.001)
    time.sleep(delay)
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=TIME_LIMIT)


def restore(project: Project, saved: Files) -> None:
    """Put registry/, gbsite.toml, docs/gb/ and the record back as `saved` has them."""
    registry, toml, docs, record = saved
    for folder, content in ((project.registry, registry), (project.docs, docs)):
        for path in sorted(folder.rglob("*"), reverse=True):
            if path.is_dir():
                path.rmdir()
            else:
                path.unlink()
        for rel, data in content.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    (project.root / "gbsite.toml").write_bytes(toml)
    project.docs.parent.joinpath("verified-examples.yaml").write_bytes(record)
    for parent in (project.root, project.docs.parent):
        for path in parent.iterdir():
            if path.name.startswith((".registry.", ".gb.")):
                shutil.rmtree(path)


@pytest.mark.repo_data
def test_a_release_add_killed_anywhere_is_finished_by_running_it_again(project: Project) -> None:
    """Killed with SIGKILL from its staging of registry/ to its sync of docs/gb/: each of
    registry/, gbsite.toml and docs/gb/ is old or wholly new, in the order the command writes
    them (gbsite.toml, registry/, docs/gb/), and the same command run again finishes the add:
    the files are those of an add never interrupted, and check passes. (Killed after the swap
    of registry/, the run again was refused: "already imported", docs/gb/ left stale.)"""
    release = next_releases(1)[0]
    args = ("release", "add", release, str(release_file(project, release)))
    before = files(project)
    whole = gbsite(project, *args)
    assert whole.returncode == 0, whole.stderr
    after = files(project)
    assert all(old != new for old, new in zip(before[:3], after[:3], strict=True))
    assert before[3] == after[3]  # the record: release add leaves it to CI
    # When each kill lands: into the staging of registry/ (the import, gbsite.toml's write, the
    # swap), then as soon as docs/gb/ is staged (registry/ swapped, docs/gb/ not yet).
    points = [(".registry.new-", d) for d in (0.0, 0.05, 0.2, 0.5)] + [(".gb.new-", 0.0)] * 2
    seen: set[tuple[bool, bool, bool]] = set()
    for prefix, delay in points:
        restore(project, before)
        parent = project.docs.parent if prefix.startswith(".gb.") else project.root
        kill_when(start(project, *args), parent, prefix, delay)
        now = files(project)
        new = tuple(n == a for n, a in zip(now[:3], after[:3], strict=True))
        for part, (n, o, a) in enumerate(zip(now[:3], before[:3], after[:3], strict=True)):
            assert n in (o, a), f"killed at {prefix}+{delay}: part {part} is a mix"
        registry_new, toml_new, docs_new = new
        assert (registry_new <= toml_new) and (docs_new <= registry_new), (prefix, delay, new)
        seen.add((registry_new, toml_new, docs_new))
        again = gbsite(project, *args)
        if all(new):
            assert again.returncode == 2 and "already, and imported" in again.stderr
        else:
            assert again.returncode == 0, (prefix, delay, new, again.stderr)
        assert files(project) == after, (prefix, delay, new)
        assert leftovers(project) == []
        check = gbsite(project, "check")
        assert check.returncode == 0, check.stdout + check.stderr
    # The kills did land where a run again has the most to finish: registry/ new, docs/gb/ old.
    assert (True, True, False) in seen, seen


# ---- bounded structure: deep source expressions, deep JSON ---------------------------------

TERMS = 700  # strings joined with `+`: parses, and is deeper than ast.unparse can recurse


def joined(count: int, term: str = '"a"') -> str:
    return " + ".join([term] * count)


DEEP = f"""
from torch._dynamo.exc import unimplemented

LONG = {joined(TERMS)}
DEEP_F = f"{{{joined(TERMS, "x")}}}"


def deep(explained):
    unimplemented(gb_type={joined(TERMS)}, context="", explanation=explained, hints=[])
    unimplemented(gb_type="Long", context="", explanation=LONG, hints=[])
    unimplemented(gb_type="Deep f", context="", explanation=DEEP_F, hints=[])
"""


def deep_torch_tree(root: Path) -> Path:
    """test_resolve's torch tree, with a file of calls and names deeper than recursion goes."""
    from test_resolve import torch_tree

    folder = torch_tree(root)
    (folder / "_dynamo" / "deep.py").write_text(DEEP)
    return folder


def deep_registry(tmp_path: Path) -> Path:
    from test_resolve import REGISTRY

    data = {**REGISTRY, "GB0006": [item("Long", "", "LONG", [])]}
    data["GB0007"] = [item("Deep f", "", "DEEP_F", [])]
    path = tmp_path / "graph_break_registry.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def test_source_expressions_deeper_than_recursion_are_skipped_with_a_notice(
    empty_project: Project, tmp_path: Path
) -> None:
    """A call whose `gb_type=` is too deep to read is skipped, and said to be; a name bound to
    a long `+` of strings is resolved all the same; one bound to an f-string too deep to read is
    left as written, with the reason. (The first was a RecursionError: exit 3.)"""
    folder = deep_torch_tree(tmp_path / "env")
    line = next(n for n, t in enumerate(DEEP.split("\n"), 1) if "gb_type=" in t)
    notice = f"skipped: torch/_dynamo/deep.py:{line}: a graph-break call nested more than"
    source = deep_registry(tmp_path)
    before = tree(empty_project.registry)
    for args in (
        ("import", str(source), "--label", "2.16.0", "--torch-source", str(folder), "-v"),
        ("release", "resolve", "2.16.0", "--torch-source", str(folder), "-v"),
    ):
        result = gbsite(empty_project, *args)
        assert result.returncode == 0, result.stderr
        assert notice in result.stdout, result.stdout
        assert f"GB0006 explanation LONG: torch/_dynamo/deep.py:{line - 5}" in result.stdout
        assert "left: GB0007 explanation DEEP_F: `DEEP_F` is nested more than" in result.stdout
    [resolution] = store.load(empty_project.registry).resolutions.values()
    assert "a" * TERMS in {r.text for r in resolution.resolved}
    assert tree(empty_project.registry) != before


def test_torch_source_strings_of_a_deep_file(tmp_path: Path) -> None:
    """`check --examples` reads the strings of a cited file: one too deep for ast.unparse or for
    the parser itself is read without a RecursionError."""
    from gbsite.examples.torchsource import TorchSource

    folder = deep_torch_tree(tmp_path / "env")
    source = TorchSource(folder)
    assert "Long" in source.strings(folder / "_dynamo" / "deep.py")
    parser_limit = folder / "_dynamo" / "deeper.py"
    parser_limit.write_text(f"gb_type = {joined(TERMS * 10)}\n")
    assert source.strings(parser_limit) == set()


@pytest.mark.repo_data
@pytest.mark.parametrize("name", ["legacy-messages.json", "adjacent-messages.json"])
def test_older_wordings_nested_deeper_than_recursion(project: Project, name: str) -> None:
    """lookup and build read the older wordings: 100,000 nested lists are one line, exit 2."""
    path = project.registry / name
    path.write_text('{"messages":\n' + "[" * 100_000 + "]" * 100_000 + "}\n")
    before = files(project)
    for args in (("lookup", "--words", "data", "dependent"), ("build",)):
        result = gbsite(project, *args)
        one_line_error(result, f"{name}:2: invalid JSON: nested more than")
        assert files(project) == before
    assert not project.site.exists()


# ---- smaller: adopt's names, a torch tree's version, the record's keys ---------------------


@pytest.mark.repo_data
def test_adopt_refuses_two_files_of_one_id_named_in_different_case(
    project: Project, tmp_path: Path
) -> None:
    """gb0029.md and GB0029.md with different notes: both named, nothing written (one was
    adopted and the other skipped without a word)."""
    from test_adopt import JEKYLL

    folder = tmp_path / "old"
    folder.mkdir()
    lower = folder / "gb0029.md"
    shutil.copy(JEKYLL / "site" / "gb0029.md", lower)
    text = lower.read_text()
    upper = folder / "GB0029.md"
    upper.write_text(text.replace("-->\n", "-->\nOther notes, from another copy.\n", 1))
    assert upper.read_text() != text
    before = files(project)
    result = gbsite(project, "adopt", str(folder))
    one_line_error(result, "GB0029.md and gb0029.md", "differ only in case")
    assert files(project) == before


FORGED = "2.16.0\n\x1b[31m::error file=x::forged"


def test_a_forged_torch_version_is_refused_on_one_line(
    empty_project: Project, tmp_path: Path
) -> None:
    """torch/version.py's `__version__` with a line break, ESC and a workflow command: a
    one-line error, nothing written (it was printed raw in the summary, a forged `::error`)."""
    from test_resolve import registry_json, torch_tree

    folder = torch_tree(tmp_path / "env", version=FORGED)
    source = registry_json(tmp_path)
    before = tree(empty_project.registry)
    for args in (
        ("import", str(source), "--label", "2.16.0", "--torch-source", str(folder)),
        ("release", "resolve", "2.16.0", "--torch-source", str(folder)),
    ):
        result = gbsite(empty_project, *args)
        one_line_error(result, "version.py:1: __version__ ", "is not a torch version")
        said = result.stdout + result.stderr
        assert "\x1b" not in said
        assert not [line for line in said.splitlines() if line.lstrip().startswith("::")]
        assert tree(empty_project.registry) == before
        if args[0] == "import":  # then the snapshot alone, for release resolve to resolve
            assert gbsite(empty_project, "import", str(source), "--label", "2.16.0").returncode == 0
            before = tree(empty_project.registry)


@pytest.mark.repo_data
def test_the_record_refuses_an_unknown_top_level_key(project: Project) -> None:
    """As it refuses an unknown key in a row, with its line (it was ignored)."""
    path = project.docs.parent / "verified-examples.yaml"
    text = path.read_text()
    path.write_text(text + "forged: 1\n")
    line = text.count("\n") + 1
    before = files(project)
    for args in (("build",), ("check", "--record")):
        result = gbsite(project, *args)
        one_line_error(result, f"verified-examples.yaml:{line}: ", "unknown key 'forged'")
        assert files(project) == before

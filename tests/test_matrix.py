"""Examples on several torch releases (issue 25): the record's outcomes per release, what the
pages say about them, re-runs that disagree, unknown releases and interrupted installs."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import Project, fake_torch, line_of, page
from gbsite.docs import files as docs
from gbsite.examples import annotations as examples
from gbsite.examples import record
from gbsite.examples.vocabulary import Outcome

BREAK = (
    'if __import__("torch").compiling: '
    'raise RuntimeError("For more details, please visit: https://x.io/gb/gb{}.html")'
)
REPRO_AND_FIX = (
    f"```python gb-repro\ndef fn():\n    {BREAK.format('0025')}\nfn()\n```\n\n"
    "```python gb-fix\ndef fn():\n    return 1\nfn()\nfn()\n```\n"
)


@pytest.fixture
def project(history: Project) -> Project:
    """The project these tests change: that of the HISTORY releases (conftest.py), whose
    examples run against 2.13.0, 2.14.1 and 2.15.0, with no contributed text and an empty
    record, so that nothing a later import, release or page adds changes what they see."""
    return history


@pytest.fixture(scope="module")
def fake_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    return fake_torch(tmp_path_factory.mktemp("faketorch"))[0]


def record_file(project: Project) -> Path:
    return project.root / "docs" / "verified-examples.yaml"


def set_outcomes(project: Project, gb_id: str, path: Path, **by_kind: dict[str, str]) -> None:
    """Write outcomes (by release, as the record writes them) for the blocks of a page, as runs
    with several releases would."""
    runs = record.read(record_file(project))
    for b in examples.blocks_of(gb_id, docs.read(path)):
        parsed = {r: Outcome.parse(text) for r, text in by_kind[b.kind].items()}
        assert None not in parsed.values(), parsed
        outcomes = {r: o for r, o in parsed.items() if o is not None}
        runs.rows[b.key] = record.Row(gb_id, b.kind, b.line, b.digest, outcomes)
    record.write(record_file(project), runs)


def states_by_release(project: Project, gb_id: str) -> dict[str, str]:
    """The page's coverage state with each release of the examples, as `gbsite coverage` says."""
    states = {}
    for release in ("2.13.0", "2.14.1", "2.15.0"):
        data = json.loads(project.run("coverage", "--format", "json", "--release", release).out)
        states[release] = next(e["status"] for e in data["ids"] if e["id"] == gb_id)
    return states


@pytest.mark.slow  # builds the whole site
def test_an_outcome_that_changes_between_releases_shows_on_the_page(project: Project) -> None:
    path = page(project, "GB0025", REPRO_AND_FIX)
    set_outcomes(
        project,
        "GB0025",
        path,
        **{
            "gb-repro": {"2.13.0": "breaks", "2.14.1": "breaks", "2.15.0": "no-break"},
            "gb-fix": {"2.13.0": "runs", "2.14.1": "runs", "2.15.0": "runs"},
        },
    )
    assert project.run("build").code == 0
    html = (project.site / "gb" / "gb0025.html").read_text()
    assert (
        '<span class="outcomes">torch <span class="verified">2.13.0 breaks</span> · '
        '<span class="verified">2.14.1 breaks</span> · '
        '<span class="unverified">2.15.0 no break</span></span>'
    ) in html
    assert (
        "<strong>Fixed in torch 2.15.0</strong>: upgrading to torch 2.15.0 removes this break "
        "for code like the example below, which breaks with torch 2.13.0 and 2.14.1"
    ) in html
    dashboard = (project.site / "dashboard.html").read_text()
    assert 'id="coverage-by-release"' in dashboard
    # The page is verified on the two older releases and fixed on the newest.
    states = states_by_release(project, "GB0025")
    assert states == {"2.13.0": "verified", "2.14.1": "verified", "2.15.0": "fixed"}


@pytest.mark.repo_data
@pytest.mark.slow  # `gbsite check` and the record over a whole project, several releases
def test_a_rerun_that_disagrees_with_the_record_fails(project: Project, fake_python: str) -> None:
    path = page(project, "GB0025", REPRO_AND_FIX)
    run = ("check", "--examples", "GB0025", "--python", fake_python)
    assert project.run(*run).code == 0
    [repro] = [b for b in examples.blocks_of("GB0025", docs.read(path)) if b.kind == "gb-repro"]
    runs = record.read(record_file(project))
    assert runs.outcome(repro.key, "2.13.0") == record.BREAKS
    # The record says the repro stopped breaking with 2.13.0; a re-run says it breaks.
    runs.rows[repro.key].outcomes["2.13.0"] = record.NO_BREAK
    record.write(record_file(project), runs)
    before = record_file(project).read_bytes()
    result = project.run(*run)
    assert result.code == 1
    assert (
        f"gb0025.md:{line_of(path, 'gb-repro')}: gb-repro recorded `no-break` with torch 2.13.0, "
        "now `breaks`"
    ) in result.out
    assert record_file(project).read_bytes() == before
    # --accept records what happens now.
    assert project.run(*run, "--accept").code == 0
    assert record.read(record_file(project)).outcome(repro.key, "2.13.0") == record.BREAKS


@pytest.mark.repo_data
@pytest.mark.slow  # `gbsite check` and the record over a whole project, several releases
def test_a_later_release_records_any_outcome_the_home_release_must_pass(
    project: Project, tmp_path: Path
) -> None:
    """With torch 2.15.0 a repro that no longer breaks is recorded; with its first release of
    the examples (2.13.0 for GB0025) the same outcome fails the check."""
    python, _ = fake_torch(tmp_path / "t215")
    torch_init = Path(python).parent / "torch" / "__init__.py"
    torch_init.write_text(
        torch_init.read_text().replace('__version__ = "2.13.0+fake"', '__version__ = "2.15.0"')
    )
    path = page(project, "GB0025", "```python gb-repro\ndef fn():\n    return 1\nfn()\nfn()\n```\n")
    later = project.run("check", "--examples", "GB0025", "--python", python)
    assert later.code == 0, later.out
    assert "no break with torch 2.15.0 (recorded)" in later.out
    [repro] = examples.blocks_of("GB0025", docs.read(path))
    assert record.read(record_file(project)).outcome(repro.key, "2.15.0") == record.NO_BREAK
    # Not run with 2.13.0 and 2.14.1 yet: pending (CI runs it), not a failure.
    check = project.run("check", "--record")
    assert check.code == 0, check.out
    assert (
        f"gb0025.md:{line_of(path, 'gb-repro')}: gb-repro not run yet with torch "
        "2.13.0, 2.14.1: CI's examples jobs run it and record the outcome (locally: `gbsite "
        "check --examples GB0025 --torch all`)"
    ) in check.out
    # Recorded with its home release as not breaking: that fails.
    runs = record.read(record_file(project))
    runs.rows[repro.key].outcomes.update({"2.13.0": record.NO_BREAK, "2.14.1": record.NO_BREAK})
    record.write(record_file(project), runs)
    check = project.run("check", "--record")
    assert check.code == 1
    assert (
        f"gb0025.md:{line_of(path, 'gb-repro')}: gb-repro is recorded as `no-break` with torch "
        "2.13.0, where it must do what it promises"
    ) in check.out


@pytest.mark.slow  # builds the whole site
def test_a_fix_recorded_as_called_once_fails_the_record_check(project: Project) -> None:
    path = page(project, "GB0025", REPRO_AND_FIX)
    called = {"2.13.0": "once", "2.14.1": "runs", "2.15.0": "runs"}
    breaks = dict.fromkeys(called, "breaks")
    set_outcomes(project, "GB0025", path, **{"gb-repro": breaks, "gb-fix": called})
    check = project.run("check", "--record")
    assert check.code == 1
    assert (
        f"gb0025.md:{line_of(path, 'gb-fix')}: gb-fix is recorded as `once` with torch "
        "2.13.0, where it must do what it promises\n"
    ) in check.out
    assert project.run("build").code == 0
    html = (project.site / "gb" / "gb0025.html").read_text()
    assert '<span class="unverified">2.13.0 called once</span>' in html


def fake_release(tmp_path: Path, version: str) -> str:
    """A fake torch that says it is `version`."""
    python, _ = fake_torch(tmp_path)
    init = Path(python).parent / "torch" / "__init__.py"
    init.write_text(init.read_text().replace('"2.13.0+fake"', f'"{version}"'))
    return python


NEWER_REPRO = "```python gb-repro since=2.15.0\ndef fn():\n    return 1\nfn()\nfn()\n```\n"


@pytest.mark.repo_data
@pytest.mark.slow  # whole-project commands, seconds in all
def test_a_block_for_a_newer_torch_must_pass_with_that_release(
    project: Project, fake_python: str, tmp_path: Path
) -> None:
    """`since=2.15.0`: what the block does with 2.13.0 (GB0025's home) is only recorded; with
    2.15.0 it must do what it promises, in a run and in `check --record`."""
    path = page(project, "GB0025", REPRO_AND_FIX + "\n" + NEWER_REPRO)
    line = line_of(path, "since=2.15.0")
    older = project.run("check", "--examples", "GB0025", "--python", fake_python)
    assert older.code == 0, older.out
    assert "no break with torch 2.13.0 (recorded)" in older.out
    newer = project.run(
        "check", "--examples", "GB0025", "--python", fake_release(tmp_path, "2.15.0")
    )
    assert newer.code == 1
    assert f"gb0025.md:{line}: gb-repro " in newer.out
    assert "(recorded)" not in newer.out.split(f"gb0025.md:{line}:")[1].splitlines()[0]
    # With every outcome filled in, the record check holds it against 2.15.0 too.
    runs = record.read(record_file(project))
    for b in examples.blocks_of("GB0025", docs.read(path)):
        outcome = record.NO_BREAK if b.since else record.passing(b.kind)
        runs.rows[b.key] = record.Row("GB0025", b.kind, b.line, b.digest, {
            r: outcome for r in ("2.13.0", "2.14.1", "2.15.0")
        })  # fmt: skip
    record.write(record_file(project), runs)
    check = project.run("check", "--record")
    assert check.code == 1
    assert (
        f"gb0025.md:{line}: gb-repro is recorded as `no-break` with torch 2.15.0, where it must "
        "do what it promises"
    ) in check.out
    # The same record with the newer repro breaking there: verified with every release.
    newer_repro = next(b for b in examples.blocks_of("GB0025", docs.read(path)) if b.since)
    runs.rows[newer_repro.key].outcomes["2.15.0"] = record.BREAKS
    record.write(record_file(project), runs)
    assert project.run("check", "--record").code == 0


@pytest.mark.slow  # builds the whole site
def test_a_status_block_since_a_release_holds_from_that_release_on(project: Project) -> None:
    """GB0025's repro and fix are for 2.13.0; from 2.14.1 on, torch no longer raises it."""
    status = (
        "```yaml gb-status\nstatus: unraised\nsince: 2.14.1\nreplaced-by: GB0026\n"
        "reason: The check moved into GB0026's handler.\n```\n"
    )
    path = page(project, "GB0025", REPRO_AND_FIX + "\n" + status)
    set_outcomes(
        project,
        "GB0025",
        path,
        **{
            "gb-repro": {"2.13.0": "breaks", "2.14.1": "breaks GB0026", "2.15.0": "breaks GB0026"},
            "gb-fix": {"2.13.0": "runs", "2.14.1": "runs", "2.15.0": "runs"},
        },
    )
    assert project.run("check", "--record").code == 0
    states = states_by_release(project, "GB0025")
    assert states == {"2.13.0": "verified", "2.14.1": "unraised", "2.15.0": "unraised"}
    assert project.run("build").code == 0
    html = (project.site / "gb" / "gb0025.html").read_text()
    assert (
        "torch 2.14.1 and later do not raise it; GB0026 took its place; the examples below are "
        "for torch 2.13.0"
    ) in html
    # The status block, in words: what holds from 2.14.1 on (the newest release's state).
    assert "<strong>No longer raised, from torch 2.14.1 on.</strong>" in html


@pytest.mark.slow  # `gbsite check` and the record over a whole project, several releases
def test_examples_for_a_newer_torch_end_an_internal_state(project: Project) -> None:
    """GB0025 internal (no user program reaches it with 2.13.0), reached from 2.14.1 on by the
    blocks written for that torch: internal with 2.13.0, verified with the newer releases."""
    status = (
        "```yaml gb-status\nstatus: internal\nsource: torch/_dynamo/variables/base.py\n"
        "function: VariableTracker.hash_impl\nreason: Nothing reaches it with 2.13.0.\n```\n"
    )
    newer = (
        "```python gb-repro since=2.14.1\ndef fn():\n    " + BREAK.format("0025") + "\nfn()\n```\n"
        "\n```python gb-fix since=2.14.1\ndef fn():\n    return 1\nfn()\nfn()\n```\n"
    )
    path = page(project, "GB0025", status + "\n" + newer)
    set_outcomes(
        project,
        "GB0025",
        path,
        **{
            "gb-repro": {"2.13.0": "breaks GB2861", "2.14.1": "breaks", "2.15.0": "breaks"},
            "gb-fix": {"2.13.0": "runs", "2.14.1": "runs", "2.15.0": "runs"},
        },
    )
    assert project.run("check").code == 0
    assert project.run("check", "--record").code == 0
    states = states_by_release(project, "GB0025")
    assert states == {"2.13.0": "internal", "2.14.1": "verified", "2.15.0": "verified"}


@pytest.mark.slow  # whole-project commands, seconds in all
@pytest.mark.parametrize(
    ("block", "needle", "message"),
    [
        (
            "```python gb-fix since=2.99.0\nfn = int\nfn()\n```\n",
            "since=2.99.0",
            "since 2.99.0: not a release of the examples (2.13.0, 2.14.1, 2.15.0 in gbsite.toml)",
        ),
        (
            "```python gb-fix since=2.13.0\nfn = int\nfn()\n```\n",
            "since=2.13.0",
            "since 2.13.0: GB0025's examples are for torch 2.13.0 already; name a newer "
            "release, or remove it",
        ),
        (
            "```python gb-fix since=2.15\nfn = int\nfn()\n```\n",
            "since=2.15",
            "`since=2.15`: a torch release of the examples, such as 2.15.0",
        ),
        (
            "```yaml gb-status\nstatus: environment\nsince: 2.15.0\nneeds: cuda\nreason: x\n"
            "source: torch/a.py\nfunction: f\n```\n",
            "gb-status",
            "`since:` is for a break a newer torch no longer raises or lets a program reach "
            "(status internal or unraised), not `environment`",
        ),
        (
            "```yaml gb-status\nstatus: unraised\nsince: 2.15.0\nreason: x\n```\n" + NEWER_REPRO,
            "since=2.15.0",
            "a status block and examples both from torch 2.15.0: which holds there?",
        ),
    ],
)
def test_since_names_a_newer_release_of_the_examples(
    project: Project, block: str, needle: str, message: str
) -> None:
    path = page(project, "GB0025", REPRO_AND_FIX + "\n" + block)
    result = project.run("check")
    assert result.code == 1, result.out
    assert f"gb0025.md:{line_of(path, needle)}: {message}" in result.out + result.err


def test_two_status_blocks_for_the_same_release_are_refused(project: Project) -> None:
    later = "```yaml gb-status\nstatus: unraised\nsince: 2.14.1\nreason: {}\n```\n"
    path = page(project, "GB0025", REPRO_AND_FIX + later.format("one") + later.format("two"))
    result = project.run("check")
    assert result.code == 1
    assert (
        f"gb0025.md:{line_of(path, 'reason: two') - 3}: a second status block from torch "
        "2.14.1: a page has one state for a release"
    ) in result.out


@pytest.mark.slow  # `gbsite check` and the record over a whole project, several releases
@pytest.mark.repo_data
def test_the_committed_record_is_complete() -> None:
    """What .ci/run checks: every block of docs/gb/ has an outcome for every release."""
    result = subprocess.run(
        [sys.executable, "-m", "gbsite", "check", "--record"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[1],
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr


def test_an_unknown_release_is_one_line_and_changes_nothing(project: Project) -> None:
    before = record_file(project).read_bytes()
    result = project.run("check", "--examples", "--torch", "2.99.0")
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        "gbsite: torch 2.99.0 is not a release of the examples (2.13.0, 2.14.1, 2.15.0): use "
        "one of those or `all`, or add it to [examples] releases in gbsite.toml"
    ]
    assert record_file(project).read_bytes() == before


def test_releases_in_the_config_are_validated(project: Project) -> None:
    config = project.root / "gbsite.toml"
    text = config.read_text()
    config.write_text(text.replace('"2.13.0", "2.14.1", "2.15.0"', '"2.15.0", "2.13.0"'))
    result = project.run("check")
    assert result.code == 2
    assert "gbsite.toml:" in result.err and "lists each release once, oldest first" in result.err


class Silent:
    """A package index that accepts connections and never answers: pip waits on it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/simple"


@pytest.mark.slow
def test_an_interrupted_install_is_never_reused(project: Project, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    envs = cache / "torch"
    index = Silent()
    env = {
        **os.environ,
        "GBSITE_CACHE_DIR": str(cache),
        "PIP_INDEX_URL": index.url,
        "PIP_FIND_LINKS": "",
        "PIP_DEFAULT_TIMEOUT": "60",
        "PIP_RETRIES": "0",
    }
    before = record_file(project).read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gbsite", "check", "--examples", "--torch", "2.15.0"],
        cwd=project.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not index.held and time.monotonic() < deadline:
        time.sleep(0.1)
    assert index.held, "pip never asked the index"
    [partial] = list(envs.glob(".partial-2.15.0-*"))
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert partial.exists() and not (envs / "2.15.0").exists()

    # The next run (whose install fails at once: no index) removes it and says why in a line.
    env["PIP_NO_INDEX"] = "1"
    result = subprocess.run(
        [sys.executable, "-m", "gbsite", "check", "--examples", "--torch", "2.15.0"],
        cwd=project.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    [line] = [ln for ln in result.stderr.splitlines() if ln.startswith("gbsite: cannot")]
    assert line.startswith("gbsite: cannot install torch 2.15.0 into ")
    assert "Traceback" not in result.stderr
    assert not partial.exists()
    assert list(envs.iterdir()) == []
    assert record_file(project).read_bytes() == before

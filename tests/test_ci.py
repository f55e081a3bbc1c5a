"""A pull request played end to end on one machine, as CI runs it (ci.yml): a contributor adds a
repro and a fix without torch; one job per release runs what has no outcome yet and leaves an
outcomes file; the record job merges them into docs/verified-examples.yaml; then every CI
command passes and the page says what the examples did. Also: what makes the record change
(code) and what does not (prose above a block, a build label), merging mistakes, the preview
summary and the package index for torch."""

from __future__ import annotations

import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Project, fake_torch, line_of, page
from gbsite import config
from gbsite.docs import files as docs
from gbsite.errors import display_path, github_property
from gbsite.examples import annotations as examples
from gbsite.examples import outcomes, record, torchenv

BREAK = (
    'if __import__("torch").compiling: '
    'raise RuntimeError("For more details, please visit: https://x.io/gb/gb{}.html")'
)
# What a contributor writes on GitHub: a repro and a fix (for the stand-in torch, which breaks
# when compiled code evaluates `torch.compiling`).
CONTRIBUTION = f"""
### Why this happens

The model reads a flag that only exists while it is being compiled.

```python gb-repro
def fn(x):
    {BREAK.format("0025")}
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


def fake_release(root: Path, version: str) -> str:
    """A stand-in torch that says it is `version` (`2.13.0+cpu`, `2.15.0`...)."""
    python, _ = fake_torch(root)
    init = Path(python).parent / "torch" / "__init__.py"
    init.write_text(init.read_text().replace('"2.13.0+fake"', f'"{version}"'))
    return python


def checkout(project: Project, where: Path) -> Project:
    """A job's fresh checkout of the pull request: a copy of the project."""
    shutil.copytree(project.root, where)
    return Project(where)


def record_file(project: Project) -> Path:
    return project.root / "docs" / "verified-examples.yaml"


def pending_lines(out: str, name: str) -> list[str]:
    """The lines of `check --record` that say a block of the docs file `name` is pending."""
    return [line for line in out.splitlines() if line.startswith("pending:") and name in line]


def states(project: Project, gb_id: str) -> dict[str, str]:
    found = {}
    for release in config.load(project.root).example_releases:
        data = json.loads(project.run("coverage", "--format", "json", "--release", release).out)
        found[release] = next(e["status"] for e in data["ids"] if e["id"] == gb_id)
    return found


def run_jobs(
    project: Project, tmp_path: Path, versions: dict[str, str], *ids: str
) -> tuple[list[Path], dict[str, int]]:
    """CI's examples jobs: one checkout per release, `check --examples --changed --outcomes`
    with that release's torch; their outcomes folders, and each job's exit status."""
    folders, codes = [], {}
    for release, version in versions.items():
        job = checkout(project, tmp_path / f"job-{release}")
        python = fake_release(tmp_path / f"torch-{release}", version)
        out = tmp_path / f"artifact-{release}"
        result = job.run(
            "check", "--examples", "--changed", *ids, "--python", python, "--outcomes", str(out)
        )
        codes[release] = result.code
        folders.append(out)
    return folders, codes


@pytest.fixture
def releases(project: Project) -> dict[str, str]:
    """Each release of the examples with the build a job gets (a CPU wheel for the first)."""
    found = config.load(project.root).example_releases
    return {r: f"{r}+cpu" if i == 0 else r for i, r in enumerate(found)}


@pytest.mark.repo_data
@pytest.mark.slow  # builds the whole site
def test_a_pull_request_gets_its_outcomes_from_ci_and_every_ci_command_passes(
    project: Project, tmp_path: Path, releases: dict[str, str]
) -> None:
    path = page(project, "GB0025", CONTRIBUTION)
    # Before CI: the contributor's checks pass without torch; the page is pending, never "none".
    assert project.run("check").code == 0
    recorded = project.run("check", "--record")
    assert recorded.code == 0, recorded.out
    repro_line = line_of(path, "gb-repro")
    assert f"gb0025.md:{repro_line}: gb-repro not run yet with torch" in recorded.out
    assert set(states(project, "GB0025").values()) == {"pending"}
    assert project.run("build").code == 0
    html = (project.site / "gb" / "gb0025.html").read_text()
    assert "<strong>Examples not run yet</strong>" in html and "No example yet" not in html
    dashboard = (project.site / "dashboard.html").read_text()
    assert 'href="#coverage-pending"' in dashboard

    # The jobs, then the record job in a checkout of its own.
    folders, codes = run_jobs(project, tmp_path, releases, "GB0025")
    assert set(codes.values()) == {0}
    files = sorted(p.name for f in folders for p in f.iterdir())
    assert files == sorted(outcomes.file_name(r) for r in releases)
    merger = checkout(project, tmp_path / "record-job")
    summary = tmp_path / "summary.md"
    merged = merger.run("ci", "merge", *map(str, folders), "--summary", str(summary))
    assert merged.code == 0, merged.err
    assert f"{2 * len(releases)} outcome(s) new" in merged.out

    # The record job's checkout is what gets committed: every CI command passes on it.
    assert merger.run("check").code == 0
    final = merger.run("check", "--record")
    # Its page has every outcome (others may wait for a release just added: not this test's).
    assert final.code == 0 and pending_lines(final.out, "gb0025.md") == []
    assert set(states(merger, "GB0025").values()) == {"verified"}
    assert merger.run("build").code == 0
    html = (merger.site / "gb" / "gb0025.html").read_text()
    assert "<strong>Verified</strong>" in html
    for release in releases:
        assert f'<span class="verified">{release} breaks</span>' in html
    # The summary: a row per block run, its outcome with each release.
    text = summary.read_text()
    assert text.startswith("## Examples run by CI")
    assert (
        f"| `docs/gb/gb0025.md:{repro_line}` gb-repro | " + " | ".join(["breaks"] * len(releases))
        in text
    )
    # A second CI run on the recorded branch has nothing to run and changes nothing.
    before = record_file(merger).read_bytes()
    again, codes = run_jobs(merger, tmp_path / "second", releases, "GB0025")
    assert set(codes.values()) == {0}
    for folder in again:
        [file] = folder.iterdir()
        assert json.loads(file.read_text())["results"] == []
    assert merger.run("ci", "merge", *map(str, again)).code == 0
    assert record_file(merger).read_bytes() == before


def git(where: Path, *argv: str) -> str:
    import subprocess

    done = subprocess.run(
        ["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@example.org", *argv],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.repo_data
@pytest.mark.slow  # CI's example jobs, run in child processes
def test_the_record_job_retries_when_the_branch_moved_and_fails_when_the_push_is_refused(
    project: Project, tmp_path: Path, releases: dict[str, str]
) -> None:
    """Two pull requests' record jobs end together: the second one's push is rejected (the
    branch moved on), so it merges its outcomes again onto the new tip and pushes; both
    pages' outcomes are on the branch. A push the remote refuses fails the job."""
    page(project, "GB0025", CONTRIBUTION)
    page(
        project,
        "GB0026",
        CONTRIBUTION.replace("gb0025.html", "gb0026.html").replace("0025", "0026"),
    )
    work = tmp_path / "work"  # the project's files, not links to the shared ones
    shutil.copytree(project.root, work)
    git(work, "init", "--quiet", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "two pages")
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(origin))
    git(work, "push", "--quiet", str(origin), "main")
    first, _ = run_jobs(project, tmp_path / "a", releases, "GB0025")
    second, _ = run_jobs(project, tmp_path / "b", releases, "GB0026")
    jobs = []
    for name in ("job-1", "job-2"):  # both check out the branch before either pushes
        git(tmp_path, "clone", "--quiet", str(origin), name)
        jobs.append(Project(tmp_path / name))
    for job, folders in zip(jobs, (first, second), strict=True):
        assert job.run("ci", "merge", *map(str, folders)).code == 0
        pushed = job.run("ci", "push", *map(str, folders), "--branch", "main")
        assert pushed.code == 0, pushed.err
    assert "main moved on; merging the outcomes again" in pushed.out
    git(tmp_path, "clone", "--quiet", str(origin), "after")
    after = Project(tmp_path / "after")
    assert {states(after, gb_id)[r] for gb_id in ("GB0025", "GB0026") for r in releases} == {
        "verified"
    }
    assert after.run("check", "--record").code == 0
    # The same again: nothing new to record, nothing pushed.
    again = jobs[0].run("ci", "push", *map(str, first), "--branch", "main")
    assert again.code == 0 and "nothing to commit" in again.out
    # The daily sync's commit (registry and docs) while a merge lands: rebased and pushed.
    sync = Project(tmp_path / "job-1")
    git(sync.root, "fetch", "--quiet", "origin")
    git(sync.root, "reset", "--quiet", "--hard", "origin/main")
    merger = Project(tmp_path / "after")
    (merger.root / "CHANGELOG.md").write_text("A merged pull request.\n")
    git(merger.root, "add", "CHANGELOG.md")
    git(merger.root, "commit", "--quiet", "-m", "merged")
    git(merger.root, "push", "--quiet", "origin", "HEAD:main")
    (sync.registry / "sources.yaml").write_text((sync.registry / "sources.yaml").read_text() + "\n")
    synced = sync.run(
        "ci", "push", "--add", "registry", "--add", "docs", "--rebase", "--branch", "main"
    )
    assert synced.code == 0, synced.err
    assert "moved on; rebasing the commit" in synced.out
    log = git(tmp_path / "origin.git", "log", "--format=%s", "main")
    assert log.splitlines()[:2] == ["Record the outcomes of the examples", "merged"]
    git(merger.root, "pull", "--quiet", "origin", "main")
    # A remote that refuses (a protected branch): the job fails and says what to do.
    hook = origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch' >&2\nexit 1\n")
    hook.chmod(0o755)
    refused = Project(tmp_path / "after")
    record_file(refused).write_text(
        record_file(refused).read_text().replace("breaks", "no-break", 1)
    )
    result = refused.run("ci", "push", *map(str, first), "--branch", "main")
    assert result.code == 2  # a refusal, as the README's exit statuses say
    [line] = result.err.splitlines()
    assert "refused the push to main" in line and "protected branch" in line
    assert "GBSITE_RECORD_TOKEN" in line


@pytest.mark.repo_data
@pytest.mark.slow  # CI's example jobs, run in child processes
def test_a_block_that_fails_its_promise_fails_its_job_on_its_line_and_is_not_recorded(
    project: Project, tmp_path: Path, releases: dict[str, str]
) -> None:
    wrong = CONTRIBUTION.replace("gb0025.html", "gb0026.html")  # breaks with another id
    path = page(project, "GB0025", wrong)
    home = next(iter(releases))
    job = checkout(project, tmp_path / "job")
    python = fake_release(tmp_path / "torch", releases[home])
    out = tmp_path / "artifact"
    result = job.run(
        "check", "--examples", "--changed", "GB0025", "--python", python, "--outcomes", str(out),
        "--format", "github",
    )  # fmt: skip
    assert result.code == 1
    line = line_of(path, "gb-repro")
    assert f"gb0025.md,line={line}::gb-repro" in result.out  # annotated on its line
    summary = tmp_path / "summary.md"
    assert project.run("ci", "merge", str(out), "--summary", str(summary)).code == 0
    text = summary.read_text()
    assert "### Failures" in text and "**failed**" in text and "GB0026" in text
    # Not recorded: the page stays pending (the fix passed and is recorded).
    [repro] = [b for b in examples.blocks_of("GB0025", docs.read(path)) if b.kind == "gb-repro"]
    assert record.read(record_file(project)).outcome(repro.key, home) is None
    assert states(project, "GB0025")[home] == "pending"


@pytest.mark.repo_data
@pytest.mark.slow  # CI's example jobs, run in child processes
def test_prose_above_a_block_and_a_build_label_change_nothing(
    project: Project, tmp_path: Path, releases: dict[str, str]
) -> None:
    path = page(project, "GB0025", CONTRIBUTION)
    folders, _ = run_jobs(project, tmp_path, releases, "GB0025")
    assert project.run("ci", "merge", *map(str, folders)).code == 0
    before = record_file(project).read_bytes()
    # Three lines of prose above the blocks move them; the record has no line to change.
    text = path.read_text()
    path.write_text(text.replace("### Why this happens", "A note.\n\nAnother.\n\n### Why this"))
    assert pending_lines(project.run("check", "--record").out, "gb0025.md") == []
    home = next(iter(releases))
    plain = fake_release(tmp_path / "pypi", home)  # PyPI's `2.13.0`, not `2.13.0+cpu`
    rerun = project.run("check", "--examples", "GB0025", "--python", plain)
    assert rerun.code == 0, rerun.out
    assert record_file(project).read_bytes() == before
    # Outcomes a job wrote before the prose was added still merge, to the same bytes.
    assert project.run("ci", "merge", *map(str, folders)).code == 0
    assert record_file(project).read_bytes() == before
    # Editing the code is what makes a block new: pending until run.
    path.write_text(path.read_text().replace("return x + 1", "return x + 2"))
    assert set(states(project, "GB0025").values()) == {"pending"}


@pytest.mark.repo_data
@pytest.mark.slow  # CI's example jobs, run in child processes
def test_merge_refuses_outcomes_that_disagree_and_bad_files(
    project: Project, tmp_path: Path, releases: dict[str, str]
) -> None:
    page(project, "GB0025", CONTRIBUTION)
    home = next(iter(releases))
    [one], _ = run_jobs(project, tmp_path / "a", {home: releases[home]}, "GB0025")
    data = json.loads((one / outcomes.file_name(home)).read_text())
    for r in data["results"]:
        if r["kind"] == "gb-repro":
            r["outcome"] = "no-break"
    other = tmp_path / "other" / outcomes.file_name(home)
    other.parent.mkdir()
    other.write_text(json.dumps(data))
    before = project.snapshot()
    result = project.run("ci", "merge", str(one), str(other))
    assert result.code == 2
    assert "gb-repro `no-break` with torch" in result.err and "but `breaks`" in result.err
    assert project.snapshot() == before
    bad = tmp_path / "bad.json"
    for text, says in [
        ("{", "invalid JSON"),
        ('{"format": "x"}', "no `format: gbsite-outcomes/1`"),
        (json.dumps({**data, "results": [{"id": 1}]}), "result 0"),
        (json.dumps({**data, "release": "9.9.9"}), "not a release of the examples"),
    ]:
        bad.write_text(text)
        result = project.run("ci", "merge", str(bad))
        assert result.code == 2 and says in result.err, (text, result.err)
        assert "Traceback" not in result.err and len(result.err.strip().splitlines()) == 1
        assert project.snapshot() == before
    empty = tmp_path / "empty"
    empty.mkdir()
    result = project.run("ci", "merge", str(empty))
    assert result.code == 2 and "no outcomes-*.json" in result.err


@pytest.mark.repo_data
@pytest.mark.slow  # imports into a project
def test_the_daily_sync_can_run_twice_a_day(project: Project, tmp_path: Path) -> None:
    """A second run on the same day, after upstream changed, imports as main-2@DATE; one with
    nothing new changes nothing."""
    import gzip

    from gbsite.registry import store

    newest = store.load(project.registry).labels[-1]
    data = json.loads(
        gzip.decompress((project.registry / "snapshots" / f"{newest}.json.gz").read_bytes())
    )
    first = tmp_path / "morning.json"
    first.write_text(json.dumps(data))
    day = "2099-01-02"
    label = project.run("ci", "sync-label", "--date", day).out.strip()
    assert label == f"main@{day}"
    assert project.run("import", str(first), "--label", label).code == 0
    gb_id = next(iter(data))
    data[gb_id][0]["Explanation"] = str(data[gb_id][0]["Explanation"]) + " Reworded at noon."
    second = tmp_path / "noon.json"
    second.write_text(json.dumps(data))
    label = project.run("ci", "sync-label", "--date", day).out.strip()
    assert label == f"main-2@{day}"
    imported = project.run("import", str(second), "--label", label)
    assert imported.code == 0, imported.err
    assert store.load(project.registry).labels[-2:] == [f"main@{day}", f"main-2@{day}"]
    again = project.run(
        "import", str(second), "--label", project.run("ci", "sync-label", "--date", day).out.strip()
    )
    assert again.code == 0 and "nothing to do" in again.out + again.err
    bad = project.run("ci", "sync-label", "--date", "tomorrow")
    assert bad.code == 2 and bad.err.count("\n") == 1 and "--date 'tomorrow'" in bad.err


@pytest.mark.repo_data
def test_ci_releases_is_the_list_of_gbsite_toml(project: Project) -> None:
    result = project.run("ci", "releases")
    assert json.loads(result.out) == list(config.load(project.root).example_releases)


@pytest.mark.repo_data
@pytest.mark.slow  # CI's example jobs, run in child processes
def test_the_preview_lists_the_changed_pages_with_their_states(project: Project) -> None:
    page(project, "GB0025", CONTRIBUTION)
    releases = config.load(project.root).example_releases
    result = project.run(
        "ci", "preview", "docs/gb/gb0025.md", "docs/gb/gb0003.md", "templates/base.html.j2",
        "--artifact-url", "https://example.invalid/artifact/1",
    )  # fmt: skip
    assert result.code == 0
    out = result.out
    assert "[the `site` artifact](https://example.invalid/artifact/1)" in out
    assert "2 page(s) changed" in out and "1 other changed file(s)" in out
    row = next(line for line in out.splitlines() if line.startswith("| GB0025:"))
    assert row.count("pending") == len(releases) and "`gb/gb0025.html`" in row
    gb3 = next(line for line in out.splitlines() if line.startswith("| GB0003:"))
    assert "verified" in gb3
    assert "No page's docs file changed." in project.run("ci", "preview").out


class _Index(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"<html></html>")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def index_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Index)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/whl/cpu"
    server.shutdown()


def test_torch_comes_from_the_configured_index_or_from_the_default_one(
    index_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert torchenv.reachable(index_url) is None
    closed = "http://127.0.0.1:9/whl/cpu"  # the discard port: refused at once
    assert torchenv.reachable(closed, timeout=2) is not None
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    installs: list[list[str]] = []

    def fake_create(
        release: str, folder: Path, say: object, index: str | None = None, **kw: str
    ) -> None:
        installs.append([release, str(index)])

    monkeypatch.setattr(torchenv, "create", fake_create)
    monkeypatch.setattr(torchenv, "_release_here", lambda python: None)
    said: list[str] = []
    releases = ("2.13.0",)
    torchenv.python_for("2.13.0", releases, say=said.append, index=index_url)
    monkeypatch.setenv(torchenv.INDEX_ENV, closed)
    torchenv.python_for("2.13.0", releases, say=said.append)
    assert installs == [["2.13.0", index_url], ["2.13.0", "None"]]
    assert said and "cannot be reached" in said[0] and "default index" in said[0]


def test_an_environment_whose_python_is_gone_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache restored after the runner's Python moved: the environment's interpreter link
    dangles. It is built again in its place, not refused as a folder that is in the way."""
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    folder = torchenv.env_dir("2.13.0")
    python = torchenv.env_python(folder)
    python.parent.mkdir(parents=True)
    python.symlink_to(tmp_path / "python3.11.13" / "bin" / "python3.11")  # gone
    (folder / "lib").mkdir()
    (folder / "lib" / "stale.py").write_text("")

    def fake_run(command: list[str], *args: object) -> None:
        if command[1:3] == ["-m", "venv"]:
            made = torchenv.env_python(Path(command[-1]))
            made.parent.mkdir(parents=True)
            made.write_text("")

    monkeypatch.setattr(torchenv, "_run", fake_run)
    monkeypatch.setattr(torchenv, "torch_info", lambda python: ("2.13.0+cpu", tmp_path))
    monkeypatch.setattr(torchenv, "_release_here", lambda python: None)
    said: list[str] = []
    got = torchenv.python_for("2.13.0", ("2.13.0",), say=said.append)
    assert got == str(python) and python.is_file() and not python.is_symlink()
    assert not (folder / "lib" / "stale.py").exists()
    assert "has no working Python; building it again" in said[0]
    assert not list(folder.parent.glob(torchenv.PARTIAL + "*"))


def test_an_environment_without_its_torch_is_built_again_with_a_new_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restored environment whose Python runs but whose torch is gone (or another release) is
    built again in place, and its stamp changes: CI saves the cache again."""
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    folder = torchenv.env_dir("2.13.0")
    python = torchenv.env_python(folder)
    python.parent.mkdir(parents=True)
    python.write_text("")
    (folder / torchenv.STAMP).write_text("torch 2.13.0+cpu\nbuilt 1 2\n")
    old = (folder / torchenv.STAMP).read_text()

    def fake_run(command: list[str], *args: object) -> None:
        if command[1:3] == ["-m", "venv"]:
            made = torchenv.env_python(Path(command[-1]))
            made.parent.mkdir(parents=True)
            made.write_text("")

    monkeypatch.setattr(torchenv, "_run", fake_run)
    monkeypatch.setattr(torchenv, "torch_info", lambda python: ("2.13.0+cpu", tmp_path))
    broken = [True]  # the restored environment has no torch (gbsite's own Python neither)
    monkeypatch.setattr(
        torchenv, "_release_here", lambda p: None if broken[0] or p != str(python) else "2.13.0"
    )
    said: list[str] = []
    assert torchenv.python_for("2.13.0", ("2.13.0",), say=said.append) == str(python)
    assert said[0].endswith("has no torch 2.13.0; building it again")
    new = (folder / torchenv.STAMP).read_text()
    assert new != old and new.startswith("torch 2.13.0+cpu\n")
    # Working now: used as it is, the stamp unchanged.
    broken[0] = False
    said.clear()
    assert torchenv.python_for("2.13.0", ("2.13.0",), say=said.append) == str(python)
    assert not said and (folder / torchenv.STAMP).read_text() == new


def test_the_install_asks_pip_for_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []

    def fake_run(command: list[str], *args: object) -> None:
        commands.append(command)
        if command[1:3] == ["-m", "venv"]:
            python = torchenv.env_python(Path(command[-1]))
            python.parent.mkdir(parents=True)
            python.write_text("")

    monkeypatch.setattr(torchenv, "_run", fake_run)
    monkeypatch.setattr(torchenv, "torch_info", lambda python: ("2.13.0+cpu", tmp_path))
    torchenv.create("2.13.0", tmp_path / "env", lambda line: None, "https://idx.invalid/cpu")
    pip = commands[1]
    assert pip[pip.index("--extra-index-url") + 1] == "https://idx.invalid/cpu"
    assert "torch==2.13.0" in pip
    assert torchenv.env_python(tmp_path / "env").exists()


@pytest.mark.repo_data
@pytest.mark.slow  # CI's example jobs, run in child processes
def test_two_runs_that_end_together_both_keep_their_outcomes(
    project: Project, tmp_path: Path
) -> None:
    """Each run adds its outcomes to the record as it is when the run ends (read under a lock),
    not as it was when the run started."""
    import subprocess
    import sys

    pages = {"GB0025": page(project, "GB0025", CONTRIBUTION)}
    pages["GB0026"] = page(
        project, "GB0026", CONTRIBUTION.replace("gb0025.html", "gb0026.html").replace("x + 1", "x")
    )
    python = fake_release(tmp_path / "torch", "2.13.0+cpu")
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gbsite",
                "--root",
                str(project.root),
                "check",
                "--examples",
                gb_id,
                "--python",
                python,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for gb_id in pages
    ]
    for run in runs:
        out, _ = run.communicate(timeout=300)
        assert run.returncode == 0, out
    got = record.read(record_file(project))
    for gb_id, path in pages.items():
        for b in examples.blocks_of(gb_id, docs.read(path)):
            assert got.outcome(b.key, "2.13.0") == record.passing(b.kind), (gb_id, b.kind)


@pytest.mark.repo_data
@pytest.mark.slow  # CI's example jobs, run in child processes
def test_a_bad_record_is_one_line_and_never_a_forged_annotation(
    project: Project, tmp_path: Path
) -> None:
    path = record_file(project)
    text = path.read_text()
    # A row whose digest carries a line break and a workflow command, and an unknown outcome.
    sha = text.index("  sha256: ") + len("  sha256: ")
    forged = (
        text[:sha] + '"x\\n::error file=README.md,line=1::forged"' + text[text.index("\n", sha) :]
    )
    forged = forged.replace(": breaks\n", ": broke\n", 1)
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(text)
    cases = {
        "forged": lambda: path.write_text(forged),
        "outside": lambda: path.symlink_to(outside),
        "huge": lambda: path.write_text(text + "#" * (record.MAX_BYTES + 1)),
    }
    for name, make in cases.items():
        make()
        # The error is annotated like every problem of a --format github run, escaped: one
        # workflow command, on the record's file, whatever the record quotes.
        result = project.run("check", "--record", "--format", "github")
        assert result.code == 2, (name, result.out, result.err)
        lines = result.err.strip().splitlines()
        where = f"::error file={github_property(display_path(path))}"
        assert len(lines) == 1 and lines[0].startswith(where), (name, lines)
        assert lines[0].count("::") == 2, (name, lines)
        assert "Traceback" not in result.err and "::error" not in result.out, name
        result = project.run("check", "--record")
        assert result.err.count("\n") == 1 and result.err.startswith(str(path)), (name, result.err)
        path.unlink()


def test_a_summary_is_cut_below_githubs_limit() -> None:
    from gbsite import ci

    rows = "".join(f"| `docs/gb/gb{n:04d}.md:{n}` gb-fix | runs |\n" for n in range(40000))
    text = "## Examples run by CI\n\n" + rows
    cut = ci.capped(text)
    assert len(text.encode()) > ci.SUMMARY_BYTES >= len(cut.encode()) - 200
    assert cut.startswith("## Examples run by CI") and "more line(s) left out" in cut
    assert ci.capped("short\n") == "short\n"

"""The GitHub workflows: actionlint-clean, pinned, least privilege, and the commands we run."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from gbsite.examples import torchenv

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


def load(path: Path) -> dict:  # type: ignore[type-arg]
    data = yaml.safe_load(path.read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as True
    return data


def actionlint() -> str:
    found = shutil.which("actionlint") or str(Path(sys.executable).parent / "actionlint")
    if not Path(found).exists():
        pytest.fail("actionlint is not installed (it comes with the [test] extra)")
    return found


def test_names() -> None:
    assert [p.name for p in WORKFLOWS] == [
        "ci.yml",
        "deploy.yml",
        "examples-matrix.yml",
        "rehearsal.yml",
        "sync.yml",
    ]


def test_the_rehearsal_runs_the_whole_suite_in_a_copy_with_a_release_and_a_sync() -> None:
    """Weekly: tests/rehearsal.py makes the copy, and the copy's suite (browser tests too) runs
    there with the copy's code."""
    flow = load(REPO / ".github" / "workflows" / "rehearsal.yml")
    assert {"schedule", "workflow_dispatch"} <= set(flow["on"])
    steps = flow["jobs"]["rehearse"]["steps"]
    runs = [step.get("run", "") for step in steps]
    made = next(i for i, run in enumerate(runs) if run.startswith("python tests/rehearsal.py"))
    copy = runs[made].split()[-1].strip('"').replace("$RUNNER_TEMP", "${{ runner.temp }}")
    suite = steps[made + 1]
    assert suite["run"] == 'python -m pytest -m "not examples"'
    assert suite["working-directory"] == copy
    assert suite["env"]["PYTHONPATH"] == f"{copy}/src"
    assert any("playwright install" in run for run in runs[:made])
    assert any("install-axe" in run for run in runs[:made])


def test_the_matrix_runs_every_release_on_a_schedule_and_by_hand() -> None:
    flow = load(REPO / ".github" / "workflows" / "examples-matrix.yml")
    assert {"schedule", "workflow_dispatch"} <= set(flow["on"])
    assert_per_release_jobs(flow, "matrix", "gbsite check --examples --torch")
    # No diff of the record: a prose edit moves lines, and the record has none.
    assert "git diff" not in (REPO / ".github/workflows/examples-matrix.yml").read_text()


def assert_per_release_jobs(flow: dict, name: str, command: str) -> None:  # type: ignore[type-arg]
    """A job per release of gbsite.toml (the matrix from `gbsite ci releases`), each with the
    torch cache of its release restored, and saved even when a block failed."""
    plan = flow["jobs"]["releases"]
    assert "gbsite ci releases" in "\n".join(s.get("run", "") for s in plan["steps"])
    job = flow["jobs"][name]
    assert job["strategy"]["matrix"]["release"] == (
        "${{ fromJSON(needs.releases.outputs.releases) }}"
    )
    assert job["strategy"]["fail-fast"] is False
    steps = job["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert command in runs and '"${{ matrix.release }}"' in runs and "--outcomes" in runs
    restore = next(s for s in steps if "actions/cache/restore@" in s.get("uses", ""))
    save = next(s for s in steps if "actions/cache/save@" in s.get("uses", ""))
    assert restore["with"]["path"] == save["with"]["path"]
    # Keyed by what the environment depends on: a runner whose Python moved (its interpreter
    # is linked into the environment) or a changed install recipe gets a new entry.
    prefix = restore["with"]["restore-keys"]
    for part in (
        "${{ matrix.release }}",
        "${{ runner.os }}",
        "${{ steps.python.outputs.python-version }}",
        "${{ hashFiles('src/gbsite/examples/torchenv.py') }}",
    ):
        assert part in prefix, part
    # Entries are immutable: the newest of the prefix is restored (never an exact hit), and an
    # environment built in this job (its stamp changed: new, or a broken one built again) is
    # saved under a key of its own, after failed blocks too.
    assert restore["with"]["key"] == prefix + "${{ github.run_id }}"
    assert save["with"]["key"].startswith(prefix + "${{ github.run_id }}")
    ids = [s.get("id") for s in steps]
    check = next(i for i, s in enumerate(steps) if command in s.get("run", ""))
    assert ids.index("cache") < ids.index("before") < check < ids.index("after")
    for stamp in ("before", "after"):
        assert torchenv.STAMP in steps[ids.index(stamp)]["run"]
    assert steps[ids.index("after")]["if"] == "always()"
    assert save["if"] == "always() && steps.after.outputs.stamp != steps.before.outputs.stamp"
    assert any(s.get("id") == "python" and "setup-python@" in s.get("uses", "") for s in steps)
    assert restore["with"]["path"] == ".gbsite-cache/torch/${{ matrix.release }}"
    assert job["env"]["GBSITE_TORCH_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"


@pytest.mark.repo_data
@pytest.mark.parametrize("name", ["ci.yml", "examples-matrix.yml"])
def test_the_stamp_steps_tell_a_new_build_from_a_restored_one(name: str, tmp_path: Path) -> None:
    """The before and after steps played as GitHub runs them (bash with pipefail): no
    environment, the same one, and one built again give stamps that differ only on a build."""
    job = next(
        j
        for j in load(REPO / ".github" / "workflows" / name)["jobs"].values()
        if any(s.get("id") == "before" for s in j.get("steps", []))
    )
    runs = {
        s.get("id"): s.get("run", "").replace("${{ matrix.release }}", "2.13.0")
        for s in job["steps"]
    }
    cache = tmp_path / "cache"

    def stamp(step: str) -> str:
        out = tmp_path / "out"
        out.write_text("")
        env = {"PATH": "/usr/bin:/bin", "GBSITE_CACHE_DIR": str(cache), "GITHUB_OUTPUT": str(out)}
        subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", runs[step]],
            check=True,
            env=env,
        )
        (line,) = out.read_text().splitlines()
        return line

    nothing = stamp("before")
    built = cache / "torch" / "2.13.0" / torchenv.STAMP
    built.parent.mkdir(parents=True)
    built.write_text("torch 2.13.0+cpu\nbuilt 1 2\n")
    assert stamp("after") != nothing  # first build: saved
    assert stamp("before") == stamp("after")  # restored and used: not saved again
    restored = stamp("before")
    built.write_text("torch 2.13.0+cpu\nbuilt 3 4\n")
    assert stamp("after") != restored  # built again in place: saved again


def test_ci_computes_the_outcomes_of_changed_blocks_and_records_them() -> None:
    flow = load(REPO / ".github" / "workflows" / "ci.yml")
    assert_per_release_jobs(flow, "examples", "gbsite check --examples --changed --torch")
    record = flow["jobs"]["record"]
    # After failed jobs too, never after a cancelled run (a newer push has its own).
    assert record["if"].startswith("${{ !cancelled()") and "always()" not in record["if"]
    assert set(record["needs"]) == {"releases", "examples"}
    runs = [s.get("run", "") for s in record["steps"]]
    merge = next(i for i, r in enumerate(runs) if r.startswith("gbsite ci merge outcomes"))
    push = next(i for i, r in enumerate(runs) if "gbsite ci push outcomes" in r)
    assert merge < push and "git push" not in "\n".join(runs)  # ci push retries, or fails
    assert record["steps"][push]["if"] == "env.SAME_REPO == 'true'"
    # No credentials on disk while the branch's code runs: the push step alone has the token.
    assert record["steps"][0]["with"]["persist-credentials"] is False
    assert "TOKEN" in record["steps"][push]["env"] and all(
        "secrets." not in str(s.get("env", "")) for i, s in enumerate(record["steps"]) if i != push
    )
    fork = record["steps"][-1]
    assert fork["if"] == "env.SAME_REPO != 'true'" and "upload-artifact" in fork["uses"]
    # The preview: the built site uploaded, the changed pages in the summary.
    test = flow["jobs"]["test"]["steps"]
    uploads = [s for s in test if "upload-artifact" in s.get("uses", "")]
    assert uploads and uploads[0]["with"]["path"] == "site"
    assert "gbsite ci preview -" in "\n".join(s.get("run", "") for s in test)


@pytest.mark.repo_data
def test_actionlint_passes() -> None:
    result = subprocess.run([actionlint(), *map(str, WORKFLOWS)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.repo_data
def test_actionlint_would_catch_a_mistake(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        (REPO / ".github/workflows/ci.yml")
        .read_text()
        .replace("runs-on: ubuntu-24.04", "runs-on: ubuntu-24.04\n    if: ${{ github.nope.bad }}")
    )
    result = subprocess.run([actionlint(), str(broken)], capture_output=True, text=True)
    assert result.returncode != 0


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_actions_are_pinned_to_commits(path: Path) -> None:
    uses = re.findall(r"uses:\s*(\S+)(.*)", path.read_text())
    assert uses
    for action, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w.-]+)?@[0-9a-f]{40}", action), action
        assert re.search(r"# v\d+\.\d+\.\d+", comment), f"{action}: say which version"


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_least_privilege(path: Path) -> None:
    data = load(path)
    assert data["permissions"] == {"contents": "read"}  # the default for every job
    for name, job in data["jobs"].items():
        extra = job.get("permissions", {})
        assert "write-all" not in str(extra)
        # Write access only where a job needs it: the record job commits the outcomes, the
        # deploy job (on main only) starts the deploy, deploy.yml publishes.
        allowed = {
            ("deploy.yml", "deploy"): {"pages", "id-token"},
            ("sync.yml", "sync"): {"contents", "actions"},
            ("ci.yml", "record"): {"contents"},
            ("ci.yml", "deploy"): {"actions"},
        }
        assert set(extra) <= allowed.get((path.name, name), set()), (path.name, name, extra)
    if path.name == "ci.yml":
        deploy = data["jobs"]["deploy"]
        assert "github.ref == 'refs/heads/main'" in deploy["if"]
        assert "github.event_name == 'push'" in deploy["if"]


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_every_step_fails_on_a_failing_pipe(path: Path) -> None:
    """`shell: bash` is `bash -eo pipefail`; GitHub's default for run steps has no pipefail."""
    data = load(path)
    assert data["defaults"]["run"]["shell"] == "bash"
    for job in data["jobs"].values():
        for step in job["steps"]:
            assert step.get("shell", "bash") == "bash"


def test_pip_is_cached() -> None:
    for path in WORKFLOWS:
        for job in load(path)["jobs"].values():
            for step in job["steps"]:
                if "setup-python" in step.get("uses", ""):
                    assert step["with"]["cache"] == "pip"


def commands(path: Path) -> list[str]:
    out = []
    for job in load(path)["jobs"].values():
        for step in job["steps"]:
            out += [line.strip() for line in step.get("run", "").splitlines() if line.strip()]
    return out


def test_ci_runs_what_developers_run() -> None:
    ci = commands(REPO / ".github/workflows/ci.yml")
    local = (REPO / ".ci" / "run").read_text()
    readme = (REPO / "README.md").read_text()
    assert "gbsite check --format github" in ci
    for command in (
        "ruff check .",
        "ruff format --check .",
        "mypy",
        "python -m pytest",
        "gbsite build",
    ):
        assert any(run.startswith(command) for run in ci), command
        assert command in local, command
    assert "python -m pytest" in readme and "gbsite build" in readme


def test_the_deploy_needs_no_torch_and_stops_on_a_failing_record() -> None:
    deploy = commands(REPO / ".github/workflows/deploy.yml")
    assert not any("torch" in r or "--examples" in r for r in deploy)
    assert deploy.index("gbsite check --record --format github") < deploy.index("gbsite build")
    assert "gbsite check --examples" in (REPO / ".ci" / "run").read_text()


def test_deploy_checks_and_builds_before_publishing() -> None:
    data = load(REPO / ".github/workflows/deploy.yml")
    assert data["on"]["push"]["branches"] == ["main"]
    steps = data["jobs"]["build"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert runs.index("gbsite check --format github") < runs.index("gbsite build")
    assert "upload-pages-artifact" in steps[-1]["uses"]
    assert data["jobs"]["deploy"]["needs"] == "build"
    assert "deploy-pages" in data["jobs"]["deploy"]["steps"][0]["uses"]
    assert "git push" not in (REPO / ".github/workflows/deploy.yml").read_text()


def test_sync_commits_only_after_check_tests_and_build() -> None:
    data = load(REPO / ".github/workflows/sync.yml")
    assert "schedule" in data["on"] and "workflow_dispatch" in data["on"]
    runs = commands(REPO / ".github/workflows/sync.yml")
    steps = (
        "gbsite import",
        "gbsite sync",
        "gbsite check",
        'python -m pytest -m "repo_data and not browser and not examples"',  # test_living's
        "gbsite build",
        "gbsite ci push --add registry --add docs --rebase",  # retried onto a moved main
        "gh workflow run deploy.yml",
    )
    order = [next(i for i, r in enumerate(runs) if r.startswith(c)) for c in steps]
    assert order == sorted(order)
    assert not any(r.startswith("git push") for r in runs)
    # The label is worked out (a second run on the same day gets main-2@DATE), not fixed.
    assert any('--label "$(gbsite ci sync-label)"' in r for r in runs)
    job = data["jobs"]["sync"]
    deploy = next(s for s in job["steps"] if "gh workflow run" in s.get("run", ""))
    assert deploy["if"] == "steps.push.outputs.pushed == 'true'"
    living = (REPO / "tests" / "test_living.py").read_text()
    assert '"repo_data and not browser and not examples"' in living
    assert (
        "raw.githubusercontent.com/pytorch/pytorch/main/torch/_dynamo/graph_break_registry"
        ".json" in (REPO / ".github/workflows/sync.yml").read_text()
    )

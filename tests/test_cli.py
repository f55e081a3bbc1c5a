"""The command line itself: help, version, and no tracebacks for user mistakes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, Project
from gbsite import version


def gbsite(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gbsite", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )


def test_version() -> None:
    result = gbsite("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"gbsite {version()}"
    assert version() != "0+unknown"  # the package is installed, metadata is found


COMMANDS = [
    "import",
    "export-json",
    "sync",
    "check",
    "coverage",
    "build",
    "serve",
    "lookup",
]


def test_help_lists_every_command() -> None:
    result = gbsite("--help")
    assert result.returncode == 0
    listed = re.findall(r"^    (\S+)", result.stdout.split("positional arguments:")[1], re.M)
    assert sorted(listed) == sorted(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help(command: str) -> None:
    result = gbsite(command, "--help")
    assert result.returncode == 0
    assert f"usage: gbsite {command}" in result.stdout


def test_unknown_command_is_a_usage_error() -> None:
    result = gbsite("frobnicate")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr
    assert "Traceback" not in result.stderr


def test_outside_a_project(tmp_path: Path) -> None:
    result = gbsite("export-json", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("gbsite: no gbsite.toml in")
    assert "Traceback" not in result.stderr


def test_missing_source_file(project: Project) -> None:
    result = gbsite("--root", str(project.root), "import", "no-such-file.json", "--label", "x")
    assert result.returncode == 2
    assert result.stderr == "no-such-file.json: no such file\n"


def test_bad_config_is_reported_with_line(project: Project) -> None:
    config = project.root / "gbsite.toml"
    config.write_text(
        config.read_text().replace('branch = "main"', 'branch = "main"\nbrnach = "x"')
    )
    result = gbsite("--root", str(project.root), "export-json")
    assert result.returncode == 2
    assert "gbsite.toml:9: unknown setting site.brnach" in result.stderr

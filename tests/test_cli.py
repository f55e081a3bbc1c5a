"""The command line itself: help, version, and no tracebacks for user mistakes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, Project, line_of
from gbsite import version
from gbsite.errors import github_property


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


# Every command with every option it takes: the command line's interface, which a change to
# the parser must not lose.
COMMANDS = {
    "import": [
        "source",
        "--label LABEL",
        "-v, --verbose",
        "--torch-source DIR",
        "--max-download MB",
        "--download-timeout S",
        "--max-json MB",
    ],
    "release add": [
        "RELEASE",
        "SOURCE",
        "--torch-source DIR",
        "--max-download MB",
        "--download-timeout S",
        "--max-json MB",
    ],
    "release resolve": ["LABEL", "-v, --verbose", "--torch-source DIR"],
    "export-json": ["-o FILE, --output FILE"],
    "sync": [],
    "adopt": ["DIR", "--replace"],
    "check": [
        "--examples",
        "GBxxxx",
        "--torch RELEASE",
        "--python PYTHON",
        "--accept",
        "--record",
        "--jobs JOBS",
        "--timeout TIMEOUT",
        "--changed",
        "--fresh",
        "--format {text,json,github}",
        "--torch-index URL",
        "--outcomes DIR",
    ],
    "build": ["--out DIR", "--force"],
    "serve": ["--host HOST", "--port PORT", "--out DIR"],
    "lookup": ["FILE", "--words WORD [WORD ...]", "--limit LIMIT", "--max-bytes MB", "--json"],
    "coverage": ["--release RELEASE", "--format {text,json}", "--list", "--min-verified N"],
    "ci": [],
}


def test_help_lists_every_command() -> None:
    result = gbsite("--help")
    assert result.returncode == 0
    listed = re.findall(r"^    (\S+)", result.stdout.split("positional arguments:")[1], re.M)
    assert sorted(listed) == sorted({command.split()[0] for command in COMMANDS})
    for option in ("--version", "--root DIR", "--traceback"):
        assert re.search(rf"^  {re.escape(option)}\s", result.stdout, re.M), option


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help(command: str) -> None:
    """Each command's --help: its usage, what it does, and each option with its help."""
    result = gbsite(*command.split(), "--help")
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith(f"usage: gbsite {command} [-h]")
    _, description, *sections = result.stdout.split("\n\n")
    assert len(description.split()) > 10  # a paragraph saying what the command does
    # An option's row: its name, then its help on the same line or the lines under it.
    rows = re.findall(r"^  (\S.*?)(?:  +|\n {8,})(\S.*)$", "\n".join(sections), re.M)
    assert sorted(name for name, _ in rows) == sorted(["-h, --help", *COMMANDS[command]])
    assert all(len(help.split()) >= 2 for _, help in rows), rows


def test_release_lists_its_actions() -> None:
    result = gbsite("release", "--help")
    assert result.returncode == 0
    assert re.search(r"^    add +import a torch release's registry", result.stdout, re.M)
    assert re.search(r"^    resolve +resolve the registry fields", result.stdout, re.M)
    missing = gbsite("release")
    assert missing.returncode == 2 and "the following arguments are required: ACTION" in (
        missing.stderr
    )


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


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["serve", "--port", "99999"], "'99999' is not a port number (0 to 65535)"),
        (["serve", "--port", "http"], "'http' is not a port number (0 to 65535)"),
        (["export-json", "-o", "{tmp}"], "is a folder; name the file to write (-o FILE)"),
        (["build", "--out", "{tmp}/a-file"], "is a file, not a folder; choose another --out"),
        (["export-json", "-o", "{tmp}/a-file/x.json"], "a-file: File exists"),
    ],
    ids=[
        "port out of range",
        "port not a number",
        "export to a folder",
        "build into a file",
        "export below a file",
    ],
)
def test_bad_arguments_get_one_line_and_no_traceback(
    tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "a-file").write_text("not a site")
    result = gbsite(*(a.format(tmp=tmp_path) for a in args))
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) <= 3
    assert (tmp_path / "a-file").read_text() == "not a site"


def test_check_reports_each_format(project: Project) -> None:
    """One problem, as a reader, a tool and GitHub Actions get it; the same exit status."""
    path = project.docs / "gb0010.md"
    path.write_text(path.read_text() + "\nstray text\n")
    line = line_of(path, "stray text")
    where = f"{path}:{line}"
    message = "text added outside the ADDITIONAL INFORMATION block: 'stray text'."

    text = project.run("check")
    assert text.code == 1
    assert text.out.startswith(f"{where}: {message}") and text.out.count("\n") == 1
    assert text.err == "check: 1 problem(s)\n"  # stdout holds the problems alone

    github = project.run("check", "--format", "github")
    assert github.code == 1 and github.err == ""
    annotation, summary = github.out.splitlines()
    assert annotation.startswith(f"::error file={github_property(str(path))},line={line}::")
    assert summary == "check: 1 problem(s)"

    data = json.loads((tool := project.run("check", "--format", "json")).out)
    assert tool.code == 1 and tool.err == ""
    assert list(data) == ["ok", "entries", "docs", "problems"]
    assert data["ok"] is False and data["entries"] == data["docs"] > 500
    [problem] = data["problems"]
    assert (problem["path"], problem["line"]) == (str(path), line)
    assert problem["message"].startswith(message)

    path.write_text(path.read_text().replace("\nstray text\n", ""))
    clean = project.run("check", "--format", "github")
    assert (
        clean.code == 0
        and clean.out == f"check: registry ({data['entries']} ids) and docs are consistent\n"
    )

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
from gbsite import cli, version
from gbsite.errors import github_property


def gbsite(
    *args: str, cwd: Path = REPO, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gbsite", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        input=stdin,
        env={**os.environ, "PYTHONWARNINGS": "error", **(env or {})},
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
        "--max-download MB",
        "--download-timeout S",
        "--max-json MB",
    ],
    "release add": [
        "RELEASE",
        "SOURCE",
        "--max-download MB",
        "--download-timeout S",
        "--max-json MB",
    ],
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
    "lookup": [
        "FILE",
        "--words WORD [WORD ...]",
        "--limit N",
        "--max-bytes MB",
        "--json",
        "--show",
    ],
    "show": ["ID", "--format {text,json}"],
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
    missing = gbsite("release")
    assert missing.returncode == 2 and "the following arguments are required: ACTION" in (
        missing.stderr
    )


def test_unknown_command_is_a_usage_error() -> None:
    result = gbsite("frobnicate")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr and "did you mean" not in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [
        (["biuld"], "did you mean 'build'?"),
        (["lokup", "x"], "did you mean 'lookup'?"),
        (["ci", "mereg"], "did you mean 'merge'?"),
        (["release", "ad", "2.16.0"], "did you mean 'add'?"),
        (["coverage", "--format", "jsn"], "did you mean 'json'?"),
        (["build", "--forse"], "unrecognized arguments: --forse; did you mean '--force'?"),
        (["check", "GB0003", "--exampels"], "did you mean '--examples'?"),
        (["lookup", "--word", "x", "--jsn"], "did you mean '--json'?"),
        (["build", "--root", "x"], "--root goes before the command: gbsite --root x build"),
    ],
)
def test_misspelt_command_or_option_gets_a_suggestion(args: list[str], suggestion: str) -> None:
    result = gbsite(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert suggestion in result.stderr.splitlines()[-1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "GB0003"], "ids (GBxxxx) do nothing without --examples"),
        (["check", "--accept"], "--accept does nothing without --examples"),
        (["check", "--torch", "2.15.0"], "--torch does nothing without --examples"),
        (["check", "--python", "python3"], "--python does nothing without --examples"),
        (["check", "--jobs", "2"], "--jobs does nothing without --examples"),
        (["check", "--timeout", "9"], "--timeout does nothing without --examples"),
        (["check", "--changed"], "--changed does nothing without --examples"),
        (["check", "--fresh"], "--fresh does nothing without --examples"),
        (["check", "--outcomes", "out"], "--outcomes does nothing without --examples"),
        (["check", "--examples", "--record"], "--record does nothing with --examples"),
        (["check", "--examples", "--torch-index", "u"], "--torch-index does nothing without "),
        (["coverage", "--format", "json", "--list"], "--list does nothing with --format json"),
        (["lookup", "log.txt", "--words", "x"], "FILE does nothing with --words"),
        (["lookup", "--max-bytes", "2", "--words", "x"], "--max-bytes does nothing with --words"),
        (["lookup", "--show", "--limit", "3"], "--limit does nothing with --show"),
        (["ci", "merge", "out", "--ref", "main"], "--ref does nothing without --summary"),
    ],
)
def test_an_option_that_would_do_nothing_is_an_error(
    project: Project, args: list[str], message: str
) -> None:
    before = project.snapshot()
    result = gbsite("--root", str(project.root), *args)
    assert result.returncode == 2 and result.stdout == ""
    command = " ".join(args[:2] if args[0] == "ci" else args[:1])
    assert result.stderr.splitlines()[-1].startswith(f"gbsite {command}: error: {message}")
    assert "Traceback" not in result.stderr
    assert project.snapshot() == before


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--examples", "GB0003", "--torch", "2.15.0", "--torch-index", "u", "--accept"],
        ["check", "--examples", "--python", "p", "--jobs", "2", "--timeout", "9", "--changed"],
        ["check", "--examples", "--fresh", "--outcomes", "out", "--format", "json"],
        ["check", "--record", "--format", "github"],
        ["coverage", "--list"],
        ["lookup", "log.txt", "--max-bytes", "2", "--limit", "3", "--json"],
        ["lookup", "--words", "x", "--show", "--json"],
        ["ci", "merge", "out", "--ref", "main", "--summary", "s.md"],
    ],
)
def test_options_that_work_together_parse(args: list[str]) -> None:
    parsed = cli._parse(cli.build_parser(), args)
    # The defaults the check above saw as "not given" are filled in for the command.
    assert all(getattr(parsed, dest, 0) is not None for dest in ("jobs", "timeout", "limit"))


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

"""The command line itself: help, version, and no tracebacks for user mistakes."""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, Project, committed, example_releases, labels, line_of, unknown_id
from gbsite import arguments, config, usage, version
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


@pytest.mark.repo_data
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
        "--backend {inductor,aot_eager}",
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
    "coverage": [
        "--release RELEASE",
        "--format {text,json}",
        "--list",
        "--min-verified N",
        "--min-checked N",
    ],
    "ci": [],
}


@pytest.mark.repo_data
def test_help_lists_every_command() -> None:
    result = gbsite("--help")
    assert result.returncode == 0
    listed = re.findall(r"^    (\S+)", result.stdout.split("positional arguments:")[1], re.M)
    assert sorted(listed) == sorted({command.split()[0] for command in COMMANDS})
    for option in ("--version", "--root DIR", "--traceback"):
        assert re.search(rf"^  {re.escape(option)}\s", result.stdout, re.M), option


@pytest.mark.repo_data
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


@pytest.mark.repo_data
def test_release_lists_its_actions() -> None:
    result = gbsite("release", "--help")
    assert result.returncode == 0
    assert re.search(r"^    add +import a torch release's registry", result.stdout, re.M)
    assert re.search(r"^    resolve +resolve the registry fields", result.stdout, re.M)
    missing = gbsite("release")
    assert missing.returncode == 2 and "the following arguments are required: ACTION" in (
        missing.stderr
    )


@pytest.mark.repo_data
def test_unknown_command_is_a_usage_error() -> None:
    result = gbsite("frobnicate")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr and "did you mean" not in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.repo_data
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


@pytest.mark.repo_data
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
        (["import", "r.json", "--download-timeout", "9"], "--download-timeout does nothing with a"),
        (["release", "add", "2.99.0", "r.whl", "--download-timeout", "9"], "--download-timeout"),
    ],
)
def test_an_option_that_would_do_nothing_is_an_error(args: list[str], message: str) -> None:
    result = gbsite(*args)
    assert result.returncode == 2 and result.stdout == ""
    command = " ".join(args[:2] if args[0] in ("ci", "release") else args[:1])
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.splitlines()[-1].startswith(f"gbsite {command}: {message}")
    assert "Traceback" not in result.stderr


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
        ["import", "https://example.org/r.json", "--download-timeout", "9"],
        ["release", "add", "2.99.0", "--download-timeout", "9"],
    ],
)
def test_options_that_work_together_parse(args: list[str]) -> None:
    parsed = usage.parse(arguments.build_parser(), args)
    # The defaults the check above saw as "not given" are filled in for the command.
    filled = ("jobs", "timeout", "limit", "max_bytes", "download_timeout")
    assert all(getattr(parsed, dest, 0) is not None for dest in filled)


def test_outside_a_project(tmp_path: Path) -> None:
    result = gbsite("export-json", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("gbsite: no gbsite.toml in")
    assert "Traceback" not in result.stderr


@pytest.mark.repo_data
def test_missing_source_file(project: Project) -> None:
    result = gbsite("--root", str(project.root), "import", "no-such-file.json", "--label", "x")
    assert result.returncode == 2
    assert result.stderr == "no-such-file.json: no such file\n"


@pytest.mark.repo_data
def test_bad_config_is_reported_with_line(project: Project) -> None:
    config = project.root / "gbsite.toml"
    config.write_text(
        config.read_text().replace('branch = "main"', 'branch = "main"\nbrnach = "x"')
    )
    result = gbsite("--root", str(project.root), "export-json")
    assert result.returncode == 2
    assert "gbsite.toml:9: unknown setting site.brnach" in result.stderr


@pytest.mark.repo_data
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


@pytest.mark.repo_data
@pytest.mark.slow  # whole-project commands in child processes
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


# ---- gbsite show ----------------------------------------------------------------------------


def _shown_id() -> str:
    """A page with a repro and a fix that did what they promise with a release of the
    examples, from the committed docs and record: the newest release that has one (a release
    just added has no outcome until CI records them)."""
    from gbsite.examples import record as runs

    record = runs.read(REPO / "docs" / "verified-examples.yaml")
    for release in reversed(example_releases()):
        kept = {
            (row.id, row.kind)
            for row in record.rows.values()
            if row.outcomes.get(release) == runs.passing(row.kind)
        }
        found = [i for i in committed().entries if {(i, "gb-repro"), (i, "gb-fix")} <= kept]
        if found:
            return found[0]
    raise AssertionError("no page is verified with any release of the examples")


@pytest.mark.repo_data
@pytest.mark.slow  # whole-project commands in child processes
def test_show_as_json_is_the_page_and_the_record() -> None:
    from gbsite.examples import record as runs
    from gbsite.examples.states import coverage_of

    gb_id = _shown_id()
    result = gbsite("show", gb_id, "--format", "json")
    assert result.returncode == 0 and result.stderr == ""
    data = json.loads(result.stdout)
    assert list(data) == [
        "id", "type", "status", "added", "removed", "newest_import", "url", "doc", "states",
        "why", "declared", "examples", "registry",
    ]  # fmt: skip
    entry = committed().entries[gb_id]
    assert (data["id"], data["type"], data["added"]) == (gb_id, entry.current.gb_type, entry.added)
    assert data["status"] == ("removed" if entry.removed else "current")
    assert data["newest_import"] == labels()[-1]
    assert data["url"].endswith(f"/gb/{gb_id.lower()}.html")
    assert data["registry"]["explanation"] == entry.current.explanation
    # The state with each release is what `gbsite coverage` says of the id.
    cfg = config.load(REPO)
    newest = example_releases()[-1]
    assert list(data["states"]) == list(example_releases())
    coverage = coverage_of(cfg, committed(), newest)
    assert data["states"][newest] == next(s.status for s in coverage.states if s.id == gb_id)
    # The examples are the page's blocks, with the outcomes the record has for them.
    text = (REPO / data["doc"]).read_text()
    assert data["why"]["title"] == "Why this happens" and data["why"]["markdown"] in text
    record = runs.read(cfg.verified_file)
    rows = {r.sha256: r for r in record.rows.values() if r.id == gb_id}
    kinds = [e["kind"] for e in data["examples"]]
    assert "gb-repro" in kinds and "gb-fix" in kinds
    for example in data["examples"]:
        assert example["code"] in text
        assert example["promise"] == str(runs.passing(example["kind"]))
        recorded = [
            {release: str(o) for release, o in r.outcomes.items()}
            for r in rows.values()
            if r.kind == example["kind"]
        ]
        assert {k: v for k, v in example["outcomes"].items() if v} in recorded


@pytest.mark.repo_data
def test_show_as_text() -> None:
    gb_id = _shown_id()
    data = json.loads(gbsite("show", gb_id, "--format", "json").stdout)
    result = gbsite("show", gb_id)
    assert result.returncode == 0 and result.stderr == ""
    out = result.stdout
    assert "\x1b" not in out  # not a terminal: no escapes
    assert out.startswith(f"{gb_id}: {data['type']}\n")
    for release, state in data["states"].items():
        assert re.search(rf"^  {re.escape(release)} +{state}$", out, re.M)
    assert "\nWhy this happens\n" in out
    assert " ".join(data["why"]["markdown"].split()[:5]) in " ".join(out.split())
    for example in data["examples"]:
        for line in example["code"].splitlines():
            assert f"    {line}".rstrip() in out.splitlines()
    words = {"breaks", "runs"}
    assert all(re.search(rf"torch .*{w}", out) for w in words)
    assert data["url"] in out and data["doc"] in out


@pytest.mark.repo_data
def test_show_styles_a_terminal_unless_no_color() -> None:
    import pty

    gb_id = _shown_id()

    def on_terminal(env: dict[str, str]) -> str:
        leader, follower = pty.openpty()
        with subprocess.Popen(
            [sys.executable, "-m", "gbsite", "show", gb_id],
            cwd=REPO,
            stdout=follower,
            stderr=subprocess.PIPE,
            env={k: v for k, v in {**os.environ, **env}.items() if v is not None},
        ) as process:
            os.close(follower)
            chunks = []
            while True:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the terminal closed with the process
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            assert process.wait() == 0
        os.close(leader)
        return b"".join(chunks).decode()

    styled = on_terminal({"NO_COLOR": "", "TERM": "xterm"})
    assert f"\x1b[1m{gb_id}: " in styled
    plain = on_terminal({"NO_COLOR": "1", "TERM": "xterm"})
    assert "\x1b" not in plain and f"{gb_id}: " in plain


@pytest.mark.repo_data
@pytest.mark.slow  # whole-project commands in child processes
@pytest.mark.parametrize(
    "form",
    ["{ID}", "{id}", "{n}", "{id}.html", "https://example.org/site/gb/{id}.html#example"],
)
def test_show_takes_an_id_in_any_form(form: str) -> None:
    gb_id = _shown_id()
    named = form.format(ID=gb_id, id=gb_id.lower(), n=int(gb_id[2:]))
    result = gbsite("show", named)
    assert result.returncode == 0 and result.stdout == gbsite("show", gb_id).stdout


@pytest.mark.repo_data
def test_show_an_unknown_id_or_no_id() -> None:
    missing = unknown_id()
    result = gbsite("show", missing.lower())
    assert result.returncode == 2 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"gbsite: show: {missing} is not in the registry")
    assert f"newest import: {labels()[-1]}" in line
    result = gbsite("show", "data-dependent")
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert "names no graph-break id" in result.stderr


@pytest.mark.repo_data
@pytest.mark.slow  # whole-project commands in child processes
def test_lookup_show_prints_the_first_match() -> None:
    gb_id = _shown_id()
    words = committed().entries[gb_id].current.gb_type.split()
    [first] = json.loads(gbsite("lookup", "--limit", "1", "--json", "--words", *words).stdout)
    for extra in ([], ["--json"]):
        result = gbsite("lookup", "--show", *extra, "--words", *words)
        assert result.returncode == 0
        assert (
            result.stdout
            == gbsite("show", first["id"], *(["--format", "json"] if extra else [])).stdout
        )


@pytest.mark.repo_data
def test_help_names_every_state_and_outcome() -> None:
    from gbsite.examples import record as runs
    from gbsite.examples.vocabulary import State

    def help_of(*command: str) -> str:
        return " ".join(gbsite(*command, "--help").stdout.split())

    for command in (["show"], ["coverage"], ["ci", "preview"]):
        text = help_of(*command)
        assert all(state in text for state in State), (command, text)
    outcomes = (
        runs.BREAKS,
        runs.NO_BREAK,
        runs.RUNS,
        runs.EAGER_FAILS,
        runs.WRONG,
        runs.CORRECT,
        runs.ERROR,
    )
    show = help_of("show")
    other = runs.other_break(["GB0000"])  # the help writes the id as GBxxxx
    assert all(o.describe() in show for o in outcomes)
    assert other.describe().replace("GB0000", "GBxxxx") in show
    check = help_of("check")
    assert all(str(o) in check for o in outcomes)
    assert str(other).replace("GB0000", "GBxxxx") in check
    lookup = help_of("lookup")
    assert all(s in lookup for s in ("current", "removed", "Ctrl-D"))


# ---- gbsite lookup: stdin from a terminal, the cached index ---------------------------------


@pytest.mark.repo_data
def test_lookup_from_a_terminal_says_how_to_end_the_input() -> None:
    import pty

    leader, follower = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "gbsite", "lookup"],
        cwd=REPO,
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        os.close(follower)
        os.write(leader, b"GB0025\n\x04")  # a line, then Ctrl-D
        out, err = process.communicate(timeout=60)
    os.close(leader)
    assert "paste a log" in err and "Ctrl-D" in err
    # The prompt fits an 80-column terminal: wrapped, it reads as part of the paste below it.
    assert all(len(line) <= 80 for line in err.splitlines())
    # The answer stands apart from what was pasted: a blank line first.
    assert process.returncode == 0 and out.startswith("\nGB0025 ")
    piped = gbsite("lookup", stdin="GB0025\n")
    assert piped.returncode == 0 and "Ctrl-D" not in piped.stderr


@pytest.mark.repo_data
@pytest.mark.slow  # builds the whole site
def test_lookup_before_a_build_caches_the_index(project: Project, tmp_path: Path) -> None:
    """A clone without site/: the first lookup builds the search index the site would have and
    keeps it in the cache; the next ones read it; an edit makes a new one."""
    cache = tmp_path / "cache"
    env = {"GBSITE_CACHE_DIR": str(cache)}
    root = ["--root", str(project.root)]
    assert not project.site.exists()
    first = gbsite(*root, "lookup", "--words", "graph", "break", env=env)
    assert first.returncode == 0, first.stderr
    [cached] = (cache / "lookup").iterdir()
    stamp = cached.stat().st_mtime_ns
    again = gbsite(*root, "lookup", "--words", "graph", "break", env=env)
    assert again.stdout == first.stdout
    assert list((cache / "lookup").iterdir()) == [cached] and cached.stat().st_mtime_ns == stamp
    # What `gbsite build` writes for the browser, byte for byte.
    built = gbsite(*root, "build", env=env)
    assert built.returncode == 0, built.stderr
    assert cached.read_bytes() == (project.site / "assets" / "search-index.js").read_bytes()
    # The site is older than an edited page now: the next lookup caches a new index.
    path = project.docs / "gb0025.md"
    path.write_text(
        path.read_text().replace(
            "### Why this happens", "### Why this happens\n\nZqxwords here.\n", 1
        )
    )
    edited = gbsite(*root, "lookup", "--words", "zqxwords", env=env)
    assert edited.returncode == 0 and edited.stdout.startswith("GB0025 ")
    assert len(list((cache / "lookup").iterdir())) == 2


@pytest.mark.repo_data
def test_lookup_without_a_writable_cache(project: Project, tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    result = gbsite(
        "--root", str(project.root), "lookup", "--words", "graph_break",
        env={"GBSITE_CACHE_DIR": str(blocked)},
    )  # fmt: skip
    assert result.returncode == 0 and result.stderr == "" and result.stdout.startswith("GB")
    assert blocked.read_text() == "not a folder"


@pytest.mark.repo_data
@pytest.mark.slow  # whole-project commands in child processes
def test_show_reads_a_page_s_rows_of_the_record_as_the_whole_record_has_them(
    tmp_path: Path,
) -> None:
    from gbsite.examples import record as runs

    path = REPO / "docs" / "verified-examples.yaml"
    whole = runs.read(path)
    ids = sorted({gb_id for gb_id, _ in whole.rows})
    assert ids
    for gb_id in [*ids, unknown_id()]:
        rows = {k: r for k, r in whole.rows.items() if k[0] == gb_id}
        assert runs.read_page(path, gb_id).rows == rows
    # A record in a layout of its own (kind before id) is read whole, then cut.
    other = tmp_path / "record.yaml"
    other.write_text(
        re.sub(r"\n- id: (GB\d+)\n  kind: (\S+)\n", r"\n- kind: \2\n  id: \1\n", path.read_text())
    )
    assert "\n- id: " not in other.read_text()
    assert runs.read(other).rows == whole.rows
    assert runs.read_page(other, ids[0]).rows == runs.read_page(path, ids[0]).rows


# What a lookup with its index cached may not import: each is only needed to build or to show a
# page, and together they doubled a lookup's time (benchmarks/lookup.py measures it); shutil
# (its archive modules) is what argparse asks the terminal's width with (usage.terminal_columns);
# tomllib parses a gbsite.toml no command has parsed before (parsed.py); typing, a quarter of a
# bare Python start, is imported by no module a lookup needs (gbsite/lean_typing.py).
HEAVY = (
    "typing",
    "yaml",
    "jinja2",
    "markdown_it",
    "pygments",
    "gbsite.examples.record",
    "dataclasses",
    "shutil",
    "tomllib",
    "hashlib",
)


@pytest.mark.repo_data
@pytest.mark.parametrize(
    "query",
    [[str(REPO / "tests" / "data" / "logs" / "multi.log")], ["--words", "data", "dependent"]],
    ids=["a log", "words"],
)
def test_a_lookup_imports_nothing_only_a_build_or_a_page_needs(
    project: Project, tmp_path: Path, query: list[str]
) -> None:
    env = dict(os.environ, GBSITE_CACHE_DIR=str(tmp_path / "cache"))
    root = ["--root", str(project.root)]
    first = gbsite(*root, "lookup", *query, env=env)  # builds the index into the cache
    assert first.returncode == 0, first.stderr
    done, imported = imports_of([*root, "lookup", *query], HEAVY, env)
    assert done.stdout == first.stdout
    assert imported == [], done.stderr


def imports_of(
    args: list[str], modules: tuple[str, ...], env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """A gbsite command run in a new interpreter, and which of `modules` it imported."""
    probe = (
        "import sys\n"
        "from gbsite.cli import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {modules!r} if m in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    return done, ast.literal_eval(done.stderr.strip().splitlines()[-1])


# What a build with nothing to do may not import: the modules of its phases, which took it
# longer to import than it takes to find that nothing changed.
BUILD_PHASES = (
    "yaml",
    "jinja2",
    "markdown_it",
    "pygments",
    "gbsite.registry.store",
    "gbsite.site.content",
    "gbsite.site.load",
    "gbsite.site.render",
)


@pytest.mark.repo_data
def test_a_build_with_nothing_to_do_imports_none_of_its_phases(
    empty_project: Project, tmp_path: Path
) -> None:
    env = dict(os.environ, GBSITE_CACHE_DIR=str(tmp_path / "cache"))
    root = ["--root", str(empty_project.root)]
    source = tmp_path / "torch-2.13.0.json"
    source.write_text("{}")  # a release with no ids: a site to build in a moment
    assert gbsite(*root, "import", str(source), env=env).returncode == 0
    first = gbsite(*root, "build", env=env)
    assert first.returncode == 0, first.stderr
    done, imported = imports_of([*root, "build"], BUILD_PHASES, env)
    assert done.stdout.startswith("build: nothing changed"), done.stdout
    assert imported == [], done.stderr


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's commands (or a command's actions) by name."""
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The help of every command and action below `parser`, by its prog."""
    found = {}
    for command in _commands(parser).values():
        found[command.prog] = command.format_help()
        if any(isinstance(a, argparse._SubParsersAction) for a in command._actions):
            found.update(_helps(command))
    return found


def test_a_command_parsed_alone_is_parsed_as_among_all_of_them() -> None:
    """`gbsite lookup` builds the parser of lookup alone (starting faster); each command's
    parser, alone, is the one the whole command line has: the same options, help and actions."""
    whole = arguments.build_parser()
    assert tuple(_commands(whole)) == arguments.COMMANDS
    everything = _helps(whole)
    for name in arguments.COMMANDS:
        alone = arguments.build_parser(only=name)
        assert list(_commands(alone)) == [name]
        helps = _helps(alone)
        assert helps == {p: h for p, h in everything.items() if p.split()[1] == name}, name


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["lookup", "log.txt"], "lookup"),
        (["--root", "lookup", "build"], "build"),  # a folder named like a command
        (["--root=x", "--traceback", "show", "GB0025"], "show"),
        (["release", "add", "2.16.0"], "release"),
        (["--help"], None),
        (["--version", "build"], None),
        (["-h"], None),
        (["biuld"], None),  # the whole parser suggests `build`
        ([], None),
        (["--ro", "x", "build"], None),  # an abbreviation: left to argparse
    ],
)
def test_the_command_is_found_before_parsing(argv: list[str], command: str | None) -> None:
    assert arguments.command_of(argv) == command


@pytest.mark.parametrize("columns", [None, "50", "132", "0", "-3", "wide"])
def test_help_is_laid_out_at_the_width_argparse_would_choose(
    monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    """gbsite's parsers ask the terminal's width themselves (usage.terminal_columns, sparing
    `gbsite lookup` shutil's import): every command's help is what argparse's own formatter,
    which asks shutil, lays out, with $COLUMNS set, unset or not a width."""
    import shutil

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert usage.terminal_columns() == shutil.get_terminal_size().columns
    ours = _helps(arguments.build_parser())
    monkeypatch.setattr(usage, "_Formatter", argparse.HelpFormatter)
    assert _helps(arguments.build_parser()) == ours

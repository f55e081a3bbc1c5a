"""The reachability probe (tools/probe/, gbsite.probe): its detection, run on a stand-in torch
through the example driver's fork server, and its reports. No torch needed."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO
from gbsite.probe import corpus, report
from gbsite.probe.detect import Program, Reached, run_programs
from gbsite.probe.sites import raise_sites, sites_of

# A stand-in torch: what the driver and the wrapper use of it, and a graph-break logger.
FAKE = {
    "torch/__init__.py": """
        __version__ = "2.13.0+fake"
        from torch import _dynamo, _logging
        def seed():
            return 0
    """,
    "torch/_logging.py": """
        def set_logs(**kwargs):
            pass
    """,
    "torch/_dynamo/__init__.py": """
        def reset():
            pass
    """,
    "torch/_dynamo/utils.py": """
        import collections
        counters = collections.defaultdict(collections.Counter)
    """,
    "torch/_dynamo/symbolic_convert.py": """
        import logging
        graph_breaks = logging.getLogger("torch._dynamo.symbolic_convert.__graph_breaks")
    """,
    "torch/_dynamo/exc.py": """
        class Unsupported(Exception):
            def __init__(self, msg, gb_type=""):
                super().__init__(msg)
                self.gb_type = gb_type

        def unimplemented(*, gb_type, context="", explanation="", hints=()):
            raise Unsupported(gb_type + " https://x.io/site/gb/" + LINKS[gb_type], gb_type)

        LINKS = {"type A": "gb0101.html", "type E": "gb0105.html"}
    """,
}
LINK = "https://x.io/site/gb/gb{}.html"

# name -> (program, what it should show); each runs in a child of its own
PROGRAMS = {
    "raises": "from torch._dynamo.exc import unimplemented\nunimplemented(gb_type='type A')\n",
    "chain": (
        "from torch._dynamo.exc import Unsupported\n"
        f"raise RuntimeError('outer') from Unsupported('{LINK.format('0102')}')\n"
    ),
    "logged": (
        "from torch._dynamo.symbolic_convert import graph_breaks\n"
        f"graph_breaks.warning('Graph break: {LINK.format('0103')}')\n"
    ),
    "printed": f"print('caught: {LINK.format('0104')}')\n",
    "hidden": (
        "from torch._dynamo.exc import Unsupported\n"
        "try:\n    raise Unsupported('no link here', gb_type='type E')\n"
        "except Unsupported:\n    raise ValueError('something else')\n"
    ),
    "loops": "while True:\n    pass\n",
    "dies": "import os\nos._exit(3)\n",
    "quiet": "x = 1\n",
}


@pytest.fixture(scope="module")
def fake_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("probe-torch")
    for name, text in FAKE.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    script = root / "python"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{root}" exec "{sys.executable}" "$@"\n')
    script.chmod(0o755)
    return str(script)


@pytest.fixture(scope="module")
def reached(fake_python: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Reached]:
    folder = tmp_path_factory.mktemp("probe-programs")
    programs = []
    for name, text in PROGRAMS.items():
        path = folder / f"{name}.py"
        path.write_text(text)
        programs.append(Program(path, "t", name))
    by_type = {"type A": "GB0101", "type E": "GB0105"}
    runs = run_programs(programs, fake_python, by_type, folder / "runs", jobs=2, timeout=3)
    return {r.program.name: r for r in runs}


@pytest.mark.repo_data
def test_detection_reads_every_place_a_link_shows(reached: dict[str, Reached]) -> None:
    assert reached["raises"].seen == ("GB0101",)
    assert reached["raises"].status == "raised"
    assert reached["chain"].seen == ("GB0102",)  # the cause of what ended the program
    assert reached["logged"].seen == ("GB0103",)  # TORCH_LOGS=graph_breaks
    assert reached["logged"].status == "completed"
    assert reached["printed"].seen == ("GB0104",)  # a program that catches and prints
    assert reached["quiet"].seen == () and reached["quiet"].status == "completed"


@pytest.mark.repo_data
def test_a_break_raised_inside_but_never_shown_is_hidden(reached: dict[str, Reached]) -> None:
    assert reached["hidden"].seen == ()
    assert reached["hidden"].hidden == ("GB0105",)
    assert reached["raises"].hidden == ()  # seen, so not hidden


@pytest.mark.repo_data
def test_a_program_that_hangs_or_dies_hides_no_other(reached: dict[str, Reached]) -> None:
    assert set(reached) == set(PROGRAMS)
    assert reached["loops"].status == "timeout"
    assert reached["dies"].status == "crashed"
    assert reached["dies"].error.startswith("exit 3")


def row(name: str, size: int, seen: list[str], hidden: list[str] = [], aims: list[str] = []):  # noqa: B006
    return {
        "name": f"t/{name}",
        "path": f"tools/probe/corpus/t/{name}.py",
        "technique": "t",
        "generated": False,
        "aims": aims,
        "size": size,
        "status": "raised",
        "error": "",
        "seen": seen,
        "hidden": hidden,
        "seconds": 0.1,
    }


STATES = {"GB0001": "internal", "GB0002": "internal", "GB0003": "verified", "GB0004": "unraised"}


def sample() -> dict[str, object]:
    rows = [
        row("big", 900, ["GB0001", "GB0003"]),
        row("small", 100, ["GB0001"], aims=["GB0002"]),
        row("inside", 50, [], hidden=["GB0002"]),
        row("old", 70, ["GB0004", "GB0999"]),  # GB0999: not an id of this release
    ]
    types = {i: f"type {i}" for i in STATES}
    sites = {"GB0002": ["torch/_dynamo/x.py:10 f"]}
    return report.build("2.13.0", "2.13.0+cpu", rows, STATES, types, sites, ["t", "u"])


def test_report_names_the_smallest_program_and_what_was_tried() -> None:
    ids = sample()["ids"]
    assert isinstance(ids, dict)
    assert ids["GB0001"]["reached"] and ids["GB0001"]["program"].endswith("small.py")
    assert ids["GB0001"]["programs"] == 2
    assert not ids["GB0002"]["reached"]
    assert ids["GB0002"]["aimed_by"] == ["tools/probe/corpus/t/small.py"]
    assert ids["GB0002"]["hidden_in"].endswith("inside.py")
    assert ids["GB0002"]["sites"] == ["torch/_dynamo/x.py:10 f"]
    assert ids["GB0004"]["reached"]
    assert "GB0999" not in ids


def test_markdown_lists_reached_and_still_internal_pages(tmp_path: Path) -> None:
    report.write_json(tmp_path / "report-2.13.0.json", sample())
    reports = report.read_reports(tmp_path)
    text = report.markdown(reports, "python tools/probe/run.py")
    reached = text.split("## Internal pages reached")[1].split("##")[0]
    assert "| GB0001 |" in reached and "small.py" in reached and "GB0002" not in reached
    assert "| GB0004 |" in text.split("## Unraised pages reached")[1].split("##")[0]
    still = text.split("## Still internal")[1]
    assert "**GB0002**" in still and "torch/_dynamo/x.py:10 f" in still
    # release, torch, programs, ids reached, internal pages, internal reached, unraised reached,
    # still internal
    assert "| 2.13.0 | 2.13.0+cpu | 4 | 3 | 2 | 1 | 1 | 1 |" in text
    assert "| `t` | 4 |" in text.split("## What ran")[1]  # programs per technique and release


def test_a_partial_run_replaces_only_its_own_rows() -> None:
    old = [row("a", 1, ["GB0001"]), row("b", 1, []), {**row("c", 1, []), "technique": "u"}]
    new = [row("b", 2, ["GB0002"])]
    merged = report.merge(old, new, [])
    assert [(r["name"], r["seen"]) for r in merged] == [
        ("t/a", ["GB0001"]),
        ("t/b", ["GB0002"]),
        ("t/c", []),
    ]
    # a technique run whole drops its programs that are gone from the corpus
    assert [r["name"] for r in report.merge(old, new, ["t"])] == ["t/b", "t/c"]


@pytest.mark.repo_data
def test_corpus_discovery_and_generators(tmp_path: Path) -> None:
    (tmp_path / "a-one").mkdir()
    (tmp_path / "a-one" / "p.py").write_text("# aims: GB0002 GB0001\n# aims: GB0003\nx = 1\n")
    (tmp_path / "a-one" / "gen_many.py").write_text(
        "import sys, pathlib\n"
        "for i in range(3):\n"
        "    (pathlib.Path(sys.argv[1]) / f'v{i}.py').write_text('# aims: GB0009\\n')\n"
    )
    (tmp_path / "_shared").mkdir()
    programs = corpus.written(tmp_path)
    assert [(p.name, p.aims) for p in programs] == [("a-one/p", ("GB0001", "GB0002", "GB0003"))]
    assert corpus.techniques(tmp_path) == ["a-one"]
    [(technique, generator)] = corpus.generators(tmp_path)
    made = corpus.generate(sys.executable, technique, generator, tmp_path / "out")
    assert [p.name for p in made] == ["a-one/many/v0", "a-one/many/v1", "a-one/many/v2"]
    assert all(p.generated and p.aims == ("GB0009",) for p in made)


@pytest.mark.repo_data
def test_a_failing_generator_is_one_line(tmp_path: Path) -> None:
    from gbsite.errors import GbsiteError

    gen = tmp_path / "gen_bad.py"
    gen.write_text("raise SystemExit('no such op')\n")
    with pytest.raises(GbsiteError, match=r"gen_bad.py: exit 1: no such op"):
        corpus.generate(sys.executable, "t", gen, tmp_path / "out")


def test_raise_sites_name_file_line_and_function(tmp_path: Path) -> None:
    package = tmp_path / "torch"
    (package / "_dynamo").mkdir(parents=True)
    (package / "_dynamo" / "b.py").write_text(
        "class V:\n"
        "    def call(self):\n"
        "        unimplemented(\n"
        "            gb_type='Bad ' 'thing',\n"
        "            context='')\n"
        "def top():\n"
        "    unimplemented(gb_type=f'Other {x}')\n"
    )
    found = raise_sites(package)
    assert [str(s) for s in sites_of(["Bad thing"], found)] == ["torch/_dynamo/b.py:3 V.call"]
    assert [str(s) for s in sites_of(["Other {x}"], found)] == ["torch/_dynamo/b.py:7 top"]


def test_corpus_programs_are_python_and_generators_are_named() -> None:
    """Every file of the committed corpus parses; names are unique within a technique."""
    root = REPO / "tools" / "probe" / "corpus"
    files = sorted(root.rglob("*.py"))
    assert files
    for path in files:
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    assert all(p.technique in corpus.techniques(root) for p in corpus.written(root))


@pytest.mark.repo_data
def test_committed_reports_name_programs_that_exist() -> None:
    """Every program a committed report names as having reached an id whose page is not
    verified is in the repository (for a verified one, a generated program may be named by
    its generator: `generated:NAME`, written again by any run)."""
    folder = REPO / "tools" / "probe"
    for rep in report.read_reports(folder):
        for gb_id, entry in rep["ids"].items():  # type: ignore[attr-defined]
            if not entry["reached"]:
                continue
            program = str(entry["program"])
            if entry["state"] in report.NOT_VERIFIED or not program.startswith("generated:"):
                assert (REPO / program).is_file(), (rep["release"], gb_id, program)
    md = folder / "REPORT.md"
    if md.exists():
        assert md.read_text(encoding="utf-8").startswith("# Reachability probe")

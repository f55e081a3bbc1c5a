"""Registry fields that name a Python value (issue 32): resolved from the release's torch source
at import (a wheel, or --torch-source), or later with `gbsite release resolve`; kept in
registry/resolved/LABEL.yaml; shown beside the registry's name; matched by search and lookup;
never written back by export-json."""

from __future__ import annotations

import gzip
import json
import zipfile
from pathlib import Path

import pytest
import yaml

from conftest import REPO, Project, committed, item, snapshot
from gbsite.registry import importer, resolve, torchtree
from gbsite.registry import store as registry
from gbsite.registry.model import Text
from gbsite.registry.views import entry_views
from gbsite.search import index
from gbsite.search.engine import lookup

CONSTANTS = """
_REMAP_ERROR = (
    "Only synchronous collectives "
    "can be remapped."
)
"""
RAISES = """
from torch._dynamo.exc import unimplemented
from torch.distributed.consts import _REMAP_ERROR as REMAP
import torch.distributed.consts


def outer(value, flag):
    explained = "The handler found no frame " + f"for {value}."
    prefix = "Check " + "it"

    def inner():
        unimplemented(gb_type="Nested", context="", explanation=explained, hints=[])

    if flag:
        note = "one"
    else:
        note = "two"
    unimplemented(gb_type="Twice", context="", explanation=note, hints=[prefix])
    unimplemented(gb_type="Param", context=value, explanation="e", hints=[])
    unimplemented(gb_type="Remap", context="", explanation=REMAP, hints=[])
    unimplemented(gb_type="snake_case_type", context="", explanation="literal", hints=[])
    return inner
"""


def torch_tree(root: Path, version: str = "2.16.0+cpu") -> Path:
    """A torch package folder with a graph-break call for each way a name is bound."""
    files = {
        "__init__.py": "",
        "version.py": f"__version__ = '{version}'\n",
        "_dynamo/__init__.py": "",
        "_dynamo/exc.py": "def unimplemented(**kw): pass\n",
        "_dynamo/raising.py": RAISES,
        "distributed/__init__.py": "",
        "distributed/consts.py": CONSTANTS,
    }
    for name, text in files.items():
        path = root / "torch" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "torch"


REGISTRY = {
    "GB0001": [item("Nested", "", "explained", [])],
    "GB0002": [item("Twice", "", "note", ["prefix"])],
    "GB0003": [item("Param", "value", "e", [])],
    "GB0004": [item("Remap", "", "_REMAP_ERROR", [])],
    "GB0005": [item("snake_case_type", "", "literal", [])],
}


def test_each_kind_of_binding_is_resolved_or_left_with_its_reason(tmp_path: Path) -> None:
    # GB0004's registry text names the constant, the call passes it under an alias.
    texts = {
        k: [Text(i["Gb_type"], i["Context"], i["Explanation"], tuple(i["Hints"])) for i in v]
        for k, v in REGISTRY.items()
    }
    texts["GB0004"] = [Text("Remap", "", "REMAP", ())]
    outcome = resolve.resolve(torchtree.folder_tree(torch_tree(tmp_path)), texts)  # type: ignore[arg-type]
    assert outcome.torch == "2.16.0+cpu"
    got = {(r.id, r.field, r.name): (r.text, r.source) for r in outcome.resolved}
    assert got == {
        # a local of the enclosing function, `+` of a literal and an f-string
        ("GB0001", "explanation", "explained"): (
            "The handler found no frame for {value}.",
            "torch/_dynamo/raising.py:8",
        ),
        # a hint that is a name
        ("GB0002", "hints", "prefix"): ("Check it", "torch/_dynamo/raising.py:9"),
        # imported under another name from another module of torch
        ("GB0004", "explanation", "REMAP"): (
            "Only synchronous collectives can be remapped.",
            "torch/distributed/consts.py:2",
        ),
    }
    why = {(w.id, w.field, w.name): reason for w, reason in outcome.unresolved}
    assert why[("GB0002", "explanation", "note")].startswith("`note` is bound to 2 different")
    assert why[("GB0003", "context", "value")].startswith("`value` is set at run time")
    # A type that merely looks like a name is the call's literal text.
    assert why[("GB0005", "gb_type", "snake_case_type")].startswith("no call of this torch")


def registry_json(tmp_path: Path) -> Path:
    data = dict(REGISTRY)
    data["GB0004"] = [item("Remap", "", "REMAP", [])]
    path = tmp_path / "graph_break_registry.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


@pytest.mark.slow  # builds the whole site
def test_import_with_torch_source_stores_the_texts_and_export_keeps_the_names(
    tmp_path: Path, empty_project: Project
) -> None:
    proj = empty_project
    source = registry_json(tmp_path)
    folder = torch_tree(tmp_path / "env")
    result = proj.run("import", str(source), "--label", "2.16.0", "--torch-source", str(folder))
    assert result.code == 0, result.err
    assert "resolved 3 field(s) of 2.16.0" in result.out
    stored = yaml.safe_load((proj.registry / "resolved" / "2.16.0.yaml").read_text())
    assert stored["torch"] == "2.16.0+cpu"
    assert [(r["id"], r["name"]) for r in stored["resolved"]] == [
        ("GB0001", "explained"),
        ("GB0002", "prefix"),
        ("GB0004", "REMAP"),
    ]

    # Where that source raises each id: the call passing its type, with its function.
    def line(text: str) -> int:
        return next(n for n, t in enumerate(RAISES.split("\n"), 1) if text in t)

    raised = "torch/_dynamo/raising.py"
    assert stored["raised"] == [
        {"id": "GB0001", "source": f"{raised}:{line('Nested')}", "function": "outer.inner"},
        {"id": "GB0002", "source": f"{raised}:{line('Twice')}", "function": "outer"},
        {"id": "GB0003", "source": f"{raised}:{line('Param')}", "function": "outer"},
        {"id": "GB0004", "source": f"{raised}:{line('Remap')}", "function": "outer"},
        {"id": "GB0005", "source": f"{raised}:{line('snake')}", "function": "outer"},
    ]
    assert proj.run("sync").code == 0
    assert proj.run("check").code == 0
    # export-json writes what PyTorch wrote: the names.
    exported = json.loads(proj.run("export-json").out)
    assert exported["GB0004"][0]["Explanation"] == "REMAP"
    assert exported == json.loads(source.read_text())
    # The page shows the name and the text; search and lookup find the text.
    assert proj.run("build").code == 0
    html = (proj.site / "gb" / "gb0004.html").read_text()
    assert "Only synchronous collectives can be remapped." in html
    assert "The registry says <code>REMAP</code>" in html
    assert "<code>torch/distributed/consts.py</code>, line 2" in html
    # The page links to where the release raises it, at the release's tag.
    tag = f"https://github.com/pytorch/pytorch/blob/v2.16.0/{raised}#L{line('Remap')}"
    assert f'Raised in <a href="{tag}"' in html
    entry = json.loads((proj.site / "gb" / "gb0004.json").read_text())
    assert entry["current"]["explanation"] == "REMAP"
    assert entry["resolved"] == [
        {
            "field": "explanation",
            "name": "REMAP",
            "text": "Only synchronous collectives can be remapped.",
            "torch": "2.16.0",
            "source": "torch/distributed/consts.py:2",
        }
    ]
    found = proj.run("lookup", "--json", "--words", "synchronous", "collectives", "remapped")
    assert json.loads(found.out)[0]["id"] == "GB0004"


def test_a_wheel_resolves_its_own_fields(tmp_path: Path, empty_project: Project) -> None:
    folder = torch_tree(tmp_path / "env")
    wheel = tmp_path / "torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for path in sorted(folder.rglob("*.py")):
            z.write(path, "torch/" + path.relative_to(folder).as_posix())
        z.write(registry_json(tmp_path), importer.WHEEL_MEMBER)
    result = empty_project.run("import", str(wheel))
    assert result.code == 0, result.err
    assert (empty_project.registry / "resolved" / "2.16.0.yaml").is_file()
    reg = registry.load(empty_project.registry)
    [res] = reg.resolutions.values()
    assert {r.name for r in res.resolved} == {"explained", "prefix", "REMAP"}


def test_release_resolve_refuses_another_release_and_writes_nothing(
    tmp_path: Path, empty_project: Project
) -> None:
    proj = empty_project
    assert proj.run("import", str(registry_json(tmp_path)), "--label", "2.16.0").code == 0
    assert not (proj.registry / "resolved").exists()  # a JSON file has no source
    before = proj.snapshot()
    other = torch_tree(tmp_path / "other", version="2.15.0")
    result = proj.run("release", "resolve", "2.16.0", "--torch-source", str(other))
    assert result.code == 2
    assert "the torch source given is torch 2.15.0, not 2.16.0" in result.err
    missing = proj.run("release", "resolve", "2.17.0", "--torch-source", str(other))
    assert missing.code == 2 and "2.17.0 is not an imported snapshot" in missing.err
    nowhere = proj.run("release", "resolve", "2.16.0", "--torch-source", str(tmp_path))
    assert nowhere.code == 2 and "no torch source here" in nowhere.err
    assert proj.snapshot() == before
    good = torch_tree(tmp_path / "good")
    assert proj.run("release", "resolve", "2.16.0", "--torch-source", str(good)).code == 0
    assert (proj.registry / "resolved" / "2.16.0.yaml").is_file()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("name: REMAP", "name: OTHER"), "no text of GB0004 has 'OTHER' as its explanation"),
        (("field: explanation", "field: title"), "field 'title' is not one of"),
        (("id: GB0004", "id: GB0999"), "GB0999 is not in the registry"),
        (("source: torch/distributed/consts.py:2", "source: consts.py"), "torch/FILE.py:LINE"),
        (("function: outer.inner", "function: [outer]"), "must be a string"),
        (("- id: GB0005\n  source: torch", "- id: GB0998\n  source: torch"), "GB0998 is not in"),
    ],
)
def test_a_damaged_resolved_file_is_refused_with_its_line(
    tmp_path: Path, empty_project: Project, edit: tuple[str, str], message: str
) -> None:
    proj = empty_project
    folder = torch_tree(tmp_path / "env")
    args = ("import", str(registry_json(tmp_path)), "--label", "2.16.0", "--torch-source")
    assert proj.run(*args, str(folder)).code == 0
    path = proj.registry / "resolved" / "2.16.0.yaml"
    path.write_text(path.read_text().replace(*edit))
    result = proj.run("check")
    assert result.code == 2
    assert f"{path}:" in result.err and message in result.err


def test_a_resolved_file_of_no_source_is_reported(empty_project: Project) -> None:
    proj = empty_project
    assert proj.run("import", str(snapshot("2.8.0")), "--label", "2.8.0").code == 0
    assert proj.run("sync").code == 0
    stray = proj.registry / "resolved" / "2.9.0.yaml"
    stray.parent.mkdir()
    stray.write_text("torch: 2.9.0\nresolved: []\n")
    result = proj.run("check")
    assert result.code == 1
    assert f"{stray}: not the resolved texts of a source in sources.yaml" in result.out


# ---- the committed registry ----------------------------------------------------------------


def snapshot_texts(label: str) -> dict[str, list[Text]]:
    return importer.parse_registry_json(Path(label), gzip.decompress(snapshot(label).read_bytes()))


@pytest.mark.repo_data
def test_the_committed_resolutions_are_of_names_in_their_snapshots() -> None:
    """Each resolved field is a bare name in that release's snapshot, the text is not the name,
    and the file is the one gbsite writes (schema, order, bytes)."""
    import jsonschema

    reg = committed()
    schema = json.loads((REPO / "registry" / "schema" / "resolved.schema.json").read_text())
    for label, res in reg.resolutions.items():
        path = registry.resolution_path(REPO / "registry", label)
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)
        assert path.read_text() == registry.resolution_yaml(res)
        names = {(w.id, w.field, w.name) for w in resolve.wanted(snapshot_texts(label))}
        for r in res.resolved:
            assert (r.id, r.field, r.name) in names, (label, r)
            assert r.text.strip() and r.text != r.name


@pytest.mark.repo_data
def test_search_finds_each_id_by_its_resolved_text() -> None:
    """The explanation torch printed, pasted alone, finds the id, for every resolved
    explanation of a current text in the committed registry (most would find nothing, or
    another id, with the registry's name alone)."""
    reg = committed()
    views = entry_views(reg)
    entries = index.entries_for(reg, views, {})
    checked = 0
    for view in views:
        resolved = view.resolution("explanation")
        if resolved is None or view.entry.is_removed:
            continue
        # What torch prints, with the {placeholder} names standing for their values.
        explanation = resolved.text.replace("{", "").replace("}", "")
        top = [m.entry.id for m in lookup(explanation, entries)][:1]
        assert top == [view.id], (view.id, explanation)
        checked += 1
    assert checked > 0


@pytest.mark.repo_data
def test_export_json_writes_the_names_not_the_texts(tmp_path: Path) -> None:
    """PyTorch's shape: the committed registry's export is the newest snapshot, names and all."""
    out = tmp_path / "export.json"
    from conftest import run_cli

    assert run_cli("--root", str(REPO), "export-json", "-o", str(out)).code == 0
    newest = committed().labels[-1]
    assert json.loads(out.read_text()) == json.loads(gzip.decompress(snapshot(newest).read_bytes()))

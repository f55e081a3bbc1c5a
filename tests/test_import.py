"""`gbsite import` and `export-json` on the real PyTorch releases, and the snapshots an import
keeps in registry/snapshots/."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import json
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import (
    HISTORY,
    REPO,
    SNAPSHOTS,
    Project,
    committed,
    item,
    labels,
    make_project,
    snapshot,
    snapshot_json,
)
from gbsite import releases
from gbsite.registry import store as registry
from gbsite.registry.importer import WHEEL_MEMBER


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """What registry/sources.yaml lists, imported in its order into an empty registry from the
    snapshots kept in registry/snapshots/ (docs/maintaining.md: importing a registry)."""
    proj = make_project(tmp_path_factory.mktemp("imported") / "proj", registry=False)
    for label in labels():
        result = proj.run("import", str(snapshot(label)), "--label", label)
        assert result.code == 0, result.err
        assert result.out.startswith(f"imported {label}:"), result.out
    return proj


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow  # `imported`: every snapshot of sources.yaml imported afresh
@pytest.mark.repo_data
def test_export_reproduces_newest_snapshot_exactly(imported: Project) -> None:
    result = imported.run("export-json")
    assert result.code == 0
    expected = snapshot_json(labels()[-1])
    assert json.loads(result.out) == expected
    # Every id keeps its whole upstream list, in order: compare list by list, not just as sets.
    exported = json.loads(result.out)
    assert all(exported[k] == expected[k] for k in expected)


@pytest.mark.slow  # `imported`: every snapshot of sources.yaml imported afresh
@pytest.mark.repo_data
def test_reimport_reproduces_committed_registry_byte_for_byte(imported: Project) -> None:
    """Every file an import writes (sources.yaml, gb/, snapshots/), and no other."""
    committed_files = files_of(REPO / "registry")
    written = files_of(imported.registry)
    del written["categories.yaml"]  # copied, not imported
    assert set(written) == {
        name
        for name in committed_files
        if name == "sources.yaml" or name.startswith(("gb/", "snapshots/"))
    }
    for name, data in written.items():
        assert data == committed_files[name], name


@pytest.mark.repo_data
def test_every_snapshot_is_kept_as_imported() -> None:
    """Each source of sources.yaml has its snapshot, whose JSON has the listed sha256, gzipped
    with no name and no time (the same JSON gives the same bytes)."""
    for source in committed().sources:
        data = snapshot(source.label).read_bytes()
        assert data[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff", source.label
        assert hashlib.sha256(gzip.decompress(data)).hexdigest() == source.sha256, source.label
        assert registry.compress(gzip.decompress(data)) == data
    assert sorted(p.name for p in SNAPSHOTS.iterdir()) == sorted(
        f"{s.label}.json.gz" for s in committed().sources
    )


@pytest.mark.repo_data
def test_the_committed_registry_starts_with_the_history_releases(history_registry: Path) -> None:
    """The registry the history facts below are asserted on is the committed one's beginning:
    the same snapshots, in the same order."""
    assert labels()[: len(HISTORY)] == list(HISTORY)
    history = registry.load(history_registry)
    assert history.sources == committed().sources[: len(HISTORY)]


def test_lifecycle_facts_of_the_real_releases(history_registry: Path) -> None:
    reg = registry.load(history_registry)
    assert len(reg.entries) == 593
    assert reg.labels == list(HISTORY)
    assert [e.id for e in reg.entries.values() if e.is_removed] == ["GB0060"]
    assert reg.entries["GB0060"].removed == "2.14.0"
    assert reg.entries["GB0060"].added == "2.8.0"
    # GB0001's "regione" typo fix: both texts kept, each with the release it became current in.
    gb1 = reg.entries["GB0001"]
    assert gb1.current.hints[0].endswith("`torch.compile` region")
    assert gb1.history[0].current_since == "2.14.0"
    assert gb1.history[1].text.hints[0].endswith("`torch.compile` regione")
    assert gb1.history[1].current_since == "2.8.0"
    # Upstream rewrote GB0056's old item in place ("Dyanmo" -> "Dynamo"); we keep the old text.
    gb56 = reg.entries["GB0056"]
    assert [r.text.explanation.split()[0] for r in gb56.history] == ["Dynamo", "Dynamo"]
    assert gb56.replaced[0].text.explanation.startswith("Dyanmo")
    assert (gb56.replaced[0].current_since, gb56.replaced[0].last_seen) == ("2.8.0", "2.13.0")
    # Ids added later carry the release that introduced them.
    assert reg.entries["GB9899"].added in HISTORY[1:]


@pytest.mark.slow  # `imported`: every snapshot of sources.yaml imported afresh
@pytest.mark.repo_data
def test_same_snapshot_twice_changes_no_byte(imported: Project) -> None:
    before = imported.snapshot()
    result = imported.run("import", str(snapshot(labels()[-1])))
    assert result.code == 0
    assert "already imported" in result.out
    assert imported.snapshot() == before


@pytest.mark.slow  # `imported`: every snapshot of sources.yaml imported afresh
@pytest.mark.repo_data
def test_older_release_is_refused_and_nothing_written(imported: Project, tmp_path: Path) -> None:
    before = imported.snapshot()
    older = snapshot_json("2.12.0")
    older["GB0001"][0]["Context"] = "changed"  # a new snapshot, so it is not a no-op
    path = tmp_path / "torch-2.12.1.json"
    path.write_text(json.dumps(older))
    result = imported.run("import", str(path))
    assert result.code == 2
    newest_release = [label for label in labels() if releases.version(label)][-1]
    assert f"cannot import release 2.12.1 after {newest_release}" in result.err
    assert "oldest first" in result.err
    assert "Traceback" not in result.err
    assert imported.snapshot() == before


def test_an_import_keeps_its_snapshot_and_check_holds_it(empty_project: Project) -> None:
    """The snapshot is kept as its JSON came (a URL, a wheel or a file), gzipped the same way
    whatever the input's own compression; `gbsite check` names a missing, corrupt or stray one
    on one line each."""
    p = empty_project
    raw = json.dumps({"GB0001": [item()]}, indent=1).encode()
    plain = p.root / "registry.json"
    plain.write_bytes(raw)
    zipped = p.root / "torch-1.0.0.json.gz"
    zipped.write_bytes(gzip.compress(raw, 1))
    assert p.run("import", str(zipped)).code == 0
    kept = p.registry / "snapshots" / "1.0.0.json.gz"
    assert gzip.decompress(kept.read_bytes()) == raw
    other = make_project(p.root.parent / "other", registry=False)
    assert other.run("import", str(plain), "--label", "1.0.0").code == 0
    assert (other.registry / "snapshots" / "1.0.0.json.gz").read_bytes() == kept.read_bytes()
    assert p.run("sync").code == 0
    assert p.run("check").code == 0

    kept.write_bytes(registry.compress(raw + b" "))
    (p.registry / "snapshots" / "stray.json.gz").write_bytes(b"")
    result = p.run("check")
    assert result.code == 1
    assert result.out.splitlines() == [
        f"{kept}: corrupt: its JSON has sha256 "
        f"{hashlib.sha256(raw + b' ').hexdigest()[:12]}..., sources.yaml lists "
        f"{hashlib.sha256(raw).hexdigest()[:12]}... for 1.0.0; restore it from git",
        f"{kept.parent / 'stray.json.gz'}: not the snapshot of a source in sources.yaml; remove it",
    ]
    kept.write_bytes(kept.read_bytes()[:20])
    assert f"{kept}: corrupt gzip file" in p.run("check").out
    kept.unlink()
    assert f"{kept}: missing: the snapshot imported as 1.0.0" in p.run("check").out


def test_a_kept_snapshot_is_named_by_its_label(empty_project: Project, tmp_path: Path) -> None:
    """registry/snapshots/L.json.gz imports as L without --label (docs/maintaining.md:
    importing a registry)."""
    for name in ("2.15.0.json.gz", "main@2026-11-20.json.gz"):
        (tmp_path / name).write_bytes(
            registry.compress(json.dumps({"GB0001": [item(name)]}).encode())
        )
        result = empty_project.run("import", str(tmp_path / name))
        assert result.code == 0, result.err
    assert registry.load(empty_project.registry).labels == ["2.15.0", "main@2026-11-20"]


def test_an_identical_snapshot_is_new_only_as_a_release(empty_project: Project) -> None:
    """A release whose registry equals a snapshot of main is still recorded as a release (the
    examples are judged with it); the same JSON as another dated snapshot changes nothing."""
    p = empty_project
    path = p.write_upstream("r.json", {"GB0001": [item()]})
    assert p.run("import", str(path), "--label", "main@2026-11-20").code == 0
    before = p.snapshot()
    again = p.run("import", str(path), "--label", "main@2026-11-21")
    assert again.code == 0 and "identical to main@2026-11-20" in again.out
    assert p.snapshot() == before
    release = p.run("import", str(path), "--label", "2.16.0")
    assert release.code == 0 and release.out.startswith("imported 2.16.0: 1 ids (0 new")
    reg = registry.load(p.registry)
    assert reg.labels == ["main@2026-11-20", "2.16.0"]
    assert (p.registry / "snapshots" / "2.16.0.json.gz").exists()
    assert "identical to 2.16.0" in p.run("import", str(path), "--label", "2.16.0").out
    assert registry.load(p.registry).labels == ["main@2026-11-20", "2.16.0"]


def test_same_label_with_other_content_is_refused(empty_project: Project) -> None:
    first = empty_project.write_upstream("a.json", {"GB0001": [item()]})
    second = empty_project.write_upstream("b.json", {"GB0001": [item(context="other")]})
    assert empty_project.run("import", str(first), "--label", "1.0.0").code == 0
    before = empty_project.snapshot()
    result = empty_project.run("import", str(second), "--label", "1.0.0")
    assert result.code == 2
    assert "already imported as 1.0.0" in result.err
    assert empty_project.snapshot() == before


def test_dated_snapshots_must_be_in_order(empty_project: Project) -> None:
    a = empty_project.write_upstream("a.json", {"GB0001": [item()]})
    b = empty_project.write_upstream("b.json", {"GB0001": [item(context="x")]})
    assert empty_project.run("import", str(a), "--label", "main@2026-11-20").code == 0
    result = empty_project.run("import", str(b), "--label", "main@2026-11-19")
    assert result.code == 2
    assert "after main@2026-11-20" in result.err


def test_label_is_required_when_it_cannot_be_inferred(empty_project: Project) -> None:
    path = empty_project.write_upstream("registry.json", {"GB0001": [item()]})
    result = empty_project.run("import", str(path))
    assert result.code == 2
    assert "pass --label" in result.err
    assert not (empty_project.registry / "gb").exists()


def test_lifecycle_rules_on_a_small_history(empty_project: Project) -> None:
    p = empty_project
    v1 = p.write_upstream("v1.json", {"GB0001": [item("old")], "GB0002": [item("gone")]})
    v2 = p.write_upstream("v2.json", {"GB0001": [item("new"), item("old")], "GB0003": [item("x")]})
    v3 = p.write_upstream(
        "v3.json",
        {"GB0001": [item("newer"), item("new")], "GB0002": [item("back")], "GB0003": [item("x")]},
    )
    for path, label in ((v1, "1.0.0"), (v2, "1.1.0"), (v3, "1.2.0")):
        result = p.run("import", str(path), "--label", label)
        assert result.code == 0, result.err
    reg = registry.load(p.registry)
    gb1 = reg.entries["GB0001"]
    assert [(r.text.gb_type, r.current_since) for r in gb1.history] == [
        ("newer", "1.2.0"),
        ("new", "1.1.0"),
    ]
    # "old" left upstream's list without a trace; we keep it with the last release that had it.
    assert [(r.text.gb_type, r.current_since, r.last_seen) for r in gb1.replaced] == [
        ("old", "1.0.0", "1.1.0")
    ]
    gb2 = reg.entries["GB0002"]  # removed in 1.1.0, back with another text in 1.2.0
    assert gb2.removed is None
    assert gb2.current.gb_type == "back"
    assert [(r.text.gb_type, r.last_seen) for r in gb2.replaced] == [("gone", "1.0.0")]
    assert reg.entries["GB0003"].added == "1.1.0"
    exported = json.loads(p.run("export-json").out)
    assert [i["Gb_type"] for i in exported["GB0001"]] == ["newer", "new"]


def _wheel(path: Path, payload: bytes) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("torch/__init__.py", "")
        zf.writestr(WHEEL_MEMBER, payload)
    return path


def test_import_from_wheel_takes_label_from_file_name(
    empty_project: Project, tmp_path: Path
) -> None:
    payload = gzip.decompress(snapshot("2.8.0").read_bytes())
    wheel = _wheel(tmp_path / "torch-2.8.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl", payload)
    result = empty_project.run("import", str(wheel))
    assert result.code == 0, result.err
    assert result.out.startswith("imported 2.8.0: 219 ids")
    reg = registry.load(empty_project.registry)
    assert reg.labels == ["2.8.0"]


def test_wheel_without_registry_is_a_clear_error(empty_project: Project, tmp_path: Path) -> None:
    wheel = tmp_path / "torch-2.8.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("torch/__init__.py", "")
    result = empty_project.run("import", str(wheel))
    assert result.code == 2
    assert "has no torch/_dynamo/graph_break_registry.json" in result.err


@pytest.fixture
def http_root(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    folder = tmp_path / "www"
    folder.mkdir()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)  # type: ignore[arg-type]

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", folder
    server.shutdown()
    server.server_close()


def test_import_from_url(empty_project: Project, http_root: tuple[str, Path]) -> None:
    base, folder = http_root
    (folder / "graph_break_registry.json").write_bytes(
        gzip.decompress(snapshot("2.9.0").read_bytes())
    )
    result = empty_project.run(
        "import", f"{base}/graph_break_registry.json", "--label", "main@2026-11-20"
    )
    assert result.code == 0, result.err
    assert registry.load(empty_project.registry).labels == ["main@2026-11-20"]
    missing = empty_project.run("import", f"{base}/nope.json", "--label", "x")
    assert missing.code == 2
    assert "download failed: HTTP 404" in missing.err


def test_export_to_file_leaves_out_removed_ids(history: Project) -> None:
    out = history.root / "out.json"
    assert history.run("export-json", "-o", str(out)).code == 0
    data = json.loads(out.read_text())
    assert "GB0060" not in data  # removed in 2.14.0
    assert len(data) == 592


@pytest.mark.repo_data
@pytest.mark.slow  # imports and exports a whole registry
def test_export_uses_upstream_formatting(project: Project) -> None:
    # PyTorch writes the file with indent=2; our output keeps that style, so diffs against an
    # upstream file show only real changes.
    text = project.run("export-json").out
    assert text.startswith('{\n  "GB0000": [\n    {\n      "Gb_type": ')

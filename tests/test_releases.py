"""Releases (releases.py) and `gbsite release add`: the order of labels, which imported release
an example release is judged with, a release listed but not imported, and adding one in one
command, all or nothing."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from conftest import Project, item, line_of, snapshot_json
from gbsite import config, releases
from gbsite.registry import store as registry

# ---- order and mapping -------------------------------------------------------------------------


def test_labels_sort_by_version_then_date() -> None:
    labels = [
        "main@2026-12-01",
        "2.15.0",
        "2.14.0",
        "2.16.0rc1",
        "main@2026-11-20",
        "2.16.0",
        "2.9.0",
        "2.16.0b2",
        "2.16.0a1",
    ]
    assert sorted(labels, key=releases.order) == [
        "2.9.0",
        "2.14.0",
        "2.15.0",
        "2.16.0a1",
        "2.16.0b2",
        "2.16.0rc1",
        "2.16.0",
        "main@2026-11-20",
        "main@2026-12-01",
    ]
    assert releases.version("2.15.0+cpu") == releases.version("2.15.0")
    assert releases.version("2.16") == releases.version("2.16.0")
    assert releases.version("main@2026-11-20") is None
    assert releases.date("2.15.0") is None
    assert releases.order("nightly") > releases.order("main@2999-12-31")


@pytest.mark.parametrize(
    ("release", "expected"),
    [
        ("2.15.0", "2.15.0"),
        ("2.14.1", "2.14.0"),  # a patch release keeps its minor release's registry
        ("2.15.2", "2.15.1"),  # the newest of the same minor release that is not newer
        ("2.16.0", "2.16.0rc1"),
        ("2.13.0", None),  # only 2.13.1 is imported: newer
        ("2.17.0", None),  # not imported: main@ snapshots stand for no release
        ("2.12.0", None),
    ],
)
def test_the_registry_label_of_an_example_release(release: str, expected: str | None) -> None:
    imported = ["2.13.1", "2.14.0", "2.15.0", "2.15.1", "main@2026-11-20", "2.16.0rc1"]
    assert releases.registry_label(release, imported) == expected


# ---- the list in gbsite.toml's text --------------------------------------------------------------

LAYOUTS = {
    "one line": (
        '[examples]\nreleases = ["2.13.0", "2.15.0"]  # newest last\n',
        '[examples]\nreleases = ["2.13.0", "2.15.0", "2.16.0"]  # newest last\n',
    ),
    "a release a line": (
        "[examples]\n# comment\nreleases = [\n    '2.13.0',  # home\n    '2.15.0'\n]\n",
        "[examples]\n# comment\nreleases = [\n    '2.13.0',  # home\n    '2.15.0',\n"
        "    '2.16.0'\n]\n",
    ),
    "trailing comma": (
        '[examples]\nreleases = [\n  "2.15.0",\n]\n[paths]\ndocs = "docs/gb"\n',
        '[examples]\nreleases = [\n  "2.15.0",\n  "2.16.0",\n]\n[paths]\ndocs = "docs/gb"\n',
    ),
    "no list": (
        '[site]\ntitle = "x"\n',
        '[site]\ntitle = "x"\n\n[examples]\nreleases = ["2.13.0", "2.14.1", "2.15.0", "2.16.0"]\n',
    ),
    "a table without the list": (
        "[examples]\n# to come\n",
        '[examples]\nreleases = ["2.13.0", "2.14.1", "2.15.0", "2.16.0"]\n# to come\n',
    ),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_release_is_added_in_the_lists_own_layout(layout: str, tmp_path: Path) -> None:
    text, expected = LAYOUTS[layout]
    (tmp_path / "gbsite.toml").write_text(text)
    current = config.load(tmp_path).example_releases
    edited = releases.with_release(text, "2.16.0", current)
    assert edited == expected
    assert config.load(tmp_path, text=edited).example_releases == (*current, "2.16.0")


def test_the_line_of_a_release_skips_comments_and_other_tables() -> None:
    text = (
        '[site]\nreleases = "not this one"\n[examples]\n# "2.16.0" next\n'
        'releases = [\n  "2.13.0", # "2.15.0" soon\n  "2.15.0",\n]\n'
    )
    assert releases.line_of(text, "2.13.0") == 6
    assert releases.line_of(text, "2.15.0") == 7
    assert releases.line_of(text, "2.16.0") is None


# ---- a release listed but not imported -----------------------------------------------------------


def list_release(project: Project, release: str) -> int:
    """Add `release` to the project's [examples] releases by hand; the line it is on."""
    path = project.root / "gbsite.toml"
    text = path.read_text()
    path.write_text(
        releases.with_release(text, release, config.load(project.root).example_releases)
    )
    return line_of(path, f'"{release}"')


def test_a_release_listed_but_not_imported_is_an_error_with_its_line(history: Project) -> None:
    line = list_release(history, "2.16.0")
    message = (
        f"gbsite.toml:{line}: release 2.16.0 of [examples] is not imported; "
        "run gbsite release add 2.16.0"
    )
    check = history.run("check")
    assert check.code == 1
    assert check.out.splitlines() == [f"{history.root / message}"]
    for command in (("build",), ("coverage",)):
        result = history.run(*command)
        assert result.code == 2, command
        assert result.err.splitlines() == [f"{history.root / message}"], command
    assert not history.site.exists()


def test_releases_not_listed_in_the_file_are_not_required(empty_project: Project) -> None:
    """A project that lists no releases of the examples (gbsite's defaults apply) need not
    import them to build."""
    path = empty_project.write_upstream("torch-1.0.0.json", {"GB0001": [item()]})
    assert empty_project.run("import", str(path)).code == 0
    assert empty_project.run("sync").code == 0
    assert empty_project.run("check").code == 0
    assert empty_project.run("build").code == 0


# ---- gbsite release add ------------------------------------------------------------------------


def next_release(project: Project, name: str = "torch-2.16.0.json") -> Path:
    """A registry for 2.16.0: that of 2.15.0 with one id more and one text changed."""
    data = snapshot_json("2.15.0")
    data["GB0001"][0]["Explanation"] += " Reworded in 2.16.0."
    data["GB0378"] = [item("New in 2.16.0", hints=["A hint."])]
    return project.write_upstream(name, data)


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow  # builds the whole site
def test_release_add_imports_lists_and_syncs(history: Project) -> None:
    toml = history.root / "gbsite.toml"
    before = toml.read_text()
    result = history.run("release", "add", "2.16.0", str(next_release(history)))
    assert result.code == 0, result.err
    assert result.out.splitlines()[0] == (
        "release add 2.16.0: registry: 593 ids (1 new, 1 changed, 0 removed)"
    )
    # The list grew in place: every other byte of the file is as it was.
    assert toml.read_text() == before.replace('"2.15.0"]', '"2.15.0", "2.16.0"]')
    assert config.load(history.root).example_releases[-1] == "2.16.0"
    reg = registry.load(history.registry)
    assert reg.labels[-1] == "2.16.0" and reg.entries["GB0378"].added == "2.16.0"
    assert (history.registry / "snapshots" / "2.16.0.json.gz").is_file()
    assert "New in 2.16.0" in (history.docs / "gb0378.md").read_text()
    assert history.run("check").code == 0
    coverage = history.run("coverage", "--release", "2.16.0")
    assert coverage.code == 0 and "coverage of the 593 ids of torch 2.16.0" in coverage.out
    assert history.run("build").code == 0
    # Once added and imported, it is refused, with its line.
    again = history.run("release", "add", "2.16.0", str(next_release(history)))
    assert again.code == 2
    assert again.err == (
        f"{toml}:{line_of(toml, '2.16.0')}: 2.16.0 is a release of the examples already, "
        "and imported\n"
    )


@pytest.mark.slow  # `release add`: import, list and sync a whole project
@pytest.mark.parametrize(
    ("release", "message"),
    [
        ("2.14.1", "gbsite.toml:"),  # listed and imported (as 2.14.0)
        ("2.14.2", "gbsite: 2.14.2 is older than 2.15.0, the newest release of the examples: "),
        ("2.16", "gbsite: '2.16' is not a torch release such as 2.16.0"),
    ],
)
def test_release_add_refuses_and_changes_nothing(
    history: Project, release: str, message: str
) -> None:
    source = next_release(history)
    before = history.snapshot()
    result = history.run("release", "add", release, str(source))
    assert result.code == 2
    assert len(result.err.splitlines()) == 1 and message in result.err, result.err
    assert history.snapshot() == before


def test_a_failed_import_leaves_gbsite_toml_untouched(history: Project) -> None:
    broken = history.root / "torch-2.16.0.json"
    broken.write_text('{"GB0001": [')
    wrong = next_release(history, "torch-2.17.0.json")
    before = history.snapshot()
    result = history.run("release", "add", "2.16.0", str(broken))
    assert result.code == 2 and "invalid JSON" in result.err
    result = history.run("release", "add", "2.16.0", str(wrong))
    assert result.code == 2 and result.err.endswith("this is torch 2.17.0, not 2.16.0\n")
    assert history.snapshot() == before


@pytest.mark.slow  # `release add`: import, list and sync a whole project
def test_a_failed_write_of_gbsite_toml_leaves_the_registry_as_it_was(
    history: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gbsite.fs import files

    source = next_release(history)
    before = tree(history.registry), (history.root / "gbsite.toml").read_bytes()
    write = files.write_atomic

    def full_disk(path: Path, data: bytes) -> None:
        if path.name == "gbsite.toml":
            raise OSError(28, "No space left on device", str(path))
        write(path, data)

    monkeypatch.setattr(files, "write_atomic", full_disk)
    result = history.run("release", "add", "2.16.0", str(source))
    assert result.code == 2
    assert result.err.endswith("gbsite.toml: No space left on device\n")
    assert len(result.err.splitlines()) == 1
    assert (tree(history.registry), (history.root / "gbsite.toml").read_bytes()) == before
    assert not [p for p in history.root.iterdir() if p.name.startswith(".registry.")]


def test_a_failed_swap_puts_gbsite_toml_back(
    history: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gbsite.toml is written just before the new registry/ is swapped in; if the swap fails,
    the old text is written back."""
    from gbsite.fs import transaction

    source = next_release(history)
    before = tree(history.registry), (history.root / "gbsite.toml").read_bytes()

    def refused(ready: Path, folder: Path, old: Path) -> None:
        raise OSError(5, "Input/output error", str(folder))

    monkeypatch.setattr(transaction, "swap_in", refused)
    result = history.run("release", "add", "2.16.0", str(source))
    assert result.code == 2 and result.err.endswith("registry: Input/output error\n")
    assert (tree(history.registry), (history.root / "gbsite.toml").read_bytes()) == before


@pytest.mark.slow  # `release add`: import, list and sync a whole project
def test_release_add_finishes_a_release_listed_by_hand(history: Project) -> None:
    """The error for a listed release that is not imported names this command; it imports the
    release and leaves gbsite.toml as it is."""
    list_release(history, "2.16.0")
    toml = (history.root / "gbsite.toml").read_bytes()
    result = history.run("release", "add", "2.16.0", str(next_release(history)))
    assert result.code == 0, result.err
    assert "gbsite.toml lists 2.16.0 already" in result.out
    assert (history.root / "gbsite.toml").read_bytes() == toml
    assert history.run("check").code == 0


@pytest.mark.slow  # whole-project commands, seconds in all
def test_a_release_whose_registry_equals_a_snapshot_of_main_is_still_added(
    history: Project,
) -> None:
    data = snapshot_json("2.15.0")
    data["GB0378"] = [item("On main first")]
    main = history.write_upstream("main.json", data)
    assert history.run("import", str(main), "--label", "main@2026-12-01").code == 0
    assert history.run("sync").code == 0
    result = history.run("release", "add", "2.16.0", str(main))
    assert result.code == 0, result.err
    assert registry.load(history.registry).labels[-2:] == ["main@2026-12-01", "2.16.0"]
    assert history.run("check").code == 0


def fake_wheel(folder: Path, release: str) -> Path:
    """A wheel pip takes for torch `release` on macOS, holding a registry."""
    folder.mkdir(parents=True, exist_ok=True)
    name = f"torch-{release}-cp312-cp312-macosx_14_0_arm64.whl"
    info = f"torch-{release}.dist-info"
    data = snapshot_json("2.15.0")
    data["GB0378"] = [item(f"New in {release}")]
    with zipfile.ZipFile(folder / name, "w") as wheel:
        wheel.writestr("torch/__init__.py", "")
        wheel.writestr("torch/_dynamo/graph_break_registry.json", json.dumps(data))
        wheel.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: torch\nVersion: {release}\n"
        )
        wheel.writestr(
            f"{info}/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n"
            "Tag: cp312-cp312-macosx_14_0_arm64\n",
        )
        wheel.writestr(f"{info}/RECORD", "")
    return folder / name


@pytest.mark.repo_data
@pytest.mark.slow
def test_without_a_source_pip_downloads_the_wheel(
    history: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wheel comes from pip (here from a local folder, with no index), whatever cap the
    pip configuration puts on torch; a release pip cannot find is one line, nothing changed."""
    fake_wheel(tmp_path / "wheels", "2.16.0")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "wheels"))
    monkeypatch.setenv("PIP_CONSTRAINT", str(tmp_path / "cap.txt"))
    (tmp_path / "cap.txt").write_text("torch<=2.14.1\n")
    before = history.snapshot()
    missing = history.run("release", "add", "2.17.0")
    assert missing.code == 2
    assert missing.err.startswith("gbsite: cannot download torch 2.17.0 with pip: ")
    assert len(missing.err.splitlines()) == 1
    assert history.snapshot() == before
    result = history.run("release", "add", "2.16.0")
    assert result.code == 0, result.err
    assert registry.load(history.registry).entries["GB0378"].current.gb_type == "New in 2.16.0"

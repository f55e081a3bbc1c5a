"""`gbsite sync` keeps every hand-written word; `gbsite check` tells a contributor what to fix."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import REPO, Project, committed
from gbsite.docs import files as docs

START = docs.START_MARKER
END = docs.END_MARKER


def doc(p: Project, gb_id: str) -> Path:
    return p.docs / f"{gb_id.lower()}.md"


def set_block(path: Path, block: str) -> None:
    path.write_bytes(docs.with_block(path.read_text(encoding="utf-8"), block).encode("utf-8"))


def block_of(path: Path) -> str:
    return docs.read(path).block


@pytest.fixture
def synced(history: Project) -> Project:
    """A synced project whose registry no later import changes (its ids' texts are in these
    tests): that of the HISTORY releases (conftest.py). Its docs/gb/ are what `gbsite sync`
    wrote when the session's history_template was made, once for every test (a sync here would
    find nothing to do, in seconds: test_second_sync_changes_nothing_and_keeps_mtimes)."""
    return history


@pytest.mark.repo_data
def test_committed_docs_are_in_sync_with_the_registry(project: Project) -> None:
    docs_files = sorted(p.name for p in project.docs.glob("gb*.md"))
    assert docs_files == [f"{gb_id.lower()}.md" for gb_id in committed().entries]
    result = project.run("check")
    assert result.code == 0, result.out + result.err
    assert "consistent" in result.out


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_sync_from_nothing_writes_every_id_including_removed(history: Project) -> None:
    for path in history.docs.glob("*.md"):
        path.unlink()
    result = history.run("sync")
    assert result.code == 0
    assert "593 written (593 new" in result.out
    assert "removed in PyTorch 2.14.0" in doc(history, "GB0060").read_text()


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_second_sync_changes_nothing_and_keeps_mtimes(synced: Project) -> None:
    stamps = {p: p.stat().st_mtime_ns for p in synced.docs.iterdir()}
    os.utime(doc(synced, "GB0025"), ns=(1, 1))  # an old mtime that a rewrite would change
    stamps[doc(synced, "GB0025")] = 1
    result = synced.run("sync")
    assert result.code == 0
    assert "0 written" in result.out
    assert {p: p.stat().st_mtime_ns for p in synced.docs.iterdir()} == stamps


@pytest.mark.slow  # `gbsite sync` over a whole project, each case
@pytest.mark.parametrize(
    "block",
    [
        "\nUnicode: ünïcødé, 中文, emoji 🧪, RTL עברית, zero-width\u200bjoiner\n",
        "\n```python\n# a heading-looking comment\nx = 1  # <!-- not a marker -->\n```\n",
        "\n<!-- a contributor's own HTML comment -->\n## Looks like a generated heading\n",
        "\r\nWindows line endings\r\nsecond line\r\n",
        "\n| a | b |\n|---|---|\n| 1<br>2 | `x` |\n",
        "no newline after START, none before END",
        "\n\n\n  indented with trailing spaces   \n\t\ttabs\n\n\n",
        "",
    ],
)
def test_block_is_kept_byte_for_byte(synced: Project, block: str) -> None:
    path = doc(synced, "GB0025")
    set_block(path, block)
    assert synced.run("check").code == 0  # editing only the block needs no sync
    assert synced.run("sync").code == 0
    assert block_of(path) == block
    assert path.read_bytes().count(block.encode()) >= 1


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_file_without_final_newline(synced: Project) -> None:
    path = doc(synced, "GB0025")
    set_block(path, "\nmy note\n")
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    assert synced.run("sync").code == 0
    assert block_of(path) == "\nmy note\n"
    assert path.read_bytes().endswith(END.encode() + b"\n")


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_registry_change_regenerates_the_generated_part_only(synced: Project) -> None:
    path = doc(synced, "GB0025")
    set_block(path, "\nmy worked example\n")
    entry = synced.registry / "gb" / "GB0025.yaml"
    entry.write_text(
        entry.read_text().replace(
            "Remove the `torch._dynamo.graph_break()` call.", "Remove the call, please."
        )
    )
    # sources.yaml totals still match, so the registry is valid; the doc is now stale.
    check = synced.run("check")
    assert check.code == 1
    assert "gb0025.md: out of date with the registry; run `gbsite sync`" in check.out
    assert synced.run("sync").code == 0
    text = path.read_text()
    assert "- Remove the call, please." in text
    assert block_of(path) == "\nmy worked example\n"


@pytest.mark.slow  # `gbsite sync` over a whole project, each case
@pytest.mark.parametrize(
    ("edit", "kind"),
    [
        (lambda t: t.replace("## Hints\n\n", "## Hints\n\n- My own extra hint.\n"), "added"),
        (lambda t: t.replace("User-inserted graph break.", "User inserted break."), "changed"),
        (lambda t: t.replace("- Remove the `torch._dynamo.graph_break()` call.\n", ""), "deleted"),
        (lambda t: t + "\nA note someone put after the END marker.\n", "added"),
    ],
)
def test_hand_edit_outside_block_stops_sync(synced: Project, edit: object, kind: str) -> None:
    path = doc(synced, "GB0025")
    path.write_text(edit(path.read_text()))  # type: ignore[operator]
    # Another file needs rewriting too: it must not be written either.
    other = doc(synced, "GB0001")
    other.write_text(other.read_text().replace("## Hints\n", "## Hints\n\n"))  # needs a rewrite
    other_before = other.read_bytes()
    before = synced.snapshot()
    result = synced.run("sync")
    assert result.code == 2
    assert "Traceback" not in result.err
    [line] = result.err.strip().splitlines()
    assert line.startswith(f"{path}:")
    assert f"text {kind}" in line or (kind == "deleted" and "generated text was deleted" in line)
    assert "markers (lines " in line
    assert synced.snapshot() == before
    assert other.read_bytes() == other_before
    check = synced.run("check")
    assert check.code == 1
    assert line.split(": ", 1)[1] in check.out


def test_hand_edit_names_the_first_changed_line(synced: Project) -> None:
    path = doc(synced, "GB0025")
    lines = path.read_text().split("\n")
    n = lines.index("## Explanation")
    lines.insert(n + 1, "Contributor text in the wrong place.")
    path.write_text("\n".join(lines))
    result = synced.run("sync")
    assert f"gb0025.md:{n + 2}: text added outside" in result.err
    assert "'Contributor text in the wrong place.'" in result.err


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_whitespace_changes_by_an_editor_are_not_hand_edits(synced: Project) -> None:
    path = doc(synced, "GB0025")
    text = path.read_text()
    path.write_bytes(text.replace("\n## ", "\n\n\n## ").replace("\n", "\r\n").encode())
    assert synced.run("sync").code == 0
    assert path.read_text() == text


@pytest.mark.slow  # `gbsite sync` over a whole project, each case
@pytest.mark.parametrize(
    ("damage", "message", "line"),
    [
        (lambda t: t.replace(END, ""), "START marker without an END marker", "START"),
        (lambda t: t.replace(START, ""), "END marker without a START marker", "END"),
        (
            lambda t: t.replace(END, END + "\n" + START + "\n" + END),
            "second ADDITIONAL INFORMATION START marker",
            "second START",
        ),
        (
            lambda t: t.replace(START, "@@").replace(END, START).replace("@@", END),
            "END marker comes before the START marker",
            "END",
        ),
    ],
)
def test_marker_errors(synced: Project, damage: object, message: str, line: str) -> None:
    path = doc(synced, "GB0025")
    path.write_text(damage(path.read_text()))  # type: ignore[operator]
    text = path.read_text().split("\n")
    if line == "second START":
        expected = [i for i, t in enumerate(text) if START in t][1] + 1
    else:
        marker = START if line == "START" else END
        expected = next(i for i, t in enumerate(text) if marker in t) + 1
    before = synced.snapshot()
    result = synced.run("sync")
    assert result.code == 2
    assert f"gb0025.md:{expected}: " in result.err
    assert message in result.err
    assert synced.snapshot() == before
    assert synced.run("check").code == 1


@pytest.mark.slow  # `gbsite sync` over a whole project, each case
@pytest.mark.parametrize(
    ("data", "message", "line"),
    [
        (b"# GB0025\n\n\xff\xfe bad bytes\n", "invalid UTF-8", 3),
        (b"\xef\xbb\xbf# GB0025\n", "byte order mark", 1),
    ],
)
def test_undecodable_file(synced: Project, data: bytes, message: str, line: int) -> None:
    path = doc(synced, "GB0025")
    path.write_bytes(data)
    before = synced.snapshot()
    result = synced.run("sync")
    assert result.code == 2
    assert f"gb0025.md:{line}: " in result.err
    assert message in result.err
    assert synced.snapshot() == before


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_orphan_doc_is_reported_and_left_alone(synced: Project) -> None:
    orphan = synced.docs / "gb9999.md"
    orphan.write_text("# notes for an id that does not exist yet\n")
    odd = synced.docs / "GB0025.md"
    odd.write_text("upper case name\n")
    result = synced.run("sync")
    assert result.code == 0
    assert "gb9999.md: GB9999 is not in the registry, so this file is left alone" in result.err
    assert "GB0025.md: not a docs file (names are like gb0025.md); rename it to gb0025.md" in (
        result.err
    )
    assert orphan.read_text() == "# notes for an id that does not exist yet\n"
    check = synced.run("check")
    assert check.code == 1
    assert "gb9999.md: GB9999 is not in the registry" in check.out


def test_unknown_id_mentioned_in_block(synced: Project) -> None:
    set_block(doc(synced, "GB0025"), "\nSee also GB0029 and\nGB9998 for details.\n")
    check = synced.run("check")
    assert check.code == 1
    text = doc(synced, "GB0025").read_text().split("\n")
    line = next(i for i, t in enumerate(text) if "GB9998" in t) + 1
    assert f"gb0025.md:{line}: GB9998 is not a graph break in the registry" in check.out
    assert "GB0029" not in check.out


def test_check_json(synced: Project) -> None:
    set_block(doc(synced, "GB0025"), "\nGB9998\n")
    result = synced.run("check", "--format", "json")
    assert result.code == 1
    report = json.loads(result.out)
    assert report["ok"] is False
    assert report["entries"] == 593
    [problem] = report["problems"]
    assert problem["path"].endswith("docs/gb/gb0025.md")
    assert isinstance(problem["line"], int)
    assert "GB9998" in problem["message"]


def test_check_cannot_run_on_a_broken_registry(synced: Project) -> None:
    entry = synced.registry / "gb" / "GB0025.yaml"
    entry.write_text(entry.read_text().replace("added: 2.8.0", "added: [2.8.0"))
    result = synced.run("check")
    assert result.code == 2
    assert "GB0025.yaml" in result.err


# ---- files not in the format sync writes ---------------------------------------------------


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_file_without_markers_is_refused_at_its_first_line(synced: Project) -> None:
    # The previous site's oldest form: the notes under a heading, no markers around them.
    path = doc(synced, "GB0029")
    path.write_text(
        "# GB0029\n\n## Additional Information\n\nMy note.\n\n[Back to Registry](../index.html)\n"
    )
    before = synced.snapshot()
    result = synced.run("sync")
    assert result.code == 2
    assert "Traceback" not in result.err
    [line] = result.err.strip().splitlines()
    assert line.startswith(f"{path}:1: no ADDITIONAL INFORMATION markers")
    assert f"put the lines {START} and {END} around your text" in line
    assert synced.snapshot() == before
    check = synced.run("check")
    assert check.code == 1
    assert "gb0029.md:1: no ADDITIONAL INFORMATION markers" in check.out


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_front_matter_of_the_previous_site_is_text_outside_the_block(synced: Project) -> None:
    path = doc(synced, "GB0029")
    text = path.read_text().split("\n", 1)[1]  # without gbsite's header line
    path.write_text("---\nlayout: default\n---\n" + text)
    before = synced.snapshot()
    result = synced.run("sync")
    assert result.code == 2
    assert f"{path}:1: text added outside the ADDITIONAL INFORMATION block: '---'" in result.err
    assert synced.snapshot() == before


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_a_lost_header_line_is_written_again(synced: Project) -> None:
    path = doc(synced, "GB0029")
    set_block(path, "\nKept.\n")
    text = path.read_text()
    path.write_text(text.split("\n", 1)[1])
    assert "gb0029.md: out of date with the registry" in synced.run("check").out
    result = synced.run("sync")
    assert result.code == 0, result.err
    assert "1 written" in result.out
    assert path.read_text() == text


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_marker_with_other_text_after_start(synced: Project) -> None:
    path = doc(synced, "GB0029")
    set_block(path, "\nKept.\n")
    path.write_text(path.read_text().replace(START, "<!-- additional information start -->"))
    assert synced.run("sync").code == 0
    assert block_of(path) == "\nKept.\n"
    assert START in path.read_text()


@pytest.mark.slow  # `gbsite sync` over a whole project
def test_check_github_annotations(synced: Project) -> None:
    path = doc(synced, "GB0025")
    lines = path.read_text().split("\n")
    n = lines.index("## Hints")
    lines.insert(n + 1, "My hint, 100% outside the block")
    path.write_text("\n".join(lines))
    result = synced.run("check", "--format", "github")
    assert result.code == 1
    [annotation] = [ln for ln in result.out.splitlines() if ln.startswith("::error")]
    assert annotation.startswith(f"::error file={path},line={n + 2}::text added outside")
    assert "100%25 outside" in annotation  # workflow-command escaping


@pytest.mark.repo_data
def test_a_file_that_holds_what_sync_writes_is_not_parsed_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each committed docs file rendered anew from the file as it is: the same text as from its
    block alone, and no parse of the rendering (the file's lines outside the block are the
    rendering's). A file whose generated part differs is parsed, and written back whole."""
    from gbsite import config, templating
    from gbsite.docs import sync
    from gbsite.registry import store
    from gbsite.registry.views import entry_views

    cfg = config.load(REPO)
    env = templating.environment(cfg.templates_dir, html=False)
    views = {view.id: view for view in entry_views(store.load(cfg.registry_dir))}
    found, _ = docs.scan(cfg.docs_dir)
    files = [docs.read(path) for gb_id, path in found.items() if gb_id in views]
    expected = {f.path: sync.render_doc(env, cfg, views[id_of(f)], f.block) for f in files}
    parse, parsed = docs.parse, []

    def counted(path: Path, text: str, *, outside: bool = True) -> docs.Doc:
        parsed.append(text)
        return parse(path, text, outside=outside)

    monkeypatch.setattr(docs, "parse", counted)
    for f in files:
        assert sync.render_doc(env, cfg, views[id_of(f)], f.block, f) == expected[f.path] == f.text
    assert files and parsed == []
    edited = files[0].text.replace(START, f"An edited line.\n\n{START}", 1)
    current = parse(files[0].path, edited)
    assert (
        sync.render_doc(env, cfg, views[id_of(current)], current.block, current)
        == (expected[current.path])
    )
    assert len(parsed) == 1


def id_of(f: docs.Doc) -> str:
    return f.path.stem.upper()

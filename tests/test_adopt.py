"""`gbsite adopt DIR`: the notes of the previous (Jekyll) site's files come in byte for byte;
text a person wrote elsewhere in them stops the run; conflicts keep ours unless --replace."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import DATA, REPO, Project, line_of, make_project, page
from gbsite.docs import adopt
from gbsite.docs import files as docs
from gbsite.errors import GbsiteError
from gbsite.registry import store
from gbsite.registry.model import Entry

pytestmark = pytest.mark.repo_data

JEKYLL = DATA / "jekyll"
START = docs.START_MARKER
END = docs.END_MARKER
ADOPTABLE = ["gb0029.md", "gb0030.md", "gb0033.md", "gb0034.md"]  # markers, none, CRLF, Unicode


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    return make_project(tmp_path / "p", docs=True)


def old_site(tmp_path: Path, *names: str) -> Path:
    """A folder with these files of tests/data/jekyll/ (site/ unless named with a folder)."""
    folder = tmp_path / "old"
    folder.mkdir(exist_ok=True)
    for name in names:
        source = JEKYLL / (name if "/" in name else f"site/{name}")
        shutil.copy(source, folder / source.name)
    return folder


def empty(proj: Project, *gb_ids: str) -> None:
    for gb_id in gb_ids:
        page(proj, gb_id, "")


def their_block(path: Path) -> str:
    """The notes of a file of the previous site, found here independently of adopt.py."""
    text = path.read_bytes().decode("utf-8")
    if START in text:
        return text.split(START)[1].split(END)[0]
    return text.split("## Additional Information\n", 1)[1].split("[Back to Registry]")[0]


def ours(proj: Project, gb_id: str) -> docs.Doc:
    return docs.read(proj.docs / f"{gb_id.lower()}.md")


def mtimes(proj: Project) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in proj.docs.iterdir()}


@pytest.mark.slow  # `gbsite adopt` over every docs file, each case
def test_notes_are_adopted_byte_for_byte_where_ours_are_empty(
    proj: Project, tmp_path: Path
) -> None:
    ids = [name[:6].upper() for name in ADOPTABLE]
    empty(proj, *ids)
    before = {gb_id: (proj.docs / f"{gb_id.lower()}.md").read_text() for gb_id in ids}
    old = old_site(tmp_path, *ADOPTABLE)
    result = proj.run("adopt", str(old))
    assert result.code == 0, result.err
    assert result.out == f"adopt: adopted {len(ids)}, unchanged 0, conflicts 0\n"
    assert result.err == ""
    for gb_id, name in zip(ids, ADOPTABLE, strict=True):
        block = their_block(old / name)
        assert block.strip()
        doc = ours(proj, gb_id)
        assert doc.block == block, gb_id  # CRLF and non-ASCII included
        # Only the block changed: the generated part is ours, as it was.
        assert doc.text == docs.with_block(before[gb_id], block)
    assert "\r\n" in ours(proj, "GB0033").block
    assert "日本語の説明" in ours(proj, "GB0034").block
    # The old form's notes run from its heading to the links at the end.
    assert ours(proj, "GB0030").block.startswith("\nRaised on purpose by")
    assert "Back to Registry" not in ours(proj, "GB0030").block
    # What adopt wrote is a valid docs file of gbsite's own: sync keeps it, check is clean.
    assert proj.run("sync").out.startswith("sync: 0 written")
    check = proj.run("check")
    assert check.code == 0, check.out


def test_a_second_run_changes_nothing(proj: Project, tmp_path: Path) -> None:
    empty(proj, "GB0029", "GB0030")
    old = old_site(tmp_path, "gb0029.md", "gb0030.md")
    assert proj.run("adopt", str(old)).code == 0
    files, times = proj.snapshot(), mtimes(proj)
    again = proj.run("adopt", str(old))
    assert again.code == 0
    assert again.out == "adopt: adopted 0, unchanged 2, conflicts 0\n"
    assert proj.snapshot() == files
    assert mtimes(proj) == times


@pytest.mark.slow  # `gbsite adopt` over every docs file, each case
def test_differing_notes_are_a_conflict_and_the_rest_is_adopted(
    proj: Project, tmp_path: Path
) -> None:
    empty(proj, "GB0029")
    mine = page(proj, "GB0031", "\nOur own note, which differs.\n")
    kept = mine.read_bytes()
    old = old_site(tmp_path, "gb0029.md", "gb0031.md")
    result = proj.run("adopt", str(old))
    assert result.code == 1
    first, last = ours(proj, "GB0031").block_lines
    assert result.err == (
        f"{old / 'gb0031.md'}:{line_of(old / 'gb0031.md', START)}: these notes differ from "
        f"those of {mine} (lines {first}-{last}), which are kept; merge them there by hand, or "
        "run `gbsite adopt --replace` to take these instead\n"
    )
    assert result.out == "adopt: adopted 1, unchanged 0, conflicts 1\n"
    assert mine.read_bytes() == kept
    assert ours(proj, "GB0029").block == their_block(old / "gb0029.md")
    # Again: the conflict is still reported, nothing is rewritten.
    files = proj.snapshot()
    again = proj.run("adopt", str(old))
    assert (again.code, again.out) == (1, "adopt: adopted 0, unchanged 1, conflicts 1\n")
    assert proj.snapshot() == files


def test_replace_takes_their_notes(proj: Project, tmp_path: Path) -> None:
    page(proj, "GB0031", "\nOur own note, which differs.\n")
    page(proj, "GB0029", "\nOur note on hooks.\n")
    old = old_site(tmp_path, "gb0029.md", "gb0031.md")
    result = proj.run("adopt", str(old), "--replace")
    assert result.code == 0, result.err
    assert result.out == "adopt: adopted 2 (2 replacing ours), unchanged 0, conflicts 0\n"
    for gb_id in ("GB0029", "GB0031"):
        assert ours(proj, gb_id).block == their_block(old / f"{gb_id.lower()}.md")
    assert proj.run("adopt", str(old), "--replace").out.startswith("adopt: adopted 0,")


def test_the_same_notes_apart_from_spacing_are_unchanged(proj: Project, tmp_path: Path) -> None:
    old = old_site(tmp_path, "gb0031.md", "gb0033.md")
    # Ours: their notes with other blank lines around them, LF where theirs has CRLF.
    for gb_id in ("GB0031", "GB0033"):
        block = their_block(old / f"{gb_id.lower()}.md").replace("\r\n", "\n")
        page(proj, gb_id, "\n\n" + block.strip("\n") + "   \n\n")
    files = proj.snapshot()
    result = proj.run("adopt", str(old))
    assert (result.code, result.out) == (0, "adopt: adopted 0, unchanged 2, conflicts 0\n")
    assert proj.snapshot() == files


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("hand-text/gb0032.md", "A workaround written here"),  # below the registry's text
        ("hand-text/gb0035.md", "A line written after the END marker"),
    ],
)
def test_text_written_outside_the_notes_stops_everything(
    proj: Project, tmp_path: Path, name: str, needle: str
) -> None:
    empty(proj, "GB0029", "GB0032", "GB0035")
    old = old_site(tmp_path, "gb0029.md", name)
    files = proj.snapshot()
    result = proj.run("adopt", str(old))
    assert result.code == 2
    bad = old / Path(name).name
    [line] = result.err.splitlines()
    assert line.startswith(
        f"{bad}:{line_of(bad, needle)}: text outside the notes that the previous site did not "
        f"generate: '{needle}"
    )
    first, last = line_of(bad, START), line_of(bad, END)
    assert f"move it between the ADDITIONAL INFORMATION markers (lines {first}-{last})" in line
    assert result.out == ""
    assert proj.snapshot() == files  # gb0029.md's notes were not adopted either


@pytest.fixture(scope="module")
def gb0029() -> Entry:
    return store.load(REPO / "registry").entries["GB0029"]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_bytes().decode("utf-8")
    assert old in text
    path.write_bytes(text.replace(old, new, 1).encode("utf-8"))


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        # Generated shapes, whatever the registry text under the headings says.
        (("# GB0029\n", "# GB0029\n\n\n"), None),
        (("layout: default\n", "layout: default\ntitle: GB0029\n"), None),
        (("- Consider", "- A hint of another release.\n- Consider"), None),
        (("Dynamo must be", "In an older release, Dynamo had to"), None),
        # A hint our registry lacks, after the ones it has, is a hint of a newer release.
        (("register_hook().\n", "register_hook().\n- Another hint.\n"), None),
        (("register_hook().\n", "register_hook().\n- Another hint.\n\nMine.\n"), "Mine."),
        # Hand-written text.
        (("# GB0029\n", "# GB0029\n\nMy summary.\n"), "My summary."),
        (("---\n# GB0029", "---\nIntro.\n# GB0029"), "Intro."),
        (("hooks.\n", "hooks.\n\nBut see my note.\n"), "But see my note."),
        (("## Hints\n", "### My workaround\n\n## Hints\n"), "### My workaround"),
        # A heading under text our registry does not have: no registry text has one.
        (("Dynamo must be", "Older wording.\n\n### Workaround\n\nDo this. Dynamo must be"), "###"),
        (("## Context\n", "## Hints\n\n## Context\n"), "## Context"),  # out of order
        (("\n\n## Additional Information\n", "\n\n## Additional Information\n\nNote.\n"), "Note."),
        (
            ("[Back to Registry](../index.html)\n", "[Back to Registry](../index.html)\nBye\n"),
            "Bye",
        ),
        (("[Back to Registry](../index.html)", "[Back to the list](../index.html)"), "[Back to"),
    ],
)
def test_what_counts_as_the_previous_sites_generated_text(
    tmp_path: Path, gb0029: Entry, change: tuple[str, str], needle: str | None
) -> None:
    path = old_site(tmp_path, "gb0029.md") / "gb0029.md"
    edit(path, *change)
    entry = gb0029
    if needle is None:
        assert adopt.read(path, entry).block == their_block(path)
        return
    with pytest.raises(GbsiteError) as caught:
        adopt.read(path, entry)
    [problem] = caught.value.problems
    assert problem.line == line_of(path, needle)
    assert problem.message.startswith(
        f"text outside the notes that the previous site did not generate: '{needle}"
    )


@pytest.mark.slow  # `gbsite adopt` over every docs file, each case
@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ((END, f"{START}\n{END}"), "second ADDITIONAL INFORMATION START marker"),
        ((END, ""), "START marker without an END marker"),
        ((START, END), "second ADDITIONAL INFORMATION END marker"),
        ((f"{START}\n", ""), "END marker without a START marker"),
    ],
)
def test_marker_errors_are_those_of_docs_files(
    proj: Project, tmp_path: Path, damage: tuple[str, str], message: str
) -> None:
    empty(proj, "GB0029", "GB0030")
    old = old_site(tmp_path, "gb0029.md", "gb0030.md")
    edit(old / "gb0029.md", *damage)
    files = proj.snapshot()
    result = proj.run("adopt", str(old))
    assert result.code == 2
    [line] = result.err.splitlines()
    assert line.startswith(f"{old / 'gb0029.md'}:")
    assert message in line
    assert proj.snapshot() == files


def test_inverted_markers(proj: Project, tmp_path: Path) -> None:
    old = old_site(tmp_path, "gb0029.md")
    path = old / "gb0029.md"
    text = path.read_text()
    path.write_text(text.replace(START, "@@").replace(END, START).replace("@@", END))
    result = proj.run("adopt", str(old))
    assert result.code == 2
    assert f"{path}:{line_of(path, END)}: ADDITIONAL INFORMATION END marker comes before" in (
        result.err
    )


@pytest.mark.slow  # `gbsite adopt` over every docs file, each case
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xef\xbb\xbf", "byte order mark"),
        (b"\xff", "invalid UTF-8 (byte 0xff)"),
    ],
)
def test_undecodable_files(proj: Project, tmp_path: Path, data: bytes, message: str) -> None:
    empty(proj, "GB0029")
    old = old_site(tmp_path, "gb0029.md", "gb0034.md")
    path = old / "gb0034.md"
    path.write_bytes(data + path.read_bytes())
    files = proj.snapshot()
    result = proj.run("adopt", str(old))
    assert result.code == 2
    assert result.err.startswith(f"{path}:1: ") and message in result.err
    assert "Traceback" not in result.err
    assert proj.snapshot() == files


def test_an_id_the_registry_lacks_is_left_alone(proj: Project, tmp_path: Path) -> None:
    assert "GB9998" not in store.load(proj.registry).entries
    empty(proj, "GB0029")
    old = old_site(tmp_path, "gb9998.md", "gb0029.md")
    result = proj.run("adopt", str(old))
    assert result.code == 0
    assert result.err == (
        f"warning: {old / 'gb9998.md'}: GB9998 is not in the registry, so its notes are left "
        "alone; if the id is in a newer PyTorch, import that registry first\n"
    )
    assert result.out == "adopt: adopted 1, unchanged 0, conflicts 0\n"
    assert not (proj.docs / "gb9998.md").exists()


def test_a_page_not_synced_yet_is_written_whole(proj: Project, tmp_path: Path) -> None:
    (proj.docs / "gb0029.md").unlink()
    old = old_site(tmp_path, "gb0029.md")
    result = proj.run("adopt", str(old))
    assert result.out == "adopt: adopted 1 (1 new files), unchanged 0, conflicts 0\n"
    assert ours(proj, "GB0029").block == their_block(old / "gb0029.md")
    assert proj.run("sync").out.startswith("sync: 0 written")  # what sync would write


def test_files_without_notes_are_unchanged(proj: Project, tmp_path: Path) -> None:
    old = old_site(tmp_path, "gb0029.md", "gb0030.md")
    edit(old / "gb0029.md", their_block(old / "gb0029.md"), "\n\n")
    edit(old / "gb0030.md", their_block(old / "gb0030.md"), "\n")
    files = proj.snapshot()
    result = proj.run("adopt", str(old))
    assert (result.code, result.out) == (0, "adopt: adopted 0, unchanged 2, conflicts 0\n")
    assert proj.snapshot() == files


def test_a_file_in_gbsites_own_form_is_refused(proj: Project, tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    shutil.copy(proj.docs / "gb0029.md", old / "gb0029.md")
    result = proj.run("adopt", str(old))
    assert result.code == 2
    assert result.err.startswith(f"{old / 'gb0029.md'}:1: already in gbsite's form")


def test_folders_that_are_not_the_previous_sites(proj: Project, tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "index.md").write_text("# Index\n")
    for folder, message in [
        (tmp_path / "missing", "no such folder"),
        (tmp_path / "other", "no gbXXXX.md files here"),
        (proj.docs, "the project's own docs folder"),
    ]:
        result = proj.run("adopt", str(folder))
        assert result.code == 2
        assert result.err == (
            f"gbsite: {folder}: {message}; name the previous site's docs/gb/ folder\n"
        )


def test_a_named_pipe_is_refused(proj: Project, tmp_path: Path) -> None:
    old = old_site(tmp_path, "gb0029.md")
    os.mkfifo(old / "gb0030.md")
    result = proj.run("adopt", str(old))
    assert result.code == 2
    assert f"{old / 'gb0030.md'}: not a regular file (a named pipe)" in result.err


def test_help_says_what_happens_to_conflicts(capsys: pytest.CaptureFixture[str]) -> None:
    from gbsite import cli

    with pytest.raises(SystemExit):
        cli.main(["adopt", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--replace" in text
    assert "the other files are still adopted, and the exit status is 1" in text
    assert "nothing written" in text

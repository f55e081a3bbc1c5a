"""Parsed YAML and TOML kept between commands (gbsite/parsed.py): a text parsed before gives
the same data without parsing, each use its own copy; what JSON cannot give back, a text that
fails, a damaged or unwritable cache file and code outside a command keep no data."""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbsite import config, parsed
from gbsite.errors import GbsiteError
from gbsite.fs.files import json_lines, read_json_lines
from gbsite.registry import yamlio

PATH = Path("registry/gb/GB0025.yaml")
TEXT = "id: GB0025\nitems:\n- gb_type: Call to a skipped function\n  hints: [a, 'b: c']\n  n: 3\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / parsed.FOLDER


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts that libyaml was given."""
    calls: list[str] = []
    load = yamlio._load

    def counted(path: Path, text: str) -> object:
        calls.append(text)
        return load(path, text)

    monkeypatch.setattr(yamlio, "_load", counted)
    return calls


def test_a_text_parsed_in_one_command_is_not_parsed_in_the_next(
    cache: Path, parses: list[str]
) -> None:
    with parsed.session():
        first = yamlio.load(PATH, TEXT)
        assert yamlio.load(PATH, TEXT) == first  # the second time in the same command, too
    assert parses == [TEXT]
    [file] = cache.iterdir()
    assert file.name.startswith("yaml-")
    with parsed.session():
        again = yamlio.load(PATH, TEXT)
        again["items"][0]["n"] = 4  # a caller changing what it got
        assert yamlio.load(PATH, TEXT) == first  # the next caller's copy is untouched
    assert parses == [TEXT]
    assert again != first and type(first["items"][0]["n"]) is int
    with parsed.session():
        assert yamlio.load(PATH, TEXT + "more: 1\n") == {**first, "more": 1}  # a new text: parsed
    assert parses == [TEXT, TEXT + "more: 1\n"]


def test_outside_a_command_nothing_is_kept(cache: Path, parses: list[str]) -> None:
    yamlio.load(PATH, TEXT)
    yamlio.load(PATH, TEXT)
    assert parses == [TEXT, TEXT] and not cache.exists()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("when: 2026-11-29\n", {"when": datetime.date(2026, 11, 29)}),  # JSON has no dates
        ("1: one\n", {1: "one"}),  # nor keys that are numbers
        ("x: .nan\n", None),  # nor NaN
        ("x: !!set {a}\n", {"x": {"a"}}),
    ],
)
def test_data_json_cannot_give_back_is_parsed_each_time(
    cache: Path, parses: list[str], text: str, value: object
) -> None:
    for _ in range(2):
        with parsed.session():
            got = yamlio.load(PATH, text)
        if value is not None:
            assert got == value and type(next(iter(got))) is type(next(iter(value)))  # type: ignore[call-overload]
    assert parses == [text, text]


def test_a_text_that_fails_is_never_kept(cache: Path) -> None:
    bad = "a: 1\nb: [\n"
    for _ in range(2):
        with parsed.session(), pytest.raises(GbsiteError) as error:
            yamlio.load(PATH, bad)
        assert str(error.value).startswith(f"{PATH}:")
    assert not cache.exists()


@pytest.mark.parametrize(
    "damage", ["not UTF-8", "no keys", "a key not closed", "not json inside", "a folder", "a pipe"]
)
def test_a_damaged_cache_file_is_ignored_and_replaced(
    cache: Path, parses: list[str], damage: str
) -> None:
    with parsed.session():
        good = yamlio.load(PATH, TEXT)
    [file] = cache.iterdir()
    key = next(iter(read_json_lines(file, limit=parsed.MAX_BYTES)))
    if damage == "not UTF-8":
        file.write_bytes(file.read_bytes() + b"\xff")
    elif damage == "no keys":  # each line without its key
        file.write_text("[1]\n" + file.read_text().split('"', 2)[2])
    elif damage == "a key not closed":
        file.write_text(f'"{key}\n')
    elif damage == "not json inside":
        file.write_bytes(json_lines({key: "{planted"}))
    elif damage == "a folder":
        file.unlink()
        file.mkdir()
    else:  # reading it would never end
        file.unlink()
        os.mkfifo(file)
    with parsed.session():
        assert yamlio.load(PATH, TEXT) == good
    assert parses == [TEXT, TEXT]
    if damage != "a folder":  # written anew, and used by the next command
        with parsed.session():
            assert yamlio.load(PATH, TEXT) == good
        assert parses == [TEXT, TEXT]


def test_a_cache_folder_that_cannot_be_written_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parses: list[str]
) -> None:
    (tmp_path / "cache").write_text("")  # a file where the folder should be
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    for _ in range(2):
        with parsed.session():
            assert yamlio.load(PATH, TEXT)["id"] == "GB0025"
    assert parses == [TEXT, TEXT]


def test_commands_merge_what_each_kept(cache: Path, parses: list[str]) -> None:
    """Two commands at once: each writes what the other kept meanwhile too."""
    other = TEXT.replace("GB0025", "GB0026")
    with parsed.session():
        yamlio.load(PATH, TEXT)
        with parsed.session():  # a command run by a command: the outer one writes
            yamlio.load(PATH, other)
        assert not cache.exists()
    with parsed.session():
        yamlio.load(PATH, TEXT + "x: 1\n")
    with parsed.session():
        for text in (TEXT, other, TEXT + "x: 1\n"):
            yamlio.load(PATH, text)
    assert parses == [TEXT, other, TEXT + "x: 1\n"]


def test_gbsite_toml_is_parsed_once_and_its_errors_stay_located(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    toml = root / config.CONFIG_NAME
    toml.write_text('[site]\ntitle = "Breaks"\n')
    with parsed.session():
        assert config.load(root).title == "Breaks"
    assert (cache / f"toml-{parsed.python_version()}.lines").is_file()
    calls: list[str] = []
    parse = config._toml
    monkeypatch.setattr(config, "_toml", lambda f, t: calls.append(t) or parse(f, t))
    with parsed.session():
        assert config.load(root).title == "Breaks"
        toml.write_text('[site]\ntitle = "Breaks"\nurl = \n')
        with pytest.raises(GbsiteError) as error:
            config.load(root)
    assert str(error.value).startswith(f"{toml}:3: invalid TOML")
    assert calls == ['[site]\ntitle = "Breaks"\nurl = \n']


@pytest.mark.repo_data
def test_a_docs_block_scanned_before_gives_the_same_scan_without_markdown(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every committed docs file's scan (its fences, their lines in the file, its prose) is the
    same from the kept data as from Markdown, and reading it back parses nothing; a file whose
    block starts on another line gets the fences' lines of its own."""
    from conftest import REPO
    from gbsite.docs import files
    from gbsite.examples import annotations

    found, _ = files.scan(REPO / "docs" / "gb")
    pages = [files.read(path) for path in found.values()]
    pages = [doc for doc in pages if doc.block.strip()]
    fresh = [annotations.scan(doc) for doc in pages]  # outside a command: nothing kept
    assert not cache.exists() and any(scan.fences for scan in fresh)
    with parsed.session():
        assert [annotations.scan(doc) for doc in pages] == fresh
    annotations.block_parser.cache_clear()
    monkeypatch.setattr(annotations, "block_parser", lambda: pytest.fail("parsed again"))
    with parsed.session():
        assert [annotations.scan(doc) for doc in pages] == fresh
    doc, scan = next((d, s) for d, s in zip(pages, fresh, strict=True) if s.fences)
    start = "<!-- ADDITIONAL INFORMATION START"
    moved = cache.parent / doc.path.name  # two lines more above the same block
    moved.write_text(doc.path.read_text().replace(start, f"\n\n{start}", 1))
    with parsed.session():
        shifted = annotations.scan(files.read(moved))
    assert shifted.fences == [(fence, line + 2) for fence, line in scan.fences]


def test_the_file_keeps_what_was_used_last_and_what_another_command_wrote(
    cache: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past KEEP_BYTES, the texts used longest ago are left out first; what a command used or
    added is always kept, and so is what another command wrote while it ran."""
    a, b, c, d = (TEXT.replace("GB0025", f"GB00{n}") for n in range(30, 34))
    with parsed.session():
        for text in (a, b, c):
            yamlio.load(PATH, text)
    [file] = cache.iterdir()
    first = read_json_lines(file, limit=parsed.MAX_BYTES)
    sizes = [parsed._size(k, v) for k, v in first.items()]
    monkeypatch.setattr(parsed, "KEEP_BYTES", sum(sizes) + max(sizes) * 3 // 2)  # room for 4
    planted = ("f" * 64, next(iter(first.values())))  # as big as the others
    with parsed.session():
        yamlio.load(PATH, a)  # used again: now the last used
        yamlio.load(PATH, d)  # new: the file is written
        file.write_bytes(json_lines({**first, planted[0]: planted[1]}))  # by another command
    kept = read_json_lines(file, limit=parsed.MAX_BYTES)
    assert list(kept) == [list(first)[2], planted[0], *list(first)[:1], list(kept)[-1]]
    assert parses == [a, b, c, d]
    with parsed.session():  # b, used longest ago, was left out
        for text in (c, a, d, b):
            yamlio.load(PATH, text)
    assert parses == [a, b, c, d, b]


JSON_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
# Keys are digests or whole TOML texts: line breaks of every kind, quotes, backslashes.
KEY_TEXT = st.text(st.sampled_from('a "\\\n\r\t\x85\u2028\u2029\x0b\x1c\x00é\U0001f600'))


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(KEY_TEXT | st.text(), JSON_DATA, max_size=6))
def test_a_file_of_json_lines_gives_back_each_key_and_text(
    tmp_path_factory: pytest.TempPathFactory, data: dict[str, object]
) -> None:
    texts = {key: json.dumps(value, separators=(",", ":")) for key, value in data.items()}
    path = tmp_path_factory.mktemp("lines") / "kept.lines"
    path.write_bytes(json_lines(texts))
    assert read_json_lines(path, limit=parsed.MAX_BYTES) == texts
    assert path.read_bytes().count(b"\n") == len(texts)  # a line each

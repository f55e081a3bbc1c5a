"""Contributor blocks kept between commands (gbsite/site/blockcache.py): a block comes back as
it was kept, an entry that is no block is not used, a file names its generation and what
renders, and only the newest files stay."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from gbsite.docs.blocks import RenderedBlock, RenderedPart, RenderedReading
from gbsite.site import blockcache


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / blockcache.FOLDER


BLOCK = RenderedBlock(
    RenderedReading(
        answer=(RenderedPart("answer", "Why this happens", "<h2>Why</h2>\n<p>Text é \u2028</p>"),),
        why_more=(),
        example=(
            RenderedPart("repro", "", '<pre class="highlight"><code>x</code></pre>'),
            RenderedPart("wrong", "Wrong", "<p>w</p>", anchor="wrong-result"),
        ),
        more_fixes=(),
        rest=(RenderedPart("rest", "`code` title", "<p>r</p>"),),
        tried=(),
    ),
    ("k", "n", "nf"),
)


def test_a_kept_block_comes_back_equal_for_its_id_and_source_only() -> None:
    store = blockcache.load("generation")
    store.add("GB0003", "### Why\n", BLOCK)
    blockcache.save(store, store.new)
    again = blockcache.load("generation")
    assert again.get("GB0003", "### Why\n") == BLOCK
    assert again.has("GB0003", "### Why\n")
    assert again.get("GB0004", "### Why\n") is None  # another id: links and captions differ
    assert again.get("GB0003", "### Why \n") is None
    assert blockcache.load("another generation").get("GB0003", "### Why\n") is None


@pytest.mark.parametrize(
    "entry",
    [
        "",
        "null",
        "[]",
        '{"sections": 1, "classes": []}',
        '{"sections": [[], [], [], [], []], "classes": []}',  # five groups, not six
        '{"sections": [[["a", "b", "c"]], [], [], [], [], []], "classes": []}',
        '{"sections": [[["a", "b", "c", 4]], [], [], [], [], []], "classes": []}',
        '{"sections": [[], [], [], [], [], []], "classes": [1]}',
        '{"sections": [[], [], [], [], [], []]}',
    ],
)
def test_an_entry_that_is_no_block_is_not_used(cache: Path, entry: str) -> None:
    store = blockcache.load("generation")
    store.kept[blockcache.key_of("GB0003", "src")] = entry
    blockcache.save(store, {"other": blockcache.encode(BLOCK)})
    assert blockcache.load("generation").get("GB0003", "src") is None


def test_only_the_newest_files_stay(cache: Path) -> None:
    cache.mkdir(parents=True)
    old = []
    for n in range(blockcache.KEEP + 2):
        path = cache / f"{n:016x}{blockcache.SUFFIX}"
        path.write_text(f"k {blockcache.encode(BLOCK)}\n")
        os.utime(path, (1_000_000 + n, 1_000_000 + n))
        old.append(path)
    before = cache / f"{0:016x}.json"  # an older gbsite's file (a JSON map), never read now
    before.write_text(json.dumps({"k": blockcache.encode(BLOCK)}))
    used = blockcache.load(json.dumps("a generation"))  # a file of its own, written below
    os.utime(old[0], None)  # read by a build just now: among the newest
    blockcache.save(used, {"k": blockcache.encode(BLOCK)})
    left = sorted(p.name for p in cache.iterdir())
    assert len(left) == blockcache.KEEP
    assert used.path.name in left and old[0].name in left and old[-1].name in left
    assert old[1].name not in left and before.name not in left


def test_a_block_is_one_line_whatever_its_text() -> None:
    """Line breaks of every kind in the HTML stay inside their block's line."""
    html = "a\nb\rc\r\nd\u2028e\u2029f\x85g\x0bh\x0ci\x1cj"
    block = RenderedBlock(replace(BLOCK.reading, rest=(RenderedPart("rest", html, html),)), ())
    store = blockcache.load("generation")
    store.add("GB0003", "one", block)
    store.add("GB0004", "two", BLOCK)
    blockcache.save(store, store.new)
    assert len(store.path.read_bytes().split(b"\n")) == 3  # two lines and the end
    again = blockcache.load("generation")
    assert again.get("GB0003", "one") == block and again.get("GB0004", "two") == BLOCK


def test_a_cache_folder_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the folder should be")
    store = blockcache.load("generation")
    assert store.get("GB0003", "src") is None
    store.add("GB0003", "src", BLOCK)
    blockcache.save(store, store.new)  # nothing written, nothing raised

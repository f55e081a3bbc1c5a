"""tests/data/corpus/posts.json: messages people posted in public issues and pull requests,
each with the page that explains it, labelled by reading the registry (not by running the
lookup). `gbsite lookup` is scored on it here and in benchmarks/lookup.py (--corpus); the
browser is held to the same answers in tests/test_browser_search.py."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from conftest import DATA, REPO, committed
from gbsite.registry.views import entry_views
from gbsite.search import adjacent, index, legacy
from gbsite.search.engine import find
from gbsite.search.model import SearchEntry

POSTS = json.loads((DATA / "corpus" / "posts.json").read_text())["posts"]
# Right first, at least: a floor under today's share (issue 43 aims at 0.95), so a change that
# loses posts fails; raise it as the lookup improves.
FLOOR = 0.70


@pytest.fixture(scope="module")
def entries() -> list[SearchEntry]:
    reg = committed()
    folder = REPO / "registry"
    older = adjacent.merged(
        legacy.aliases(legacy.load(folder / legacy.FILE)),
        adjacent.aliases(adjacent.load(folder / adjacent.FILE)),
    )
    return index.entries_for(reg, entry_views(reg), {}, older)


def test_every_post_is_cited_and_labelled_with_ids_the_registry_has() -> None:
    known = set(committed().entries)
    urls = [p["url"] for p in POSTS]
    assert len(urls) == len(set(urls))  # each post once
    for post in POSTS:
        assert re.fullmatch(
            r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+"
            r"(#[\w-]+)?",
            post["url"],
        ), post["url"]
        assert post["source"] in post["url"] and post["text"].strip() and post["why"].strip()
        assert post["ids"] and set(post["ids"]) <= known, post["url"]
        assert post["format"] in ("today", "older", "warning"), post["url"]


def test_gbsite_lookup_finds_the_page_of_most_posts_first(entries: list[SearchEntry]) -> None:
    right: Counter[str] = Counter()
    for post in POSTS:
        found = [m.entry.id for m in find(post["text"], entries).matches]
        right[post["format"]] += bool(found) and found[0] in post["ids"]
    assert sum(right.values()) >= FLOOR * len(POSTS), right
    # Today's format names its break: every one of them is found.
    assert right["today"] == sum(p["format"] == "today" for p in POSTS)

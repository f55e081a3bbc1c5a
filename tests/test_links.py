"""Links between docs files as contributors write them on GitHub (`[GB9493](gb9493.md)`): the
site links the page, `gbsite check` reports a link to a docs file that does not exist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project, line_of, make_project, page
from gbsite.docs import files as docs
from gbsite.docs import links
from gbsite.docs.blocks import BlockRenderer


def hrefs(html: str) -> list[str]:
    return re.findall(r'<a href="([^"]*)"', html)


@pytest.fixture(scope="module")
def render() -> BlockRenderer:
    return BlockRenderer(["GB0029", "GB9493"])


@pytest.mark.parametrize(
    ("markdown", "href"),
    [
        ("[GB9493](gb9493.md)", "gb9493.html"),
        ("[x](./gb0029.md)", "gb0029.html"),
        ("[x](GB0029.MD)", "gb0029.html"),  # any case, as the id's page is named
        ("[x](gb0029.md#why-it-breaks)", "gb0029.html#user-content-why-it-breaks"),
        ("[x](gb0029.md#user-content-why)", "gb0029.html#user-content-why"),
        ("[x](gb0029.md#hints)", "gb0029.html#hints"),  # a section of the page itself
        ("[x](gb0029.md#)", "gb0029.html"),
        ("[x][ref]\n\n[ref]: gb0029.md", "gb0029.html"),
        ("| a | b |\n|---|---|\n| [x](gb0029.md) | y |", "gb0029.html"),
        # Every form GitHub resolves to a docs file, in Markdown or in raw HTML.
        ("[x](../gb/gb0029.md)", "gb0029.html"),
        ("[x](../../docs/gb/gb0029.md)", "gb0029.html"),
        ("[x](/docs/gb/gb0029.md#why)", "gb0029.html#user-content-why"),
        ('See <a href="gb0029.md">x</a>.', "gb0029.html"),
        ("<p><a href='../gb/gb9493.md#hints'>x</a></p>", "gb9493.html#hints"),
        # Not a link to a docs file with a page: left as written.
        ("[x](gb9998.md)", "gb9998.md"),
        ("[x](../gb0029.md)", "../gb0029.md"),
        ("[x](gb0029.md.bak)", "gb0029.md.bak"),
        ("[x](https://example.org/gb0029.md)", "https://example.org/gb0029.md"),
    ],
)
def test_a_link_to_a_docs_file_leads_to_its_page(
    render: BlockRenderer, markdown: str, href: str
) -> None:
    assert hrefs(render("GB0025", markdown + "\n").html) == [href]


@pytest.mark.parametrize(
    ("markdown", "href"),
    [
        ("[probe](../../README.md#reachability-probe)", "GH/README.md#reachability-probe"),
        ("[x](../../tools/probe/REPORT.md)", "GH/tools/probe/REPORT.md"),
        ("[x](../verified-examples.yaml)", "GH/docs/verified-examples.yaml"),
        # Outside the repository, or a docs file beside this one: left as written.
        ("[x](../../../elsewhere.md)", "../../../elsewhere.md"),
        ("[x](../gb/gb9998.md)", "../gb/gb9998.md"),
        ("[x](https://example.org/a.md)", "https://example.org/a.md"),
    ],
)
def test_a_link_to_a_repository_file_leads_to_it_on_github(markdown: str, href: str) -> None:
    """GitHub resolves a docs file's relative link in the repository; the site has no such
    file, so the link goes where GitHub's would."""
    render = BlockRenderer(["GB0029"], repository_link=lambda rel: f"GH/{rel}")
    assert hrefs(render("GB0025", markdown + "\n").html) == [href]


def test_links_in_code_are_not_links(render: BlockRenderer) -> None:
    html = render("GB0025", "`[x](gb0029.md)`\n\n```\n[y](gb0029.md)\n```\n").html
    assert hrefs(html) == []
    assert "gb0029.html" not in html


def test_the_link_text_is_not_linked_twice(render: BlockRenderer) -> None:
    html = render("GB0025", "See [GB9493](gb9493.md) and GB0029.\n").html
    assert hrefs(html) == ["gb9493.html", "gb0029.html"]


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    return make_project(tmp_path / "p", docs=True)


@pytest.mark.repo_data
@pytest.mark.slow  # `gbsite check` over a whole project
def test_check_names_a_link_to_a_missing_docs_file_with_its_line(proj: Project) -> None:
    path = page(
        proj,
        "GB0025",
        """
        A link that works: [GB0029](gb0029.md).

        A paragraph over
        two lines, [broken](gb9998.md#why), and a mention of GB9997.

        | a | b |
        |---|---|
        | x | [in a table](./GB9996.md) |

        From the root, [rooted](/docs/gb/gb9995.md), and in HTML <a href="../gb/gb9994.md">here</a>.
        """,
    )
    assert not (proj.docs / "gb9998.md").exists()
    result = proj.run("check")
    assert result.code == 1
    problems = result.out.strip().splitlines()
    line = line_of(path, "[broken]")
    assert (
        f"{path}:{line}: link to gb9998.md: {proj.docs / 'gb9998.md'} does not exist "
        "(GB9998 is not in the registry); check the id" in problems
    )
    assert f"{path}:{line_of(path, '[in a table]')}: link to gb9996.md:" in result.out
    # The target of a broken link is reported once, as the link; other mentions as before.
    assert f"{path}:{line}: GB9997 is not a graph break in the registry" in result.out
    assert len([p for p in problems if "9998" in p]) == 1
    assert "gb0029" not in result.out
    for gb_id in ("9995", "9994"):  # the forms GitHub resolves: broken on the site too
        assert f"{path}:{line_of(path, '[rooted]')}: link to gb{gb_id}.md:" in result.out
    assert len(problems) == 5


@pytest.mark.repo_data
@pytest.mark.slow  # `gbsite check` over a whole project
def test_a_link_to_an_orphan_docs_file_has_no_page(proj: Project) -> None:
    orphan = proj.docs / "gb9998.md"
    orphan.write_bytes((proj.docs / "gb0025.md").read_bytes())
    path = page(proj, "GB0025", "\n[x](gb9998.md)\n")
    result = proj.run("check")
    assert result.code == 1
    assert (
        f"{path}:{line_of(path, '[x]')}: link to gb9998.md: GB9998 is not in the registry, "
        "so the site has no page for it" in result.out
    )


@pytest.mark.repo_data
@pytest.mark.slow  # builds the whole site
def test_committed_links_between_pages_resolve_on_the_built_site(tmp_path: Path) -> None:
    proj = make_project(tmp_path / "p", docs=True)
    out = tmp_path / "x"
    build = subprocess.run(
        [sys.executable, "-m", "gbsite", "--root", str(proj.root), "build", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    parser = links.parser()
    linking: dict[str, set[str]] = {}  # page -> the ids its block links to
    for path in sorted(proj.docs.glob("gb*.md")):
        tokens = parser.parse(docs.read(path).block)
        ids = {gb_id for _token, gb_id, _fragment, _line in links.found(tokens)}
        if ids:
            linking[path.stem] = ids
    assert {"gb0755", "gb2544"} <= set(linking)  # the links issue 31 found broken
    for name, ids in linking.items():
        built = (out / "gb" / f"{name}.html").read_text(encoding="utf-8")
        assert not re.search(r'href="(?![a-z]+:)[^"]*\.md[#"]', built), name  # relative .md
        for gb_id in ids:
            href = f"{gb_id.lower()}.html"
            assert f'href="{href}"' in built, (name, gb_id)
            assert (out / "gb" / href).is_file()

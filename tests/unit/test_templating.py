"""Compiled templates kept between commands (templating.py, Jinja's bytecode cache): a second
environment compiles nothing and renders the same, a changed template is compiled again, an
error still names its template and line, and the cache folder is only a cache."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from gbsite import templating
from gbsite.errors import GbsiteError


@pytest.fixture
def compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the templates Jinja compiled."""
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "cache"))
    names: list[str] = []
    compile_source = jinja2.Environment.compile

    def counted(self: jinja2.Environment, source: str, name: str | None = None, *a, **k):  # type: ignore[no-untyped-def]
        names.append(str(name))
        return compile_source(self, source, name, *a, **k)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    return names


def templates(folder: Path, **files: str) -> Path:
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.html.j2").write_text(text)
    return folder


def render(folder: Path, name: str, **context: object) -> str:
    env = templating.environment(folder, html=True)
    templating.compile_all(env, folder, ".html.j2")
    return templating.render(env, f"{name}.html.j2", folder, **context)


def test_a_template_compiled_before_is_not_compiled_again(
    tmp_path: Path, compiled: list[str]
) -> None:
    folder = templates(tmp_path / "t", base="<p>{{ x }}</p>{% block b %}{% endblock %}")
    templates(folder, page='{% extends "base.html.j2" %}{% block b %}<i>{{ x }}</i>{% endblock %}')
    first = render(folder, "page", x="<a>")
    assert first == "<p>&lt;a&gt;</p><i>&lt;a&gt;</i>"
    assert sorted(compiled) == ["base.html.j2", "page.html.j2"]
    compiled.clear()
    assert render(folder, "page", x="<a>") == first
    assert compiled == []
    templates(folder, page='{% extends "base.html.j2" %}{% block b %}<b>{{ x }}</b>{% endblock %}')
    assert render(folder, "page", x="y") == "<p>y</p><b>y</b>"
    assert compiled == ["page.html.j2"]


def test_an_error_in_a_kept_template_names_its_line(tmp_path: Path, compiled: list[str]) -> None:
    folder = templates(tmp_path / "t", page="<p>\n{{ x }}\n{{ x.no_such_field }}\n</p>")
    messages = []
    for _ in range(2):
        with pytest.raises(GbsiteError) as error:
            render(folder, "page", x="y")
        messages.append(str(error.value))
    assert compiled == ["page.html.j2"]  # the second time from the cache
    assert messages[0] == messages[1]
    assert f"{folder / 'page.html.j2'}:3: template error" in messages[1]


def test_a_cache_folder_that_cannot_be_used_changes_nothing(
    tmp_path: Path, compiled: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a file").write_text("")
    monkeypatch.setenv("GBSITE_CACHE_DIR", str(tmp_path / "a file"))
    folder = templates(tmp_path / "t", page="{{ x }}")
    assert render(folder, "page", x=1) == render(folder, "page", x=1) == "1"
    assert compiled == ["page.html.j2", "page.html.j2"]


def test_only_the_newest_compiled_templates_stay(
    tmp_path: Path, compiled: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(templating._CompiledCache, "KEEP", 2)
    folder = templates(tmp_path / "t", **{f"p{n}": f"{n}" for n in range(4)})
    for n in range(4):
        render(folder, f"p{n}")
    [kept] = (tmp_path / "cache" / "jinja").iterdir()
    assert len(list(kept.iterdir())) == 2

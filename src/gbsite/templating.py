"""Jinja environments for templates/: StrictUndefined, and errors that name template and line."""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from gbsite.errors import GbsiteError
from gbsite.fs.files import input_files
from gbsite.registry import plaintext


def environment(templates_dir: Path, *, html: bool) -> jinja2.Environment:
    if not templates_dir.is_dir():
        raise GbsiteError.at(templates_dir, None, "templates folder not found")
    input_files(templates_dir)  # refuses named pipes and links out of the project, before Jinja
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir),
        undefined=jinja2.StrictUndefined,  # a missing variable is an error, never ""
        autoescape=html,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # An environment serves one build (serve makes a new one when a template changes), so
        # Jinja need not stat every template a page extends or imports, on every page.
        auto_reload=False,
        bytecode_cache=_compiled_cache(html),
    )
    # str() first: a StrictUndefined then raises its own error naming the missing variable.
    filters: Mapping[str, Callable[..., Any]] = {
        "plain": (lambda s: Markup(plaintext.to_html(str(s))))
        if html
        else (lambda s: plaintext.to_markdown(str(s))),
    }
    env.filters.update(filters)
    return env


class _CompiledCache(jinja2.FileSystemBytecodeCache):
    """Jinja's own cache of compiled templates, in the user's cache folder: compiling the site's
    templates is ~120 ms of every build, reading them back ~3 ms. Jinja keys a template by its
    name and path and recompiles one whose source changed. Only a cache: a folder that cannot be
    read or written means compiling again. The newest KEEP files stay (each project's copy is a
    path of its own: a test run makes thousands)."""

    KEEP = 256

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        from gbsite.fs.files import keep_newest

        folder = Path(self.directory)
        with contextlib.suppress(OSError):
            folder.mkdir(parents=True, exist_ok=True)
            super().dump_bytecode(bucket)
        # Jinja's files end in .cache; one it is still writing ends in .tmp and is left alone.
        keep_newest(folder, "*.cache", self.KEEP)


def _compiled_cache(html: bool) -> jinja2.BytecodeCache:
    """The folder names what compiles: Jinja's version and this module's options for it."""
    from gbsite.config import cache_dir
    from gbsite.fs.files import cache_name

    name = cache_name(__file__, jinja2.__version__, f"html={html}")
    return _CompiledCache(str(cache_dir() / "jinja" / name))


def location(exc: BaseException, templates_dir: Path) -> tuple[Path | None, int | None]:
    """Template file and line where a render error happened (Jinja maps frames to templates)."""
    if isinstance(exc, jinja2.TemplateSyntaxError) and exc.filename:
        return Path(exc.filename), exc.lineno
    found: tuple[Path | None, int | None] = (None, None)
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename)
        if path.is_relative_to(templates_dir):
            found = (path, frame.lineno)
    return found


@contextlib.contextmanager
def _errors_named(templates_dir: Path, name: str) -> Iterator[None]:
    """Template errors as `path:line: template error: ...`, never a traceback."""
    try:
        yield
    except jinja2.TemplateNotFound as exc:
        raise GbsiteError.at(templates_dir / str(exc.name), None, "template not found") from None
    except GbsiteError:
        raise
    except Exception as exc:  # anything a template's code raises: {{ 1/0 }}, {{ x[99] }}, ...
        path, line = location(exc, templates_dir)
        jinja = (jinja2.TemplateError, TypeError, AttributeError, ValueError)
        if path is None and not isinstance(exc, jinja):
            raise  # not raised in a template: our own bug, for the command line to report
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        if not isinstance(exc, jinja):
            message = f"{type(exc).__name__}: {message}"
        raise GbsiteError.at(
            path or templates_dir / name, line, f"template error: {message}"
        ) from None


def compile_all(env: jinja2.Environment, templates_dir: Path, suffix: str) -> None:
    """Compile every template whose name ends with `suffix`, so that syntax errors show first
    and a forked worker shares the compiled code."""
    for name in env.list_templates(filter_func=lambda name: name.endswith(suffix)):
        with _errors_named(templates_dir, name):
            env.get_template(name)


def render(env: jinja2.Environment, name: str, templates_dir: Path, **context: Any) -> str:
    with _errors_named(templates_dir, name):
        return env.get_template(name).render(**context)

"""`gbsite serve`: build, serve on localhost, rebuild on change, reload the open page.

Like `mkdocs serve`: a burst of saves gives one rebuild; a failed rebuild keeps the last good
site, prints the error and shows it in the browser, and the next good save recovers. Each build
is `gbsite build` with a cache kept between them (site/cache.py), told which files changed; it
is written to the output folder and served from memory (preview.py).
"""

from __future__ import annotations

import contextlib
import http.server
import threading
import time
import traceback as traceback_mod
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

from gbsite import config
from gbsite.config import Config
from gbsite.errors import GbsiteError, one_line
from gbsite.preview import ServedSite, SiteState, make_handler
from gbsite.site import build
from gbsite.site.cache import BuildCache

DEBOUNCE = 0.010  # seconds of quiet after the last change before rebuilding (editors save in
# a ms or two, often as write-to-temp and rename: one save, several events)
_IGNORED_SUFFIXES = (".tmp", ".swp", ".swx", "~")
_CHANGES = {"created", "modified", "moved", "deleted", "closed"}


class _Watcher(FileSystemEventHandler):
    def __init__(
        self,
        relevant: Callable[[Path], bool],
        changed: Callable[[Path], None],
        replaced: Callable[[Path], None] = lambda path: None,
        folders: tuple[Path, ...] = (),
    ) -> None:
        self.relevant = relevant
        self.changed = changed
        self.replaced = replaced  # a watched folder swapped whole (import, sync)
        self.folders = folders

    def on_any_event(self, event: FileSystemEvent) -> None:
        # Only changes count: the build itself opens and reads every file it watches.
        if event.event_type not in _CHANGES or (
            event.is_directory and event.event_type == "modified"
        ):
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw and Path(str(raw)) in self.folders:
                self.replaced(Path(str(raw)))
            if raw and self.relevant(Path(str(raw))):
                self.changed(Path(str(raw)))


class _HTTPServer(http.server.ThreadingHTTPServer):
    """A client that goes away mid-answer (a closed tab, a cancelled reload) is no error of
    ours: nothing to print. Anything else is one line, not a traceback."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError | TimeoutError):
            return
        print(one_line(f"gbsite serve: a request failed: {error!r}"), file=sys.stderr)


class DevServer:
    def __init__(
        self,
        cfg: Config,
        host: str,
        port: int,
        out_dir: Path | None = None,
        log: Callable[[str], None] = print,
        traceback: bool = False,
    ) -> None:
        self.cfg = cfg
        self.traceback = traceback  # print it with an internal error
        self.out_dir = out_dir
        self.log = log
        self.state = SiteState()
        self.stopping = threading.Event()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._pending: set[Path] = set()
        self._replaced: set[Path] = set()
        self._last_change = 0.0
        self.cache = BuildCache()  # what each build keeps for the next (site/cache.py)
        self._observer: BaseObserver = Observer()
        self._watcher = _Watcher(self._relevant, self._changed)
        self._watches: dict[Path, ObservedWatch] = {}
        handler = make_handler(self.state, self.stopping, host)
        try:
            self.httpd = _HTTPServer((host, port), handler)
        except OSError as exc:
            raise GbsiteError(
                f"cannot listen on {host}:{port}: {exc.strerror}; choose another port with --port"
            ) from None
        self.httpd.daemon_threads = True
        self.url = f"http://{host}:{self.httpd.server_address[1]}/"

    def rebuild(self, changed: set[Path] | None = None) -> None:
        """Build again: the same phases as `gbsite build`, doing only what the changes need."""
        started = time.perf_counter()
        current = self.state.snapshot
        try:
            if changed is None or self.cfg.file in changed:
                self.cfg = config.load(self.cfg.root)  # the folders watched stay those at start
            folders = (self.cfg.registry_dir, self.cfg.docs_dir, self.cfg.templates_dir)
            # A folder swapped whole (import, sync) or an unknown change: read everything.
            files = None if changed is None or any(p in folders for p in changed) else changed
            report = build.build(
                self.cfg, self.out_dir, skip_unchanged=False, cache=self.cache, changed=files
            )
        except GbsiteError as exc:
            message = "\n".join(str(p) for p in exc.problems)
            self.log(
                f"build failed ({len(exc.problems)} problem(s)); still serving the last "
                f"good site:\n{message}"
            )
            self.state.publish(ServedSite(current.number, current.outputs, message))
            return
        except OSError as exc:  # disk full, no permission: the machine's, not the input's
            where = f"{exc.filename}: " if exc.filename else ""
            message = f"gbsite: {where}{exc.strerror or exc}"
            self.log(f"build failed; still serving the last good site:\n{message}")
            self.state.publish(ServedSite(current.number, current.outputs, message))
            return
        except Exception as exc:  # a bug: reported, and the next save builds again
            what = " ".join(str(exc).split())[:300]
            message = (
                f"gbsite: internal error ({type(exc).__name__}{': ' + what if what else ''}); "
                "this is a bug in gbsite: run `gbsite --traceback serve` to see where"
            )
            if self.traceback:
                message += "\n" + "".join(traceback_mod.format_exception(exc))
            self.log(f"build failed; still serving the last good site:\n{message}")
            self.state.publish(ServedSite(current.number, current.outputs, message))
            self.cache = BuildCache()  # start afresh next time
            return
        ms = (time.perf_counter() - started) * 1000
        for warning in report.warnings:
            self.log(f"warning: {warning}")
        self.log(f"rebuilt in {ms:.0f} ms ({report.written} files changed)")
        warnings = "\n".join(str(w) for w in report.warnings) or None
        self.state.publish(ServedSite(current.number + 1, report.outputs, None, warnings))

    def _relevant(self, path: Path) -> bool:
        name = path.name
        if name.startswith(".") or name.endswith(_IGNORED_SUFFIXES):
            return False  # editor and gbsite temp files; the rename that follows counts
        if path in (self.cfg.file, self.cfg.verified_file):
            return True  # the record changes when `gbsite check --examples` has run
        return any(
            path.is_relative_to(folder)
            for folder in (self.cfg.registry_dir, self.cfg.docs_dir, self.cfg.templates_dir)
        )

    def _folder_replaced(self, path: Path) -> None:
        with self._lock:
            self._replaced.add(path)
        self._changed(path)

    def _changed(self, path: Path) -> None:
        with self._lock:
            self._pending.add(path)
            self._last_change = time.monotonic()
        self._wake.set()

    def _builder(self) -> None:
        while not self.stopping.is_set():
            if not self._wake.wait(timeout=0.5):
                continue
            # Debounce: wait until saves have been quiet for a moment, then build once.
            while (quiet := self._last_change + DEBOUNCE - time.monotonic()) > 0:
                time.sleep(quiet)
            with self._lock:
                self._wake.clear()
                changed, self._pending = self._pending, set()
                replaced, self._replaced = self._replaced, set()
            try:
                for folder in replaced:
                    self._watch(folder)
                if not self.stopping.is_set():
                    self.rebuild(changed)
            except Exception as exc:  # whatever happens, the next save is watched and built
                self.log(
                    f"gbsite: internal error in the rebuild loop ({type(exc).__name__}: {exc})"
                )

    def _watch(self, folder: Path) -> None:
        """Watch `folder` and below, again if it was replaced: the old watch saw the old one."""
        old = self._watches.pop(folder, None)
        if old is not None:
            with contextlib.suppress(KeyError, OSError):
                self._observer.unschedule(old)
        if folder.is_dir():
            self._watches[folder] = self._observer.schedule(
                self._watcher, str(folder), recursive=True
            )

    def serve(self) -> None:
        self.rebuild()
        if self.state.snapshot.number == 0:
            raise GbsiteError("the first build failed; fix the problems above and start again")
        observer = self._observer = Observer()
        folders = (self.cfg.registry_dir, self.cfg.docs_dir, self.cfg.templates_dir)
        self._watcher = _Watcher(self._relevant, self._changed, self._folder_replaced, folders)
        for folder in folders:
            self._watch(folder)
        # gbsite.toml; docs/ for verified-examples.yaml; and the parents of the watched folders,
        # where `gbsite import` and `sync` swap a new registry/ or docs/gb/ in (transaction.py).
        parents = {self.cfg.root, self.cfg.verified_file.parent, *(f.parent for f in folders)}
        for parent in sorted(parents):
            if parent.is_dir() and parent not in folders:
                observer.schedule(self._watcher, str(parent), recursive=False)
        observer.start()
        builder = threading.Thread(target=self._builder, name="gbsite-builder", daemon=True)
        builder.start()
        server = threading.Thread(target=self.httpd.serve_forever, name="gbsite-http", daemon=True)
        server.start()
        self.log(f"Serving on {self.url} (Ctrl-C to stop)")
        try:
            while server.is_alive():
                server.join(timeout=0.5)
        finally:
            self.stopping.set()
            observer.stop()
            self.httpd.shutdown()
            self.httpd.server_close()
            observer.join(timeout=5)
            builder.join(timeout=30)  # a build in progress finishes and cleans up its temp folder

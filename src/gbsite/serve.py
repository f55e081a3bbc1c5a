"""`gbsite serve`: build, serve on localhost, rebuild on change, reload the open page.

Like `mkdocs serve`: a burst of saves gives one rebuild; a failed rebuild keeps the last good
site, prints the error and shows it in the browser, and the next good save recovers. Pages are
served from the last good build held in memory, so a request never sees a half-built site and
no request can reach a file outside it. Each build is also written to the output folder.
"""

from __future__ import annotations

import contextlib
import http.server
import ipaddress
import json
import mimetypes
import posixpath
import threading
import time
import traceback as traceback_mod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

from gbsite import config
from gbsite.config import Config
from gbsite.errors import GbsiteError
from gbsite.site import build
from gbsite.site.cache import BuildCache

DEBOUNCE = 0.010  # seconds of quiet after the last change before rebuilding (editors save in
# a ms or two, often as write-to-temp and rename: one save, several events)
EVENTS_PATH = "/__gbsite/events"
_IGNORED_SUFFIXES = (".tmp", ".swp", ".swx", "~")
_CHANGES = {"created", "modified", "moved", "deleted", "closed"}


@dataclass(frozen=True, slots=True)
class ServedSite:
    """The site being served: the last good build, and the error of a later failed one, or
    the warnings of the build (such as text a docs file has outside its block)."""

    number: int
    outputs: dict[str, bytes]
    error: str | None
    warnings: str | None = None


class SiteState:
    """Shared between the HTTP threads and the builder; replaced whole, never mutated."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.snapshot = ServedSite(0, {}, None)

    def publish(self, snapshot: ServedSite) -> None:
        with self._changed:
            self.snapshot = snapshot
            self._changed.notify_all()

    def wait_for_change(self, seen: ServedSite, timeout: float) -> ServedSite:
        with self._changed:
            self._changed.wait_for(lambda: self.snapshot is not seen, timeout=timeout)
            return self.snapshot


def live_reload_script(snapshot: ServedSite) -> bytes:
    """Injected into served HTML only (never into the built files)."""
    return (
        "<script>(function(){var build=" + str(snapshot.number) + ";"
        "var es=new EventSource('" + EVENTS_PATH + "');"
        "function show(msg){var el=document.getElementById('gbsite-build-error');"
        "if(!el){el=document.createElement('pre');el.id='gbsite-build-error';"
        "el.setAttribute('role','alert');el.style.cssText='position:fixed;left:0;right:0;"
        "top:0;z-index:99;margin:0;padding:1rem;background:#a40e26;color:#fff;"
        "white-space:pre-wrap;font:14px/1.4 monospace';document.body.appendChild(el);}"
        "el.textContent=msg;}"
        "es.onmessage=function(e){var d=JSON.parse(e.data);"
        "if(d.build!==build){location.reload();}"
        "else if(d.error){show('gbsite build failed; showing the last good site.\\n'+d.error);}"
        "else if(d.warnings){show('gbsite build warnings:\\n'+d.warnings);}"
        "else{var el=document.getElementById('gbsite-build-error');if(el)el.remove();}};"
        "})();</script>"
    ).encode()


def resolve(url_path: str) -> str | None:
    """The output path a request names, or None for anything that tries to leave the site."""
    path = unquote(urlsplit(url_path).path)
    if "\x00" in path or "\\" in path:
        return None
    parts = path.split("/")
    if any(part in ("..", ".") for part in parts):
        return None
    clean = posixpath.normpath("/" + path.lstrip("/")).lstrip("/")
    if path.endswith("/") or clean in ("", "."):
        clean = posixpath.join(clean, "index.html") if clean not in ("", ".") else "index.html"
    return clean


_LOOPBACK_NAMES = {"localhost", "localhost.", "ip6-localhost"}


def host_allowed(header: str | None, listen_host: str) -> bool:
    """Whether a request's Host header names this server as the user reaches it: a loopback
    name or address, or the --host it listens on. A page of another site that points its own
    name at 127.0.0.1 (DNS rebinding) sends its own name, and is refused. When listening on all
    interfaces, any IP address is accepted too: a rebinding attack needs a name."""
    if not header:
        return False
    host = header.strip().lower()
    if host.startswith("["):  # [::1]:8000
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.rsplit(":", 1)[0]
    if host in _LOOPBACK_NAMES or host == listen_host.lower().strip("[]"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or listen_host in ("0.0.0.0", "::", "")


def make_handler(
    state: SiteState, stopping: threading.Event, listen_host: str = "127.0.0.1"
) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        server_version = "gbsite"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # a request log would bury the rebuild messages

        def _host_ok(self) -> bool:
            if host_allowed(self.headers.get("Host"), listen_host):
                return True
            body = b"gbsite serve answers only requests for localhost (Host header refused)\n"
            self.send_response(403)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return False

        def do_HEAD(self) -> None:
            if self._host_ok():
                self._serve(body=False)

        def do_GET(self) -> None:
            if not self._host_ok():
                return
            if urlsplit(self.path).path == EVENTS_PATH:
                self._events()
            else:
                self._serve(body=True)

        def _serve(self, body: bool) -> None:
            snapshot = state.snapshot
            path = resolve(self.path)
            data = snapshot.outputs.get(path) if path is not None else None
            status = 200
            if path is None or data is None:
                status, path = 404, "404.html"
                data = snapshot.outputs.get(path, b"<!DOCTYPE html><title>Not found</title>")
            content_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
            if content_type == "text/html":
                data = data.replace(b"</body>", live_reload_script(snapshot) + b"</body>", 1)
            if content_type.startswith("text/") or content_type.endswith(("javascript", "json")):
                content_type += "; charset=utf-8"
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if body:
                self.wfile.write(data)

        def _events(self) -> None:
            """Server-sent events: the build number and error, whenever either changes."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            snapshot = state.snapshot
            try:
                while not stopping.is_set():
                    message = {
                        "build": snapshot.number,
                        "error": snapshot.error,
                        "warnings": snapshot.warnings,
                    }
                    self.wfile.write(f"data: {json.dumps(message)}\n\n".encode())
                    self.wfile.flush()
                    seen, quiet_since = snapshot, time.monotonic()
                    while snapshot is seen and not stopping.is_set():
                        snapshot = state.wait_for_change(seen, timeout=1.0)
                        if time.monotonic() - quiet_since > 15:
                            self.wfile.write(b": keep-alive\n\n")  # notices closed pages
                            self.wfile.flush()
                            quiet_since = time.monotonic()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the page was closed or reloaded

    return Handler


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
            self.httpd = http.server.ThreadingHTTPServer((host, port), handler)
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

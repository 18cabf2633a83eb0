"""Timeline-server-based markers: tasks ask the driver, the driver batches into ``MARKERS<n>`` files.

With ``hoodie.write.markers.type=TIMELINE_SERVER_BASED`` a write task does not create one
marker object per data file (costly on object stores). It sends the marker name to a small
HTTP service in the driver (Hudi's embedded timeline server plays this role) and waits for the
answer. The service collects the names arriving within a short window and adds them, one
per line, to one of a few ``MARKERS<n>`` files (rewritten whole, as an object store has no
append), then answers every waiting task: a task still
never writes a data file before its marker is durable. ``MARKERS.type`` records the mode, so
Java's rollback (and ours, :func:`~hudi_sql.write.markers.read_markers`) reads them back.

The service binds the driver's address (loopback here) and lives for one write. It trusts no
request: the URL carries a random per-write token (a request without it is refused with 403),
and every name is checked by :func:`~hudi_sql.write.markers.validate_marker_name` (file-name
grammar, plain partition segments, inside the base path) before it is stored, so a marker can
never make the commit's clean-up delete a file outside the table.
"""

from __future__ import annotations

__all__ = ["MarkerServer", "post_marker"]

import logging
import secrets
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import TYPE_CHECKING

from hudi_sql.errors import HudiError
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout
from hudi_sql.storage.uri import join
from hudi_sql.write.markers import MARKERS_TYPE_FILE, validate_marker_name

if TYPE_CHECKING:  # Self is in typing only from Python 3.11
    from typing_extensions import Self

_log = logging.getLogger(__name__)


class _Batch:
    def __init__(self) -> None:
        self.names: list[str] = []
        self.done = threading.Event()
        self.error: str | None = None


class MarkerServer:
    """Batches marker requests of one instant into at most *num_files* ``MARKERS<n>`` files."""

    def __init__(self, layout: TableLayout, instant_time: str, storage: Storage, *, host: str = "127.0.0.1",
                 num_files: int = 4, batch_interval: float = 0.02) -> None:
        self.layout = layout
        self.storage = storage
        self._files: dict[int, list[str]] = {}  # the lines of each MARKERS<n> file so far
        self.marker_dir = layout.marker_dir(instant_time)
        #: The per-write secret a request must carry in its path (``/marker/<token>``).
        self.token = secrets.token_urlsafe(24)
        self.host = host
        self.num_files = max(1, num_files)
        self.batch_interval = batch_interval
        self._lock = threading.Lock()
        self._current = _Batch()
        self._stop = threading.Event()
        self._next_file = 0
        self.batches_written = 0
        self.markers_written = 0
        self._server: ThreadingHTTPServer | None = None
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://{self.host}:{self._server.server_address[1]}/marker/{self.token}"

    def __enter__(self) -> Self:
        self.storage.write_bytes(join(self.marker_dir, MARKERS_TYPE_FILE), b"TIMELINE_SERVER_BASED")
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if not secrets.compare_digest(self.path, f"/marker/{server.token}"):
                    self.send_response(403)
                    self.end_headers()
                    self.wfile.write(b"missing or wrong marker token")
                    return
                length = min(int(self.headers.get("Content-Length", "0") or 0), 4096)
                name = self.rfile.read(length).decode("utf-8", "replace").strip()
                error = server.add(name)
                self.send_response((400 if error.startswith("refused") else 500) if error else 200)
                self.end_headers()
                self.wfile.write((error or "ok").encode("utf-8"))

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer((self.host, 0), Handler)
        self._server.daemon_threads = True
        self._threads = [threading.Thread(target=self._server.serve_forever, daemon=True),
                         threading.Thread(target=self._flush_loop, daemon=True)]
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        self._flush()

    def add(self, name: str) -> str | None:
        """Queue a marker name and wait until it is on storage; returns an error text or None."""
        try:
            validate_marker_name(self.layout, name)
        except HudiError as exc:
            _log.error("Marker service: refused %r: %s", name, exc)
            return f"refused: {exc}"
        with self._lock:
            batch = self._current
            batch.names.append(name)
        if not batch.done.wait(timeout=60):
            return "marker batch timed out"
        return batch.error

    def _flush_loop(self) -> None:
        while not self._stop.is_set():
            time.sleep(self.batch_interval)
            self._flush()

    def _flush(self) -> None:
        with self._lock:
            batch, self._current = self._current, _Batch()
        if not batch.names:
            batch.done.set()
            return
        index = self._next_file
        path = join(self.marker_dir, f"MARKERS{index}")
        self._next_file = (self._next_file + 1) % self.num_files
        try:
            lines = self._files.setdefault(index, [])
            lines.extend(batch.names)
            self.storage.write_bytes(path, "".join(n + "\n" for n in lines).encode("utf-8"))
            self.batches_written += 1
            self.markers_written += len(batch.names)
        except OSError as exc:  # the tasks fail, and with them the write
            batch.error = f"could not write {path}: {exc}"
            _log.error(batch.error)
        batch.done.set()


def post_marker(url: str, name: str, *, timeout: float = 120) -> None:
    """From a task: register a marker with the driver's marker service (raises if it fails)."""
    request = urllib.request.Request(url, data=name.encode("utf-8"), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            if response.status != 200:
                raise OSError(f"marker service refused {name}: {response.read().decode('utf-8', 'replace')}")
    except urllib.error.HTTPError as exc:
        raise OSError(f"marker service refused {name}: {exc.code} {exc.read().decode('utf-8', 'replace')}") from exc

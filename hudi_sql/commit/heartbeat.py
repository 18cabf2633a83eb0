"""Heartbeats: how one writer tells the others that its pending instant is still being worked on.

Apache Hudi's layout: ``.hoodie/.heartbeat/<instant time>``, one file per running write or
table service; the file's *modification time* is the heartbeat. A daemon thread of the driver
touches it every ``hoodie.client.heartbeat.interval_in_ms``; a reader counts it expired when it
is older than interval x ``hoodie.client.heartbeat.tolerable.misses`` (or missing: an instant
written by a client without heartbeats, or one its writer gave up on). The file is deleted when
the instant completes or is rolled back.

Why this and not process ids: writers may run on different hosts sharing the table's storage;
the file system is the only thing they all see. The cost is that a killed writer's instant is
only recognised as failed once its heartbeat expired, never earlier: a writer paused by a long
GC looks exactly like a dead one for that long, and must not lose its work sooner.

The file holds a small JSON note (host, process, instant) for error messages; Apache Hudi
writes it empty and reads only the modification time, so both read each other's heartbeats.
"""

from __future__ import annotations

__all__ = [
    "Heartbeat",
    "claim_service_instant",
    "delete_heartbeat",
    "heartbeat_age",
    "heartbeat_path",
    "is_heartbeat_expired",
    "live_pending_writes",
    "live_writer_error",
    "refuse_live_writers",
]

import json
import logging
import os
import socket
import threading
import time

from hudi_sql.config.concurrency import ConcurrencyConfig, HudiConcurrencyConfig
from hudi_sql.errors import ConcurrentWriterError
from hudi_sql.model.instant import Instant
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout
from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)

HEARTBEAT_FOLDER = ".heartbeat"


def heartbeat_path(layout: TableLayout, instant_time: str) -> str:
    return f"{layout.meta_path}/{HEARTBEAT_FOLDER}/{instant_time}"


def heartbeat_age(storage: Storage, layout: TableLayout, instant_time: str, *, now: float | None = None) -> float | None:
    """Seconds since *instant_time*'s last heartbeat, ``None`` when it has no heartbeat file."""
    mtime = storage.modification_time(heartbeat_path(layout, instant_time))
    if mtime is None:
        return None
    return (time.time() if now is None else now) - mtime


def is_heartbeat_expired(storage: Storage, layout: TableLayout, instant_time: str, expiry_seconds: float, *,
                         now: float | None = None) -> bool:
    """Whether the writer of *instant_time* stopped beating (Hudi's ``isHeartbeatExpired``)."""
    age = heartbeat_age(storage, layout, instant_time, now=now)
    return age is None or age > expiry_seconds


def heartbeat_owner(storage: Storage, layout: TableLayout, instant_time: str) -> str:
    """Who beats for *instant_time* (host and process), for error messages; empty if unknown."""
    try:
        note = json.loads(storage.read_bytes(heartbeat_path(layout, instant_time)) or b"{}")
        return f"process {note['pid']} on {note['host']}"
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def delete_heartbeat(storage: Storage, layout: TableLayout, instant_time: str) -> None:
    storage.delete(heartbeat_path(layout, instant_time))


class Heartbeat:
    """The heartbeat of one instant this process works on, refreshed by a daemon thread."""

    def __init__(self, storage: Storage, layout: TableLayout, instant_time: str, interval_ms: int) -> None:
        self.storage, self.layout, self.instant_time = storage, layout, instant_time
        self.interval = max(interval_ms, 1) / 1000.0
        self.path = heartbeat_path(layout, instant_time)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Heartbeat:
        """Write the first beat now, then keep beating until :meth:`stop`."""
        note = {"instant": self.instant_time, "host": socket.gethostname(), "pid": os.getpid(),
                "started": time.time()}
        self.storage.write_bytes(self.path, json.dumps(note).encode())
        self._thread = threading.Thread(target=self._run, name=f"hudi-heartbeat-{self.instant_time}", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                if not self.storage.touch(self.path):
                    # Deleted under us: the instant completed or was rolled back by another
                    # writer; recreating the file would resurrect a dead instant's heartbeat.
                    _log.warning("Heartbeat of %s disappeared; stopped beating.", self.instant_time)
                    return
            except OSError as exc:  # a missed beat; the next one may succeed
                _log.warning("Heartbeat of %s failed: %s", self.instant_time, exc)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, *, delete: bool = True) -> None:
        """Stop beating; with *delete*, remove the file (the instant completed, was rolled back,
        or is given up: without a heartbeat it counts as failed at once)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        if delete:
            delete_heartbeat(self.storage, self.layout, self.instant_time)


def live_pending_writes(meta_client: TableMetaClient, config: ConcurrencyConfig) -> list[Instant]:
    """Pending write instants whose heartbeat is alive (scheduled clusterings aside), oldest first."""
    scheduled = {i.instant_time for i in meta_client.pending_clustering_instants()}
    return [i for i in meta_client.timeline.pending_writes()
            if i.instant_time not in scheduled and not is_heartbeat_expired(
                meta_client.storage, meta_client.layout, i.instant_time, config.heartbeat_expiry_seconds)]


def refuse_live_writers(meta_client: TableMetaClient, config: ConcurrencyConfig) -> None:
    """``SINGLE_WRITER``: another writer's live pending instant refuses this write."""
    live = live_pending_writes(meta_client, config)
    if live:
        raise live_writer_error(meta_client, live[0])


def live_writer_error(meta_client: TableMetaClient, instant: Instant) -> ConcurrentWriterError:
    storage, layout = meta_client.storage, meta_client.layout
    age = heartbeat_age(storage, layout, instant.instant_time) or 0.0
    owner = heartbeat_owner(storage, layout, instant.instant_time)
    return ConcurrentWriterError(
        f"Another writer is writing table '{meta_client.base_path}': instant {instant.instant_time} "
        f"({instant.action.value}, {instant.state.value}) has a live heartbeat (last beat {age:.1f}s ago"
        f"{', ' + owner if owner else ''}).",
        help=f"wait for it to finish, or run concurrent writers with "
             f"'{HudiConcurrencyConfig.CONCURRENCY_MODE.key}=OPTIMISTIC_CONCURRENCY_CONTROL'; a killed writer's "
             f"instant is rolled back once its heartbeat is older than "
             f"'{HudiConcurrencyConfig.HEARTBEAT_INTERVAL_MS.key}' x "
             f"'{HudiConcurrencyConfig.HEARTBEAT_TOLERABLE_MISSES.key}'",
    )


def claim_service_instant(meta_client: TableMetaClient, instant: Instant, config: ConcurrencyConfig) -> Heartbeat:
    """Start beating for the table service *instant* (a compaction or clustering) this process
    is about to execute; call it under the table lock.

    Executing a service instant begins by deleting what an earlier attempt left (the files its
    markers name): right for an attempt that died, ruinous for one still running. So an
    executor whose heartbeat is alive keeps the instant; a second one (another async compactor,
    a second ``CALL run_compaction``) is refused, naming it. An executor that was killed stops
    beating, and its instant can be executed again once the heartbeat expired; one that failed
    cleanly deleted its heartbeat, so a retry may start at once.

    Raises:
        ConcurrentWriterError: another executor's heartbeat for *instant* is alive.
    """
    storage, layout = meta_client.storage, meta_client.layout
    if not is_heartbeat_expired(storage, layout, instant.instant_time, config.heartbeat_expiry_seconds):
        age = heartbeat_age(storage, layout, instant.instant_time) or 0.0
        owner = heartbeat_owner(storage, layout, instant.instant_time)
        raise ConcurrentWriterError(
            f"{instant.action.value.capitalize()} {instant.instant_time} of table '{meta_client.base_path}' is "
            f"being executed by another run (last heartbeat {age:.1f}s ago{', ' + owner if owner else ''}).",
            help=f"wait for it to finish; if that run was killed, its {instant.action.value} can be run again "
                 f"once its heartbeat is older than '{HudiConcurrencyConfig.HEARTBEAT_INTERVAL_MS.key}' x "
                 f"'{HudiConcurrencyConfig.HEARTBEAT_TOLERABLE_MISSES.key}'")
    return Heartbeat(storage, layout, instant.instant_time, config.heartbeat_interval_ms).start()

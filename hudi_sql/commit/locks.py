"""The table lock: what makes "check conflicts, then publish" one step between writers.

Every :class:`~hudi_sql.commit.timeline_writer.TimelineWriter` transaction holds a
:class:`TableLock`, made of two layers:

* the **in-process lock** (Apache Hudi's ``InProcessLockProvider``): one per table path and
  Python process, shared by every thread and HiveServer2 session. Always taken, whatever the
  mode: it costs nothing and keeps threads of one process from interleaving transitions;
* the **cross-process provider** chosen by ``hoodie.write.lock.provider``:
  ``FileSystemBasedLockProvider``, an atomic create-if-absent file ``<folder>/lock``
  (``hoodie.write.lock.filesystem.path``, default the table's ``.hoodie`` folder, as in
  Apache Hudi 0.15) holding a note on its holder, taken over only after
  ``hoodie.write.lock.filesystem.expire`` minutes (0: never);
  ``StorageBasedLockProvider``, a lease in ``.hoodie/.locks/table_lock.json`` kept with
  conditional writes on S3, GCS and Azure (:mod:`hudi_sql.commit.storage_lock`); or
  ``HiveMetastoreBasedLockProvider``, a Hive metastore table lock
  (:mod:`hudi_sql.commit.hive_metastore_lock`).

The lock is re-entrant per thread (a rollback inside a write's transaction takes it again),
and only the outermost acquisition touches the cross-process provider. Acquiring follows Apache
Hudi's ``LockManager``: an attempt waits up to ``hoodie.write.lock.wait_time_ms``; after a
failed attempt the manager pauses ``hoodie.write.lock.client.wait_time_ms_between_retry`` and
tries again, ``hoodie.write.lock.client.num_retries`` times, then raises
:class:`~hudi_sql.errors.LockTimeoutError` naming the holder.

Which options apply: the operation's entry point resolves a
:class:`~hudi_sql.config.concurrency.ConcurrencyConfig` once (``Resolved.concurrency``) and hands
it down to every timeline writer of the operation: a write's to its commit and the table services
after it, a service called on its own (``hudi_sql.compact``, ``CALL run_compaction``, the CLI) its
own, so a compactor beside writer processes takes the same cross-process lock.
"""

from __future__ import annotations

__all__ = [
    "FileSystemLockProvider",
    "TableLock",
    "table_lock",
]

import json
import logging
import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Protocol

from hudi_sql.commit.hive_metastore_lock import HiveMetastoreLockProvider
from hudi_sql.commit.storage_lock import StorageLockProvider
from hudi_sql.config.concurrency import (
    FILE_SYSTEM_LOCK_PROVIDER,
    HIVE_METASTORE_LOCK_PROVIDER,
    IN_PROCESS_LOCK_PROVIDER,
    STORAGE_LOCK_PROVIDER,
    ConcurrencyConfig,
    HudiConcurrencyConfig,
)
from hudi_sql.errors import HudiConfigError, LockTimeoutError, UnsupportedFeatureError
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout
from hudi_sql.storage.uri import is_local, qualify

_log = logging.getLogger(__name__)

LOCK_FILE_NAME = "lock"

class CrossProcessLock(Protocol):
    """A lock provider that excludes other processes (Hudi's ``LockProvider.tryLock``)."""

    def try_lock(self, timeout: float, purpose: str) -> bool:
        """Take the lock within *timeout* seconds; ``False`` if another holder kept it."""

    def unlock(self) -> None:
        """Release the lock taken by :meth:`try_lock`."""

    def holder(self) -> str:
        """Who holds the lock now, for messages (empty when unknown or free)."""

    def close(self) -> None:
        """Release what the provider holds open after attempts that all failed."""


class FileSystemLockProvider:
    """``FileSystemBasedLockProvider``: the lock is a file created with ``O_EXCL``.

    Works for processes on one host or on hosts sharing a POSIX file system with atomic
    exclusive create. A holder that dies leaves the file behind: with an expiry the next
    writer takes it over after that many minutes (by the file's modification time); without
    one an operator deletes the file (its content names the holder).
    """

    def __init__(self, lock_dir: str, expire_minutes: int, poll_ms: int, storage: Storage | None = None) -> None:
        if not is_local(lock_dir):
            raise UnsupportedFeatureError(
                f"The file-system lock provider needs an atomic exclusive create, which the object store of "
                f"'{lock_dir}' does not offer.",
                help=f"on S3, GCS or Azure set {HudiConcurrencyConfig.LOCK_PROVIDER.key}={STORAGE_LOCK_PROVIDER} "
                     "(a lease kept with conditional writes)")
        self.path = f"{qualify(lock_dir)}/{LOCK_FILE_NAME}"
        self.expire_seconds = expire_minutes * 60.0
        self.poll = max(poll_ms, 1) / 1000.0
        self.storage = storage or Storage()
        self._token: str | None = None

    def try_lock(self, timeout: float, purpose: str) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            token = uuid.uuid4().hex
            note = {"token": token, "host": socket.gethostname(), "pid": os.getpid(),
                    "thread": threading.current_thread().name, "purpose": purpose,
                    "acquired": time.strftime("%Y-%m-%d %H:%M:%S")}
            if self.storage.create_exclusive(self.path, json.dumps(note).encode()):
                self._token = token
                return True
            self._take_over_if_expired()
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(self.poll, max(0.0, deadline - time.monotonic())))

    def _take_over_if_expired(self) -> None:
        if self.expire_seconds <= 0:
            return
        mtime = self.storage.modification_time(self.path)
        if mtime is not None and time.time() - mtime > self.expire_seconds:
            _log.warning("Deleting expired lock file %s (held by %s).", self.path, self.holder() or "unknown")
            self.storage.delete(self.path)

    def unlock(self) -> None:
        token, self._token = self._token, None
        if token is None:
            return
        if self._note().get("token") == token:
            self.storage.delete(self.path)
        else:  # taken over after expiry: the file is someone else's now
            _log.warning("Lock file %s no longer ours at release (expired and taken over).", self.path)

    def _note(self) -> dict[str, object]:
        try:
            note = json.loads(self.storage.read_bytes(self.path) or b"{}")
        except (OSError, ValueError):
            return {}
        return note if isinstance(note, dict) else {}

    def holder(self) -> str:
        note = self._note()
        if not note:
            return ""
        return (f"process {note.get('pid')} on {note.get('host')} (thread {note.get('thread')}, "
                f"{note.get('purpose')}, since {note.get('acquired')}; lock file {self.path})")

    def close(self) -> None:
        """Nothing is held open between attempts."""


@dataclass
class _ProcessLock:
    """The in-process layer of one table's lock: shared by every thread of this process."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    owner: int | None = None
    depth: int = 0
    purpose: str = ""
    since: float = 0.0
    external: CrossProcessLock | None = None


_PROCESS_LOCKS: dict[str, _ProcessLock] = {}
_PROCESS_LOCKS_GUARD = threading.Lock()


def _process_lock(key: str) -> _ProcessLock:
    with _PROCESS_LOCKS_GUARD:
        return _PROCESS_LOCKS.setdefault(key, _ProcessLock())


class TableLock:
    """The lock of one table, as a ``TimelineWriter`` takes it (``lock(purpose)`` / ``unlock()``)."""

    def __init__(self, base_path: str, config: ConcurrencyConfig) -> None:
        self.base_path = qualify(base_path)
        self.config = config
        self._state = _process_lock(self.base_path)

    def _cross_process(self) -> CrossProcessLock | None:
        provider = self.config.lock_provider
        if provider == IN_PROCESS_LOCK_PROVIDER:
            return None
        if provider == FILE_SYSTEM_LOCK_PROVIDER:
            folder = self.config.filesystem_lock_path or TableLayout.of(self.base_path).meta_path
            return FileSystemLockProvider(folder, self.config.filesystem_lock_expire_minutes,
                                          self.config.lock_retry_wait_ms)
        if provider == STORAGE_LOCK_PROVIDER:
            return StorageLockProvider(self.base_path, self.config)
        if provider == HIVE_METASTORE_LOCK_PROVIDER:
            return HiveMetastoreLockProvider(self.config)
        raise HudiConfigError(f"Unknown '{HudiConcurrencyConfig.LOCK_PROVIDER.key}': {provider}.")

    def lock(self, purpose: str) -> None:
        state = self._state
        me = threading.get_ident()
        if state.owner == me:
            state.depth += 1
            return
        config = self.config
        attempts = config.lock_client_num_retries + 1
        wait = config.lock_wait_time_ms / 1000.0
        external = self._cross_process()
        started = time.monotonic()
        for attempt in range(attempts):
            if state.lock.acquire(timeout=wait):
                try:
                    if external is None or external.try_lock(wait, purpose):
                        state.owner, state.depth, state.purpose, state.since = me, 1, purpose, time.time()
                        state.external = external
                        _log.debug("Table lock of %s taken for %s.", self.base_path, purpose)
                        return
                except BaseException:
                    state.lock.release()
                    if external is not None:
                        external.close()
                    raise
                state.lock.release()
            if attempt + 1 < attempts:
                time.sleep(config.lock_client_retry_wait_ms / 1000.0)
        held_by = self.holder(external)
        if external is not None:
            external.close()
        raise LockTimeoutError(
            f"Could not take the lock of table '{self.base_path}' for '{purpose}' in "
            f"{time.monotonic() - started:.1f}s ({attempts} attempts): held by {held_by}.",
            help=f"another writer is committing; raise '{HudiConcurrencyConfig.LOCK_WAIT_TIME_MS.key}' or "
                 f"'{HudiConcurrencyConfig.LOCK_CLIENT_NUM_RETRIES.key}', or remove a lock file left by a "
                 "killed writer",
        )

    def holder(self, external: CrossProcessLock | None = None) -> str:
        state = self._state
        if state.owner is not None:
            thread = next((t.name for t in threading.enumerate() if t.ident == state.owner), str(state.owner))
            return (f"thread '{thread}' of this process ({state.purpose}, for "
                    f"{time.time() - state.since:.1f}s)")
        if external is not None:
            return external.holder() or "another process (the lock was released meanwhile)"
        return "unknown"

    def unlock(self) -> None:
        state = self._state
        if state.owner != threading.get_ident():
            raise RuntimeError(f"Table lock of {self.base_path} released by a thread that does not hold it.")
        state.depth -= 1
        if state.depth:
            return
        external, state.external = state.external, None
        state.owner, state.purpose = None, ""
        try:
            if external is not None:
                external.unlock()
        finally:
            state.lock.release()


def table_lock(base_path: str, config: ConcurrencyConfig) -> TableLock:
    """The lock of the table at *base_path* under *config*."""
    return TableLock(base_path, config)

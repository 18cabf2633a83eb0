"""``StorageBasedLockProvider``: the table lock as a lease in one object, kept with conditional writes.

Several writers on an S3, GCS or Azure bucket need a lock no ZooKeeper, DynamoDB or metastore
holds. Apache Hudi 1.1's answer, followed here to the byte so that its writers and ours exclude
each other, is one object per table, ``<base>/.hoodie/.locks/table_lock.json``::

    {"expired": false, "validUntil": 1764450000000, "owner": "5f0c…-uuid"}

* **Acquire.** Read the object. It is free when absent, marked ``expired`` (released), or its
  ``validUntil`` (epoch ms) lies more than half a second in the past (a holder that died: the
  half second allows for clock drift between hosts). A free lock is taken by writing a new lease
  (``validUntil`` = now + ``hoodie.write.lock.storage.validity.timeout.secs``) with a
  precondition: ``If-None-Match: *`` when there was no object, ``If-Match: <etag read>``
  otherwise. Of two writers racing for it, the store lets exactly one PUT through; the other
  sees a failed precondition and waits (polling every
  ``hoodie.write.lock.wait_time_ms_between_retry``).
* **Renew.** While held, a daemon thread extends ``validUntil`` every
  ``hoodie.write.lock.storage.renew.interval.secs`` with ``If-Match`` on the holder's own
  version. A failed renewal means the lease lapsed and another writer took it: logged as an
  error, and the release that follows leaves the other writer's lease alone.
* **Release.** Write ``"expired": true`` with ``If-Match``; the object stays (as in Apache Hudi),
  so the next acquire replaces it rather than creating it.

A writer killed while holding the lock blocks the others for the rest of its lease at most
(five minutes by default), with no operator step. Local paths and HDFS have no conditional
writes here, and Apache Hudi refuses them too: a clear error names the providers that fit.
"""

from __future__ import annotations

__all__ = ["LOCKS_FOLDER", "LOCK_FILE", "StorageLockProvider"]

import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass

from hudi_sql.config.concurrency import ConcurrencyConfig
from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.storage.conditional import ConditionalObjects, Versioned
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout

_log = logging.getLogger(__name__)

LOCKS_FOLDER = ".locks"
LOCK_FILE = "table_lock.json"
#: How far another host's clock may run ahead of ours before its lease counts as lapsed.
CLOCK_DRIFT_MS = 500


@dataclass(frozen=True)
class Lease:
    """The content of ``table_lock.json``."""

    expired: bool
    valid_until_ms: int
    owner: str

    @classmethod
    def parse(cls, data: bytes) -> Lease | None:
        """The lease in *data*; ``None`` for an object that is not one (which then counts as held:
        a lock file nobody can read is not taken over silently)."""
        try:
            note = json.loads(data)
            return cls(bool(note["expired"]), int(note["validUntil"]), str(note["owner"]))
        except (ValueError, KeyError, TypeError):
            return None

    def encode(self) -> bytes:
        return json.dumps({"expired": self.expired, "validUntil": self.valid_until_ms, "owner": self.owner}).encode()

    def is_live(self, now_ms: int) -> bool:
        return not self.expired and now_ms <= self.valid_until_ms + CLOCK_DRIFT_MS


def _now_ms() -> int:
    return int(time.time() * 1000)


class StorageLockProvider:
    """The cross-process layer of :class:`~hudi_sql.commit.locks.TableLock` on an object store."""

    def __init__(self, base_path: str, config: ConcurrencyConfig, storage: Storage | None = None) -> None:
        layout = TableLayout.of(base_path)
        self.path = f"{layout.meta_path}/{LOCKS_FOLDER}/{LOCK_FILE}"
        storage = storage or Storage.for_path(base_path)
        try:
            self.objects: ConditionalObjects = storage.conditional(self.path)
        except UnsupportedFeatureError as error:
            raise UnsupportedFeatureError(
                f"StorageBasedLockProvider needs conditional writes, which the store of '{base_path}' does not offer.",
                help="on a local or shared file system use org.apache.hudi.client.transaction.lock."
                     "FileSystemBasedLockProvider; anywhere, org.apache.hudi.hive.transaction.lock."
                     "HiveMetastoreBasedLockProvider") from error
        self.owner = str(uuid.uuid4())
        self.validity_ms = config.storage_lock_validity_secs * 1000
        self.renew_seconds = float(config.storage_lock_renew_secs)
        self.poll = max(config.lock_retry_wait_ms, 1) / 1000.0
        self._guard = threading.Lock()
        self._version: str | None = None
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self._seen: Versioned | None = None

    # -- CrossProcessLock --------------------------------------------------------------------

    def try_lock(self, timeout: float, purpose: str) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if self._acquire_once():
                _log.debug("Storage lock %s taken by %s for %s.", self.path, self.owner, purpose)
                self._start_renewing()
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(self.poll, max(0.0, deadline - time.monotonic())))

    def unlock(self) -> None:
        self._stop_renewing()
        with self._guard:
            version, self._version = self._version, None
            if version is None:
                return
            released = Lease(True, _now_ms(), self.owner).encode()
            if self.objects.replace(self.path, released, version) is None:
                _log.warning("Storage lock %s was no longer ours at release (its lease lapsed and another "
                             "writer took it).", self.path)

    def holder(self) -> str:
        current = self._seen or self.objects.read(self.path)
        if current is None:
            return ""
        lease = Lease.parse(current.data)
        if lease is None:
            return f"an unreadable lock file {self.path} (delete it if no writer is running)"
        until = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(lease.valid_until_ms / 1000))
        return f"owner {lease.owner} (lease valid until {until}; lock file {self.path})"

    def close(self) -> None:
        """Nothing is held open between attempts."""
        self._stop_renewing()

    # -- the lease ---------------------------------------------------------------------------

    def _acquire_once(self) -> bool:
        current = self.objects.read(self.path)
        self._seen = current
        if current is not None:
            lease = Lease.parse(current.data)
            if lease is None or lease.is_live(_now_ms()):
                return False
            if not lease.expired:
                _log.warning("Taking over the lapsed storage lock of owner %s (%s).", lease.owner, self.path)
        new = Lease(False, _now_ms() + self.validity_ms, self.owner).encode()
        version = (self.objects.create(self.path, new) if current is None
                   else self.objects.replace(self.path, new, current.version))
        if version is None:  # another writer's PUT came first
            return False
        with self._guard:
            self._version = version
        return True

    def _renew(self) -> bool:
        with self._guard:
            if self._version is None:
                return False
            lease = Lease(False, _now_ms() + self.validity_ms, self.owner).encode()
            version = self.objects.replace(self.path, lease, self._version)
            if version is None:
                _log.error("Lost the storage lock %s: its lease lapsed before renewal and another writer took "
                           "it; this writer no longer excludes the others.", self.path)
                self._version = None
                return False
            self._version = version
            return True

    def _start_renewing(self) -> None:
        self._stop.clear()

        def renew() -> None:
            while not self._stop.wait(self.renew_seconds):
                try:
                    if not self._renew():
                        return
                except OSError as error:  # a failed request: try again at the next interval
                    _log.warning("Renewing the storage lock %s failed: %s", self.path, error)

        self._renewer = threading.Thread(target=renew, name=f"hudi-storage-lock-{self.owner[:8]}", daemon=True)
        self._renewer.start()

    def _stop_renewing(self) -> None:
        self._stop.set()
        renewer, self._renewer = self._renewer, None
        if renewer is not None and renewer is not threading.current_thread():
            renewer.join(timeout=5)

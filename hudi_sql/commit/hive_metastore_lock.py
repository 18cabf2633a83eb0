"""``HiveMetastoreBasedLockProvider``: the table lock held by a Hive metastore.

For writers that share a metastore but not a file system with atomic exclusive create (object
stores), or that already run a metastore and want no lock files. The lock is Hive's own: an
``EXCLUSIVE`` table-level lock on (``hoodie.write.lock.hivemetastore.database``,
``hoodie.write.lock.hivemetastore.table``) taken with the metastore's ``lock`` call, the lock
Apache Hudi's provider takes for the same pair (a mixed pair of writers is not tested yet). The
table need not exist in the metastore.

How it behaves:

* **Waiting.** The metastore queues a request that conflicts with a held lock (state
  ``WAITING``); the provider polls ``checkLock`` every
  ``hoodie.write.lock.wait_time_ms_between_retry`` until it is granted or the attempt's time is
  up, then withdraws the request (``unlock``), so a writer that gave up never holds the lock
  later. Apache Hudi withdraws at once and retries through its lock manager; polling keeps the
  request's place in the metastore's queue, so waiting writers are served in order.
* **Renewal.** The metastore drops a lock that is not renewed within its ``hive.txn.timeout``
  (300 s by default): a daemon thread renews it every ``hoodie.write.lock.heartbeat_interval_ms``.
  A writer that dies stops renewing, so its lock is freed by the metastore itself after that
  timeout; no operator step is needed.
* **Holder.** A timed-out writer names the holder from ``showLocks``: lock id, user, host and
  since when, plus what it is doing (the request's agent info).

The metastore needs Hive's transaction tables (created by ``schematool -initSchema`` on a
production metastore); the client runs in the driver's JVM through py4j, the Hive client jars
being part of PySpark, so this needs an active SparkSession in the writing process.
"""

from __future__ import annotations

__all__ = ["HiveMetastoreLockProvider"]

import getpass
import logging
import os
import re
import socket
import threading
import time
from typing import Any

from hudi_sql.config.concurrency import ConcurrencyConfig, HudiConcurrencyConfig
from hudi_sql.errors import HudiConfigError, HudiError

_log = logging.getLogger(__name__)

_ACQUIRED, _WAITING = "ACQUIRED", "WAITING"


def _session_jvm() -> Any:
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    if context is None or context._jvm is None:
        raise HudiConfigError(
            "HiveMetastoreBasedLockProvider needs an active SparkSession in this process (its metastore "
            "client runs in the session's JVM).",
            help="start the session before writing, or use FileSystemBasedLockProvider")
    return context._jvm


class HiveMetastoreLockProvider:
    """One acquisition of the metastore lock; :class:`~hudi_sql.commit.locks.TableLock` makes
    one per outermost transition and releases it with :meth:`unlock`."""

    def __init__(self, config: ConcurrencyConfig, jvm: Any | None = None) -> None:
        if not (config.hive_metastore_database and config.hive_metastore_table):
            raise HudiConfigError(f"'{HudiConcurrencyConfig.HIVE_METASTORE_DATABASE.key}' and "
                                  f"'{HudiConcurrencyConfig.HIVE_METASTORE_TABLE.key}' name the lock.")
        self.database = config.hive_metastore_database
        self.table = config.hive_metastore_table
        self.poll = max(config.lock_retry_wait_ms, 1) / 1000.0
        self.renew_every = max(config.lock_heartbeat_interval_ms, 1) / 1000.0
        self._jvm = jvm or _session_jvm()
        hive_conf = self._jvm.org.apache.hadoop.hive.conf.HiveConf()
        uris = config.hive_metastore_uris or str(hive_conf.get("hive.metastore.uris") or "")
        if not uris:
            raise HudiConfigError(
                "HiveMetastoreBasedLockProvider has no metastore to talk to.",
                help=f"set '{HudiConcurrencyConfig.HIVE_METASTORE_URIS.key}' (thrift://host:9083) or "
                     "hive.metastore.uris in the session")
        hive_conf.set("hive.metastore.uris", uris)
        self.uris = uris
        try:
            self._client = self._jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(hive_conf)
        except Exception as exc:
            raise HudiError(f"Cannot reach the Hive metastore at {uris} for the table lock: {exc}",
                            help=f"check '{HudiConcurrencyConfig.HIVE_METASTORE_URIS.key}'") from exc
        # The thrift client is not thread-safe: the renewal thread and the writer take turns.
        self._calls = threading.Lock()
        self._lock_id: int | None = None
        self._stop_renewal = threading.Event()

    def _call(self, method: str, *args: Any) -> Any:
        with self._calls:
            try:
                return getattr(self._client, method)(*args)
            except Exception as exc:
                raise HudiError(f"The Hive metastore at {self.uris} failed '{method}' for the lock of "
                                f"{self.database}.{self.table}: {exc}") from exc

    def _request(self, purpose: str) -> Any:
        api = self._jvm.org.apache.hadoop.hive.metastore.api
        component = api.LockComponent(api.LockType.EXCLUSIVE, api.LockLevel.TABLE, self.database)
        component.setTablename(self.table)
        component.setOperationType(api.DataOperationType.NO_TXN)
        components = self._jvm.java.util.ArrayList()
        components.add(component)
        request = api.LockRequest(components, getpass.getuser(), socket.gethostname())
        # Hive 2.x splices the agent info into its SQL unescaped: keep it to harmless characters.
        agent = re.sub(r"[^\w .:/@-]", "_", f"hudi-sql pid {os.getpid()}: {purpose}")[:128]
        request.setAgentInfo(agent)
        return request

    def try_lock(self, timeout: float, purpose: str) -> bool:
        deadline = time.monotonic() + timeout
        response = self._call("lock", self._request(purpose))
        lock_id, state = int(response.getLockid()), str(response.getState())
        while state == _WAITING and time.monotonic() < deadline:
            time.sleep(min(self.poll, max(0.0, deadline - time.monotonic())))
            state = str(self._call("checkLock", lock_id).getState())
        if state != _ACQUIRED:
            if state == _WAITING:  # withdraw the queued request: a writer that gave up must never get it
                self._call("unlock", lock_id)
            return False
        self._lock_id = lock_id
        self._stop_renewal.clear()
        threading.Thread(target=self._renew, args=(lock_id,), daemon=True,
                         name=f"hms-lock-renewal-{lock_id}").start()
        return True

    def _renew(self, lock_id: int) -> None:
        while not self._stop_renewal.wait(self.renew_every):
            try:
                self._call("heartbeat", 0, lock_id)
            except Exception:  # noqa: BLE001 - logged; a lock the metastore dropped fails at unlock
                if self._lock_id == lock_id:
                    _log.exception("Renewing Hive metastore lock %d failed.", lock_id)

    def unlock(self) -> None:
        lock_id, self._lock_id = self._lock_id, None
        self._stop_renewal.set()
        try:
            if lock_id is not None:
                self._call("unlock", lock_id)
        finally:
            self.close()

    def close(self) -> None:
        try:
            self._call("close")
        except Exception:  # noqa: BLE001 - a dead connection has nothing left to close
            _log.debug("Closing the metastore client failed.", exc_info=True)

    def holder(self) -> str:
        try:
            api = self._jvm.org.apache.hadoop.hive.metastore.api
            request = api.ShowLocksRequest()
            request.setDbname(self.database)
            request.setTablename(self.table)
            elements = self._call("showLocks", request).getLocks()
        except Exception:  # noqa: BLE001 - the message goes on without the holder
            return ""
        held = [e for e in elements if str(e.getState()) == _ACQUIRED and int(e.getLockid()) != self._lock_id]
        return "; ".join(
            f"Hive metastore lock {e.getLockid()} of {e.getUser()}@{e.getHostname()} ({e.getAgentInfo()}, since "
            f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(int(e.getAcquiredat()) / 1000))}) on "
            f"{self.database}.{self.table} at {self.uris}" for e in held)

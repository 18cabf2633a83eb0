"""Several writers on one table: concurrency mode, heartbeats, locks and conflict retries.

Keys and defaults are Apache Hudi 0.15's (``HoodieWriteConfig``, ``HoodieLockConfig``,
``HoodieCleanConfig``); the mechanisms live in :mod:`hudi_sql.commit.locks` and
:mod:`hudi_sql.commit.heartbeat`. :class:`ConcurrencyConfig` is the typed, frozen view the
commit protocol takes, resolved once per write from the layered options.

One deliberate difference: Apache Hudi defaults ``hoodie.write.lock.provider`` to its
ZooKeeper provider (used only under optimistic concurrency). Here the default is the
in-process lock, which every transition takes even with a single writer, so threads and
HiveServer2 sessions of one Python process never interleave timeline changes.
"""

from __future__ import annotations

__all__ = [
    "FILE_SYSTEM_LOCK_PROVIDER",
    "HIVE_METASTORE_LOCK_PROVIDER",
    "IN_PROCESS_LOCK_PROVIDER",
    "STORAGE_LOCK_PROVIDER",
    "ConcurrencyConfig",
    "FailedWritesPolicy",
    "HudiConcurrencyConfig",
    "WriteConcurrencyMode",
    "shared_writer_defaults",
]

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from hudi_sql.config.registry import (
    ConfigOption,
    ConfigScope,
    HudiConfigs,
    parse_bool,
    parse_enum_name,
    parse_int,
    parse_str,
)
from hudi_sql.config.write import HudiWriteConfig
from hudi_sql.errors import HudiConfigError

IN_PROCESS_LOCK_PROVIDER = "org.apache.hudi.client.transaction.lock.InProcessLockProvider"
FILE_SYSTEM_LOCK_PROVIDER = "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider"
HIVE_METASTORE_LOCK_PROVIDER = "org.apache.hudi.hive.transaction.lock.HiveMetastoreBasedLockProvider"
STORAGE_LOCK_PROVIDER = "org.apache.hudi.client.transaction.lock.StorageBasedLockProvider"
_SIMPLE_STRATEGY = ("org.apache.hudi.client.transaction."
                    "SimpleConcurrentFileWritesConflictResolutionStrategy")
_BUCKET_STRATEGY = ("org.apache.hudi.client.transaction."
                    "BucketIndexConcurrentFileWritesConflictResolutionStrategy")


class WriteConcurrencyMode(str, Enum):
    """Hudi's ``WriteConcurrencyMode``."""

    SINGLE_WRITER = "SINGLE_WRITER"
    """One writer at a time; a second one finding a live pending write is refused."""
    OPTIMISTIC_CONCURRENCY_CONTROL = "OPTIMISTIC_CONCURRENCY_CONTROL"
    """Writers run side by side; at commit, under the lock, the later of two that touched the
    same file group fails."""

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: str) -> WriteConcurrencyMode:
        return parse_enum_name(cls, value, "a concurrency mode")


class FailedWritesPolicy(str, Enum):
    """Hudi's ``HoodieFailedWritesCleaningPolicy``: when a pending write counts as failed."""

    EAGER = "EAGER"
    """The next write rolls back pending writes whose heartbeat is not alive."""
    LAZY = "LAZY"
    """Pending writes are rolled back only once their heartbeat expired (required with OCC)."""
    NEVER = "NEVER"
    """Failed writes are left on the timeline."""

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: str) -> FailedWritesPolicy:
        return parse_enum_name(cls, value, "a failed-writes policy")


class HudiConcurrencyConfig(ConfigScope):
    """Several writers on one table: concurrency mode, heartbeats, lock provider, conflicts (docs/concurrency.md)."""

    CONCURRENCY_MODE = ConfigOption(
        "hoodie.write.concurrency.mode", WriteConcurrencyMode.parse, WriteConcurrencyMode.SINGLE_WRITER,
        "SINGLE_WRITER (a second live writer is refused) or OPTIMISTIC_CONCURRENCY_CONTROL (writers run "
        "side by side; conflicting commits fail under the lock).", tuple(m.value for m in WriteConcurrencyMode))
    HEARTBEAT_INTERVAL_MS = ConfigOption(
        "hoodie.client.heartbeat.interval_in_ms", parse_int, 60 * 1000,
        "How often a running write or table service touches .hoodie/.heartbeat/<instant>.")
    HEARTBEAT_TOLERABLE_MISSES = ConfigOption(
        "hoodie.client.heartbeat.tolerable.misses", parse_int, 2,
        "Intervals without a heartbeat after which a pending instant counts as failed.")
    LOCK_PROVIDER = ConfigOption(
        "hoodie.write.lock.provider", parse_str, IN_PROCESS_LOCK_PROVIDER,
        "Lock around every timeline transition: InProcessLockProvider (threads and sessions of one "
        "process), FileSystemBasedLockProvider (processes sharing the table's file system), "
        "StorageBasedLockProvider (writers sharing an S3, GCS or Azure bucket: a lease in "
        ".hoodie/.locks/table_lock.json kept with conditional writes) or HiveMetastoreBasedLockProvider "
        "(writers anywhere that reach one Hive metastore).",
        (IN_PROCESS_LOCK_PROVIDER, FILE_SYSTEM_LOCK_PROVIDER, STORAGE_LOCK_PROVIDER, HIVE_METASTORE_LOCK_PROVIDER))
    LOCK_WAIT_TIME_MS = ConfigOption(
        "hoodie.write.lock.wait_time_ms", parse_int, 60 * 1000,
        "How long one acquire attempt at the lock provider waits.")
    LOCK_NUM_RETRIES = ConfigOption(
        "hoodie.write.lock.num_retries", parse_int, 15,
        "Attempts inside one provider acquire; accepted for Apache Hudi jobs (ZooKeeper only).",
        (), (), False)
    LOCK_RETRY_WAIT_MS = ConfigOption(
        "hoodie.write.lock.wait_time_ms_between_retry", parse_int, 1000,
        "How often the file-system lock provider looks at a held lock file again while it waits.")
    LOCK_RETRY_MAX_WAIT_MS = ConfigOption(
        "hoodie.write.lock.max_wait_time_ms_between_retry", parse_int, 16000,
        "Back-off bound of the ZooKeeper provider; accepted for Apache Hudi jobs.", (), (), False)
    LOCK_CLIENT_NUM_RETRIES = ConfigOption(
        "hoodie.write.lock.client.num_retries", parse_int, 50,
        "Further acquire attempts by the lock manager after the first one timed out.")
    LOCK_CLIENT_RETRY_WAIT_MS = ConfigOption(
        "hoodie.write.lock.client.wait_time_ms_between_retry", parse_int, 5000,
        "Pause of the lock manager between two acquire attempts.")
    FILESYSTEM_LOCK_PATH = ConfigOption(
        "hoodie.write.lock.filesystem.path", parse_str, None,
        "Folder of the file-system lock's file `lock` (default: the table's .hoodie folder).")
    FILESYSTEM_LOCK_EXPIRE = ConfigOption(
        "hoodie.write.lock.filesystem.expire", parse_int, 0,
        "Minutes after which a file-system lock is taken over as abandoned (0: never).")
    STORAGE_LOCK_VALIDITY_SECS = ConfigOption(
        "hoodie.write.lock.storage.validity.timeout.secs", parse_int, 300,
        "How long a storage-based lock's lease lasts unless renewed: a writer that dies holding it "
        "blocks the others this long at most.", minimum=10)
    STORAGE_LOCK_RENEW_SECS = ConfigOption(
        "hoodie.write.lock.storage.renew.interval.secs", parse_int, 30,
        "How often the holder of a storage-based lock renews its lease (at most a tenth of the validity).",
        (), ("hoodie.write.lock.storage.heartbeat.poll.secs",), minimum=1)
    HIVE_METASTORE_DATABASE = ConfigOption(
        "hoodie.write.lock.hivemetastore.database", parse_str, None,
        "Database of the Hive metastore lock: HiveMetastoreBasedLockProvider locks this table name "
        "(required with that provider).")
    HIVE_METASTORE_TABLE = ConfigOption(
        "hoodie.write.lock.hivemetastore.table", parse_str, None,
        "Table name of the Hive metastore lock (required with HiveMetastoreBasedLockProvider; the "
        "table need not exist in the metastore).")
    HIVE_METASTORE_URIS = ConfigOption(
        "hoodie.write.lock.hivemetastore.uris", parse_str, None,
        "Thrift URIs of the metastore holding the lock (default: the session's hive.metastore.uris).")
    LOCK_HEARTBEAT_INTERVAL_MS = ConfigOption(
        "hoodie.write.lock.heartbeat_interval_ms", parse_int, 60 * 1000,
        "How often a held Hive metastore lock is renewed (the metastore drops a lock not renewed "
        "within its hive.txn.timeout).")
    CONFLICT_RESOLUTION_STRATEGY = ConfigOption(
        "hoodie.write.lock.conflict.resolution.strategy", parse_str, _SIMPLE_STRATEGY,
        "Which concurrent commits conflict: the simple file-group strategy; bucket-index tables compare "
        "buckets whatever is set.", (_SIMPLE_STRATEGY, _BUCKET_STRATEGY))
    EARLY_CONFLICT_DETECTION = ConfigOption(
        "hoodie.write.concurrency.early.conflict.detection.enable", parse_bool, False,
        "Check for conflicts when the write starts as well as at commit.")
    NUM_RETRIES_ON_CONFLICT = ConfigOption(
        "hoodie.write.num.retries.on.conflict.failures", parse_int, 0,
        "Times hudi_sql.write and SQL DML run a write again, on a fresh view of the table, after "
        "it lost a conflict.")


@dataclass(frozen=True)
class ConcurrencyConfig:
    """The concurrency options of one write, typed and checked together."""

    mode: WriteConcurrencyMode = WriteConcurrencyMode.SINGLE_WRITER
    failed_writes: FailedWritesPolicy = FailedWritesPolicy.EAGER
    heartbeat_interval_ms: int = 60 * 1000
    heartbeat_tolerable_misses: int = 2
    lock_provider: str = IN_PROCESS_LOCK_PROVIDER
    lock_wait_time_ms: int = 60 * 1000
    lock_retry_wait_ms: int = 1000
    lock_client_num_retries: int = 50
    lock_client_retry_wait_ms: int = 5000
    filesystem_lock_path: str | None = None
    filesystem_lock_expire_minutes: int = 0
    hive_metastore_database: str | None = None
    hive_metastore_table: str | None = None
    hive_metastore_uris: str | None = None
    lock_heartbeat_interval_ms: int = 60 * 1000
    storage_lock_validity_secs: int = 300
    storage_lock_renew_secs: int = 30
    early_conflict_detection: bool = False
    retries_on_conflict: int = 0

    @classmethod
    def of(cls, configs: HudiConfigs) -> ConcurrencyConfig:
        """Resolve and check the options (OCC implies LAZY; EAGER with OCC is refused)."""
        c = HudiConcurrencyConfig
        mode = configs.get(c.CONCURRENCY_MODE)
        policy_key = HudiWriteConfig.FAILED_WRITES_CLEANER_POLICY
        occ = mode is WriteConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL
        if configs.is_set(policy_key):
            policy = FailedWritesPolicy.parse(str(configs.get(policy_key)))
        else:
            policy = FailedWritesPolicy.LAZY if occ else FailedWritesPolicy.EAGER
        if occ and policy is FailedWritesPolicy.EAGER:
            raise HudiConfigError(
                f"'{c.CONCURRENCY_MODE.key}={mode.value}' needs '{policy_key.key}=LAZY'.",
                help="with several writers, only instants whose heartbeat expired may be rolled back")
        interval, misses = configs.get(c.HEARTBEAT_INTERVAL_MS), configs.get(c.HEARTBEAT_TOLERABLE_MISSES)
        if interval <= 0 or misses <= 0:
            raise HudiConfigError(f"'{c.HEARTBEAT_INTERVAL_MS.key}' and '{c.HEARTBEAT_TOLERABLE_MISSES.key}' "
                                  "must be positive.")
        provider = configs.get(c.LOCK_PROVIDER).strip()
        database, table = configs.get(c.HIVE_METASTORE_DATABASE), configs.get(c.HIVE_METASTORE_TABLE)
        if provider == HIVE_METASTORE_LOCK_PROVIDER and not (database and table):
            raise HudiConfigError(
                f"'{c.LOCK_PROVIDER.key}={provider}' needs '{c.HIVE_METASTORE_DATABASE.key}' and "
                f"'{c.HIVE_METASTORE_TABLE.key}'.",
                help="the metastore locks that database and table name; every writer of the table must name "
                     "the same pair")
        validity, renew = configs.get(c.STORAGE_LOCK_VALIDITY_SECS), configs.get(c.STORAGE_LOCK_RENEW_SECS)
        if provider == STORAGE_LOCK_PROVIDER and validity < 10 * renew:
            raise HudiConfigError(
                f"'{c.STORAGE_LOCK_VALIDITY_SECS.key}' ({validity}) must be at least ten times "
                f"'{c.STORAGE_LOCK_RENEW_SECS.key}' ({renew}).",
                help="a lease renewed that rarely could lapse while its holder is still committing")
        return cls(
            mode=mode, failed_writes=policy, heartbeat_interval_ms=interval, heartbeat_tolerable_misses=misses,
            lock_provider=provider,
            lock_wait_time_ms=max(0, configs.get(c.LOCK_WAIT_TIME_MS)),
            lock_retry_wait_ms=max(1, configs.get(c.LOCK_RETRY_WAIT_MS)),
            lock_client_num_retries=max(0, configs.get(c.LOCK_CLIENT_NUM_RETRIES)),
            lock_client_retry_wait_ms=max(0, configs.get(c.LOCK_CLIENT_RETRY_WAIT_MS)),
            filesystem_lock_path=configs.get(c.FILESYSTEM_LOCK_PATH),
            filesystem_lock_expire_minutes=max(0, configs.get(c.FILESYSTEM_LOCK_EXPIRE)),
            hive_metastore_database=database, hive_metastore_table=table,
            hive_metastore_uris=configs.get(c.HIVE_METASTORE_URIS),
            lock_heartbeat_interval_ms=max(1, configs.get(c.LOCK_HEARTBEAT_INTERVAL_MS)),
            storage_lock_validity_secs=validity, storage_lock_renew_secs=renew,
            early_conflict_detection=configs.get(c.EARLY_CONFLICT_DETECTION),
            retries_on_conflict=max(0, configs.get(c.NUM_RETRIES_ON_CONFLICT)),
        )

    @property
    def optimistic(self) -> bool:
        return self.mode is WriteConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL

    @property
    def heartbeat_expiry_seconds(self) -> float:
        """A heartbeat older than this is expired (Hudi: interval x tolerable misses)."""
        return self.heartbeat_interval_ms * self.heartbeat_tolerable_misses / 1000.0


def shared_writer_defaults(options: Mapping[str, str]) -> dict[str, str]:
    """The options a front end whose sessions write side by side (the HiveServer2 endpoint)
    starts each session with, unless *options* already choose.

    Beeline, PyHive and dbt users open several sessions against one server and write one table
    from them at once: the sessions run under optimistic concurrency control (failed writes
    rolled back lazily, once their heartbeat expired), so statements touching different file
    groups both commit, and of two touching the same file group the later fails (SQLSTATE
    40001) and is rolled back. The in-process lock, shared by all sessions of one process,
    orders the commits. Options naming a concurrency mode or failed-writes policy are kept.
    """
    mode, policy = HudiConcurrencyConfig.CONCURRENCY_MODE.key, HudiWriteConfig.FAILED_WRITES_CLEANER_POLICY.key
    if mode in options or policy in options:
        return {}
    return {mode: WriteConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL.value}

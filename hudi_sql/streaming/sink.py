"""``df.writeStream.format("hudi").start(path)``: each micro-batch upserted as one commit, once.

Why ``foreachBatch``: a Hudi write runs its own index lookup, shuffle and commit, which the data
source API does not allow (:mod:`hudi_sql.engine.datasource`), while ``foreachBatch`` hands the
driver each micro-batch as a DataFrame; :func:`hudi_sql.engine.write.write` then does the data work
in Spark tasks, on a standalone cluster as anywhere.

Exactly once, Apache Hudi's way. Every commit of the sink records its micro-batch in the
commit's extra metadata, ``_hudi_streaming_sink_checkpoint`` = ``{"<identifier>": "<batch id>"}``
(``hoodie.datasource.write.streaming.checkpoint.identifier``), so the batch id becomes visible
in the same atomic step as its rows. Spark replays the last micro-batch after a restart when it
had not recorded it as done; the sink then finds the id in the table and skips it. The same
check runs before every retry, so a try that failed after its commit completed is not applied
twice. A batch killed before its commit completed left only an inflight instant, which the
next write rolls back. Deletes are replayed regardless (a repeated delete changes nothing), as Apache Hudi does.

Failed micro-batches are tried again ``hoodie.datasource.write.streaming.retry.count`` times,
the wait doubling from ``retry.interval.ms``; when every try failed the query fails, unless
``ignore.failed.batch`` lets it go on without that batch.

Merge-On-Read: unless ``hoodie.datasource.write.streaming.disable.compaction`` (or
``hoodie.datasource.compaction.async.enable=false``), the sink compacts when
``hoodie.compact.inline.max.delta.commits`` deltacommits have accumulated. Apache Hudi runs that
compaction on a thread beside the stream; here it runs after the micro-batch's commit, before
the next micro-batch starts. Clean and archival follow every commit, as for any write.
"""

from __future__ import annotations

__all__ = ["SINK_CHECKPOINT_KEY", "StreamingSink", "last_committed_batch", "start_options"]

import json
import logging
import os
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hudi_sql.config import (
    HudiCompactionConfig,
    HudiConfigs,
    HudiStreamingConfig,
    HudiWriteConfig,
    TableType,
)
from hudi_sql.config.resolve import Resolved
from hudi_sql.config.scoped import StreamingConfig
from hudi_sql.engine.write_client import WriteClient
from hudi_sql.errors import HudiConfigError, HudiError
from hudi_sql.storage.fs import Storage
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.write.operation import WriteOperationType

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

_log = logging.getLogger(__name__)

#: The extra-metadata key of the batch ids (Apache Hudi's ``HoodieStreamingSink``).
SINK_CHECKPOINT_KEY = "_hudi_streaming_sink_checkpoint"

_locks_guard = threading.Lock()
_table_locks: dict[str, threading.Lock] = {}


def _table_lock(path: str) -> threading.Lock:
    """One lock per table in this process. A stopped query's last micro-batch may still be
    writing (Spark's ``stop()`` does not interrupt a ``foreachBatch`` function) when the query is
    started again; the new query's first batch waits for it instead of rolling its instant back."""
    key = os.path.abspath(path) if "://" not in path else path
    with _locks_guard:
        return _table_locks.setdefault(key, threading.Lock())


def last_committed_batch(meta: TableMetaClient, identifier: str) -> int | None:
    """The id of the last micro-batch stream *identifier* committed to the table, if any: the
    newest completed write whose checkpoint names *identifier* (other streams' commits and
    table services in between are passed over)."""
    for instant, raw in meta.extra_metadata_values(SINK_CHECKPOINT_KEY):
        try:
            checkpoint = json.loads(raw)
        except ValueError:
            _log.warning("Commit %s of '%s' has an unreadable %s: %r", instant.instant_time, meta.base_path,
                         SINK_CHECKPOINT_KEY, raw)
            continue
        if isinstance(checkpoint, dict) and identifier in checkpoint:
            return int(checkpoint[identifier])
    return None


class StreamingSink:
    """The ``foreachBatch`` function of one streaming query into the table at *path*."""

    def __init__(self, path: str, options: Mapping[str, str]) -> None:
        if not path:
            raise HudiConfigError("A Hudi streaming write needs the table's base path: "
                                  "writeStream.format('hudi').option('checkpointLocation', ...).start(path).")
        self.path = path
        configs = HudiConfigs.of(options)  # a bad option fails the query's start, not its first batch
        self.streaming = StreamingConfig.of(configs)
        self.identifier = self.streaming.checkpoint_identifier
        self.retries = self.streaming.retries
        self.retry_interval = self.streaming.retry_interval_ms / 1000.0
        self.ignore_failed_batch = self.streaming.ignore_failed_batch
        self.options = dict(options)
        client = WriteClient(path, self.options)  # resolves every write option now
        self.operation = client.config.operation
        self.table_type = client.config.table_type
        self.compaction_set = configs.is_set(HudiCompactionConfig.INLINE)

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        self.write_batch(batch, batch_id)

    def write_batch(self, batch: DataFrame, batch_id: int) -> None:
        """Upsert one micro-batch as one commit, unless the table already holds it."""
        with _table_lock(self.path):
            self._write_batch(batch, batch_id)

    def _write_batch(self, batch: DataFrame, batch_id: int) -> None:
        wait = self.retry_interval
        # the session's store keys (spark.hadoop.fs.s3a.* …), looked up per batch: set at any time
        storage = Storage.for_session(batch.sparkSession, self.options, self.path)
        for attempt in range(self.retries + 1):
            # Checked before every try: a try whose commit completed although the try failed
            # (its outcome unknown to it) must not be applied a second time.
            exists = TableMetaClient.exists(self.path, storage=storage)
            meta = TableMetaClient.load(self.path, storage=storage) if exists else None
            if self._holds(meta, batch_id):
                return
            table_type = meta.table_type if meta is not None else self.table_type
            options = {**self.options, **self._compaction_options(table_type),
                       SINK_CHECKPOINT_KEY: json.dumps({self.identifier: str(batch_id)})}
            try:
                result = WriteClient(self.path, options).write(batch)
                _log.info("Micro-batch %d of stream '%s' committed as %s.", batch_id, self.identifier,
                          result.instant_time or "no commit (an empty batch)")
                return
            except HudiConfigError:
                raise  # the same options fail every try
            except Exception as exc:  # any failure of the write is tried again
                if attempt < self.retries:
                    _log.warning("Micro-batch %d of stream '%s' failed (%s); trying again in %.1f s (%d of %d).",
                                 batch_id, self.identifier, exc, wait, attempt + 1, self.retries)
                    time.sleep(wait)
                    wait *= 2
                    continue
                if self.ignore_failed_batch:
                    _log.error("Micro-batch %d of stream '%s' failed every try and is skipped (%s=true): %s",
                               batch_id, self.identifier, HudiStreamingConfig.IGNORE_FAILED_BATCH.key, exc)
                    return
                raise HudiError(f"Micro-batch {batch_id} of the stream into '{self.path}' failed after "
                                f"{self.retries + 1} tries: {exc}",
                                help="the table is as it was before the batch; restart the query to resume "
                                     "from it") from exc

    def _compaction_options(self, table_type: TableType) -> dict[str, str]:
        """The compaction a Merge-On-Read stream runs by default (see the module notes)."""
        if table_type is not TableType.MERGE_ON_READ or not self.streaming.compacts or self.compaction_set:
            return {}
        return {HudiCompactionConfig.INLINE.key: "true"}

    def _holds(self, meta: TableMetaClient | None, batch_id: int) -> bool:
        """Whether the table already holds micro-batch *batch_id* of this stream (deletes are
        applied again regardless: a repeated delete changes nothing)."""
        if meta is None or self.operation is WriteOperationType.DELETE:
            return False
        last = last_committed_batch(meta, self.identifier)
        if last is None or batch_id > last:
            return False
        _log.warning("Skipping micro-batch %d of stream '%s': '%s' already holds it (last batch %d).",
                     batch_id, self.identifier, self.path, last)
        return True


def start_options(options: Mapping[str, str], partition_by: Any) -> dict[str, str]:
    """The sink's options, with ``partitionBy`` columns as the partition path fields when the
    options name none (Apache Hudi reads ``partitionBy`` the same way)."""
    merged = dict(options)
    if partition_by and not Resolved.of(merged).write.partition_path_fields:
        names = [partition_by] if isinstance(partition_by, str) else list(partition_by)
        merged[HudiWriteConfig.PARTITION_PATH_FIELDS.key] = ",".join(str(n) for n in names)
    return merged

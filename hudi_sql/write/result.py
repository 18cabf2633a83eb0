"""What a write returns, and the small helpers every write path shares on its way there.

Both the record writes (:mod:`hudi_sql.engine.write_client`) and the overwrite operations
(:mod:`hudi_sql.engine.overwrite`) turn their tasks' write-status rows into :class:`WriteStat`
values grouped by partition, and decide whether the input batch must be cached between the
profile and the execute job. They live here, below both, so that neither entry point imports
the other's internals.
"""

from __future__ import annotations

__all__ = ["PostCommitFailure", "WriteResult", "group_stats", "input_is_repeatable", "to_write_stat"]

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hudi_sql.model.commit_metadata import RuntimeStats, WriteStat

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class PostCommitFailure:
    """A table service or post-commit action that failed after the write's commit completed (the
    commit stands): which one, and its error."""

    service: str
    error: str


@dataclass(frozen=True)
class WriteResult:
    """What a write did: its instant and per-file statistics (no instant when nothing was written).

    ``post_commit_failures`` lists the inline services (compaction, clustering, clean, archival)
    and post-commit actions (Hive sync) that failed after the commit: the data is committed, but
    the table was not cleaned, synced, … as configured, and a caller that must know checks here.
    """

    instant_time: str | None
    operation: str
    write_stats: tuple[WriteStat, ...] = ()
    replaced_file_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)
    writer_pids: frozenset[int] = frozenset()  # diagnostics: processes that wrote the data files
    post_commit_failures: tuple[PostCommitFailure, ...] = ()
    #: the index's counts of its lookup (:class:`~hudi_sql.index.bloom.BloomIndexStats` for the bloom
    #: index), None when the write used no index or its index keeps none
    index_stats: object | None = None
    #: timeline-server markers: the MARKERS files the marker server wrote (0 with direct markers)
    marker_batches: int = 0

    @property
    def num_inserted(self) -> int:
        return sum(s.num_inserts for s in self.write_stats)

    @property
    def num_updated(self) -> int:
        return sum(s.num_update_writes for s in self.write_stats)

    @property
    def num_deleted(self) -> int:
        return sum(s.num_deletes for s in self.write_stats)

    @property
    def num_written(self) -> int:
        return sum(s.num_writes for s in self.write_stats)


def input_is_repeatable(df: DataFrame) -> bool:
    """Whether the write may evaluate *df* again and get the same records (Spark's own verdict on
    its plan: no ``rand()``, no nondeterministic UDF).

    The records are read twice, once to profile the workload (only the key and partition columns,
    which Parquet reads alone) and once to write them. Caching every column of the batch between
    the two costs more than reading it again, so only inputs Spark cannot repeat are cached.
    """
    try:
        return bool(df._jdf.queryExecution().analyzed().deterministic())
    except Exception:  # noqa: BLE001 - no JVM plan to ask (e.g. Spark Connect): cache to be safe
        return False


def to_write_stat(row: dict[str, Any]) -> WriteStat:
    """One task's write-status row (:data:`hudi_sql.spark.tasks.WRITE_STATUS_DDL`) as a stat."""
    delta = row.get("log_version") is not None and row["log_version"] >= 0
    return WriteStat(
        file_id=row["file_id"], path=row["path"], partition_path=row["partition_path"], prev_commit=row["prev_commit"],
        num_writes=row["num_writes"], num_deletes=row["num_deletes"], num_update_writes=row["num_update_writes"],
        num_inserts=row["num_inserts"], total_write_bytes=row["total_write_bytes"],
        file_size_in_bytes=row["file_size"],
        runtime_stats=RuntimeStats(0, row["total_upsert_time"] or 0, row["total_create_time"] or 0),
        log_version=row["log_version"] if delta else None, log_offset=row["log_offset"] if delta else None,
        base_file=row["base_file"] if delta else None,
        log_files=tuple(json.loads(row["log_files"])) if delta else None,
        total_log_blocks=row.get("total_log_blocks") or 0,
        cdc_stats=tuple(sorted(json.loads(row.get("cdc_stats") or "{}").items())) or None,
    )


def group_stats(stats: list[WriteStat]) -> dict[str, tuple[WriteStat, ...]]:
    """Stats by partition path, each partition's in file-id order (the commit metadata's order)."""
    grouped: dict[str, list[WriteStat]] = defaultdict(list)
    for stat in sorted(stats, key=lambda s: (s.partition_path or "", s.file_id)):
        grouped[stat.partition_path or ""].append(stat)
    return {p: tuple(s) for p, s in grouped.items()}

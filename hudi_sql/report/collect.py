"""The figures of a table health report, gathered from the timeline and the file listings.

:func:`collect_report` reads only what the table's metadata says: instant files of the active
timeline (commit metadata, compaction and clustering plans, savepoints), the listing of
``.hoodie/`` (file modification times, for durations) and the listings of partition folders
(file names and sizes). It never opens a data file, so a table with thousands of commits is
reported in the time it takes to parse their commit JSON.

Definitions (docs/report.md explains each figure):

* *records inserted / updated / deleted* of a commit: the sums of ``numInserts``,
  ``numUpdateWrites`` and ``numDeletes`` over its write stats; *records written*: ``numWrites``.
* *bytes written*: the sum of ``totalWriteBytes``.
* *write amplification*: bytes written ÷ bytes of changed records. Per write stat, the average
  record size of the file written is ``totalWriteBytes / numWrites``; the changed bytes are that
  size times the changed records (``numInserts + numUpdateWrites + numDeletes``), capped at the
  stat's bytes (a log block holds only changed records), and a stat that wrote no record (a
  delete block) counts all its bytes as changed. A Copy-On-Write update of one record in a file
  of a million thus shows about 10^6; an insert into a new file, or a log append, shows 1.
  Compaction and clustering change no record: their amplification is ``None``.
* *duration*: the completed instant file's modification time minus that of its inflight file
  (or requested file when there is no inflight one): how long the action ran. On timeline
  layout 2 without those files, completion time minus requested time. ``None`` otherwise.
* *what clean would remove*: the plan of :func:`hudi_sql.services.clean.plan_clean_from` under
  the configured policy, sized from the same listings; nothing is scheduled or deleted.
"""

from __future__ import annotations

__all__ = [
    "CleanPreview",
    "CommitStats",
    "InstantInfo",
    "PartitionStats",
    "PendingPlan",
    "SavepointInfo",
    "SliceStats",
    "TableReport",
    "collect_report",
    "report_configs",
]

import dataclasses
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from hudi_sql.config import HudiConfigs, TableType
from hudi_sql.config.operation import WriteOperationType
from hudi_sql.config.resolve import Resolved, resolve_options
from hudi_sql.config.scoped import CleanConfig
from hudi_sql.errors import HudiTimelineError
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action, Instant, State, parse_instant_time
from hudi_sql.report.recommendation import Recommendation
from hudi_sql.services.clean import load_clean_inputs, plan_clean_from
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient

#: Operations that rewrite records without changing any (no write amplification).
_SERVICE_OPERATIONS = frozenset({WriteOperationType.COMPACT.value, WriteOperationType.CLUSTER.value,
                                 "LOG_COMPACT"})


@dataclass(frozen=True)
class InstantInfo:
    """One instant of the active timeline in its furthest state."""

    instant_time: str
    action: str
    state: str
    duration_seconds: float | None = None


@dataclass(frozen=True)
class CommitStats:
    """What one completed commit, deltacommit or replacecommit wrote (from its write stats)."""

    instant_time: str
    action: str
    operation: str
    partitions: int
    files_written: int
    records_written: int
    records_inserted: int
    records_updated: int
    records_deleted: int
    bytes_written: int
    changed_bytes: int
    write_amplification: float | None
    duration_seconds: float | None
    compacted: bool = False


@dataclass(frozen=True)
class PartitionStats:
    """The latest file slices of one partition: sizes of base files, counts and bytes of logs."""

    partition: str
    file_groups: int
    base_files: int
    base_bytes: int
    log_files: int
    log_bytes: int
    small_files: int
    base_file_sizes: tuple[int, ...]


@dataclass(frozen=True)
class SliceStats:
    """The latest slice of one file group (Merge-On-Read: its logs waiting for compaction)."""

    partition: str
    file_id: str
    base_instant: str
    base_bytes: int
    log_files: int
    log_bytes: int


@dataclass(frozen=True)
class PendingPlan:
    """A scheduled compaction or clustering that has not completed."""

    instant_time: str
    kind: str  # "compaction" | "clustering"
    state: str
    file_groups: int
    log_files: int = 0
    partitions: int = 0


@dataclass(frozen=True)
class CleanPreview:
    """What a clean would delete now under the configured policy (a plan only; nothing ran)."""

    policy: str
    would_clean: bool
    earliest_commit_to_retain: str | None
    files: int
    bytes: int
    partitions_to_delete: tuple[str, ...] = ()
    files_by_partition: Mapping[str, int] = field(default_factory=dict)
    bytes_by_partition: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class SavepointInfo:
    instant_time: str
    savepointed_by: str
    savepointed_at: int
    comments: str
    files: int


@dataclass(frozen=True)
class TableReport:
    """Every figure of the report; :meth:`to_json` is what ``--format json`` prints."""

    table_name: str
    base_path: str
    table_type: str
    table_version: int
    generated_at: str
    settings: Mapping[str, Any]
    instants: tuple[InstantInfo, ...]
    commits: tuple[CommitStats, ...]
    partitions: tuple[PartitionStats, ...]
    slices: tuple[SliceStats, ...]
    pending_compactions: tuple[PendingPlan, ...]
    pending_clusterings: tuple[PendingPlan, ...]
    delta_commits_since_compaction: int | None
    last_compaction: str | None
    clean: CleanPreview
    savepoints: tuple[SavepointInfo, ...]
    #: the table's record key fields (``hoodie.table.recordkey.fields``; empty: generated keys)
    record_key_fields: tuple[str, ...] = ()
    #: what to change (:mod:`hudi_sql.report.advise`), filled in by the report's builder
    recommendations: tuple[Recommendation, ...] = ()

    @property
    def is_mor(self) -> bool:
        return self.table_type == TableType.MERGE_ON_READ.value

    def instant_counts(self) -> dict[str, dict[str, int]]:
        """action -> state -> number of instants."""
        out: dict[str, dict[str, int]] = {}
        for instant in self.instants:
            out.setdefault(instant.action, {}).setdefault(instant.state, 0)
            out[instant.action][instant.state] += 1
        return out

    def skew(self) -> dict[str, Any]:
        """Partition skew: the largest partition's bytes over the mean (1.0 is even)."""
        sizes = {p.partition: p.base_bytes + p.log_bytes for p in self.partitions}
        if not sizes or not any(sizes.values()):
            return {"largest_partition": None, "max_over_mean": None, "coefficient_of_variation": None}
        mean = statistics.fmean(sizes.values())
        largest = max(sizes, key=lambda p: sizes[p])
        cv = statistics.pstdev(sizes.values()) / mean if len(sizes) > 1 else 0.0
        return {"largest_partition": largest, "max_over_mean": sizes[largest] / mean,
                "coefficient_of_variation": cv}

    def summary(self) -> dict[str, Any]:
        completed = [i for i in self.instants if i.state == State.COMPLETED.value]
        return {
            "instants": len(self.instants),
            "completed_commits": len(self.commits),
            "pending_instants": len(self.instants) - len(completed),
            "partitions": len(self.partitions),
            "file_groups": sum(p.file_groups for p in self.partitions),
            "base_files": sum(p.base_files for p in self.partitions),
            "small_files": sum(p.small_files for p in self.partitions),
            "base_bytes": sum(p.base_bytes for p in self.partitions),
            "log_files": sum(p.log_files for p in self.partitions),
            "log_bytes": sum(p.log_bytes for p in self.partitions),
            "pending_compactions": len(self.pending_compactions),
            "pending_clusterings": len(self.pending_clusterings),
            "savepoints": len(self.savepoints),
        }

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (numbers, strings, lists, objects), keys in snake_case."""
        out: dict[str, Any] = {
            "table": {"name": self.table_name, "base_path": self.base_path, "table_type": self.table_type,
                      "table_version": self.table_version, "record_key_fields": list(self.record_key_fields)},
            "generated_at": self.generated_at,
            "settings": dict(self.settings),
            "summary": self.summary(),
            "instant_counts": self.instant_counts(),
            "instants": [dataclasses.asdict(i) for i in self.instants],
            "commits": [dataclasses.asdict(c) for c in self.commits],
            "partitions": [{**dataclasses.asdict(p), "base_file_sizes": list(p.base_file_sizes)}
                           for p in self.partitions],
            "skew": self.skew(),
            "clean": {**dataclasses.asdict(self.clean), "partitions_to_delete": list(self.clean.partitions_to_delete),
                      "files_by_partition": dict(self.clean.files_by_partition),
                      "bytes_by_partition": dict(self.clean.bytes_by_partition)},
            "savepoints": [dataclasses.asdict(s) for s in self.savepoints],
            "recommendations": [dataclasses.asdict(r) for r in self.recommendations],
        }
        if self.is_mor:
            out["merge_on_read"] = {
                "delta_commits_since_compaction": self.delta_commits_since_compaction,
                "last_compaction": self.last_compaction,
                "pending_compactions": [dataclasses.asdict(p) for p in self.pending_compactions],
                "file_slices": [dataclasses.asdict(s) for s in self.slices],
            }
        out["pending_clusterings"] = [dataclasses.asdict(p) for p in self.pending_clusterings]
        return out


# -- collecting -------------------------------------------------------------------------------


def report_configs(meta: TableMetaClient, options: Mapping[str, object] | None = None) -> HudiConfigs:
    """The options the report judges by: the table's properties, then *options* (checked keys)."""
    return resolve_options(table_properties=meta.properties, options=options)


def collect_report(meta: TableMetaClient, configs: HudiConfigs | Mapping[str, object] | None = None, *,
                   now: datetime | None = None) -> TableReport:
    """Gather every figure of the report of the table *meta* loaded.

    Args:
        meta: the table; its timeline is reloaded once (the clean planner's listing).
        configs: the options judged by (small-file limit, max file size, cleaner policy);
            they are layered over the table's properties and the registry defaults.
        now: the clock of ``KEEP_LATEST_BY_HOURS`` and of ``generated_at`` (default: now, UTC).
    """
    configs = report_configs(meta, configs.raw() if isinstance(configs, HudiConfigs) else configs)
    moment = now or datetime.now(timezone.utc)
    clean_inputs = load_clean_inputs(meta)  # reloads the timeline, lists every partition once
    timeline = meta.timeline
    file_times = _instant_file_times(meta)
    latest = timeline.latest_states()
    instants = tuple(
        InstantInfo(i.instant_time, i.action.value, i.state.value, _duration(i, file_times))
        for i in latest
    )
    durations = {(i.instant_time, i.action): i.duration_seconds for i in instants}
    commits = tuple(
        _commit_stats(instant, meta.commit_metadata(instant), durations.get((instant.instant_time,
                                                                             instant.action.value)))
        for instant in timeline.completed_writes()
    )
    resolved = Resolved.of(configs)
    small_limit, max_size = resolved.write.small_file_limit, resolved.write.max_file_size
    partitions, slices = _file_layout(meta, small_limit)
    clean_settings = resolved.clean
    is_mor = meta.table_type is TableType.MERGE_ON_READ
    deltas, last_compaction = _since_compaction(commits) if is_mor else (None, None)
    settings = {
        "small_file_limit": small_limit,
        "max_file_size": max_size,
        "cleaner_policy": clean_settings.policy.value,
        "cleaner_commits_retained": clean_settings.commits_retained,
        "cleaner_file_versions_retained": clean_settings.file_versions_retained,
        "cleaner_hours_retained": clean_settings.hours_retained,
        "compaction_max_delta_commits": resolved.compaction.max_delta_commits,
    }
    return TableReport(
        table_name=meta.table_name,
        base_path=meta.base_path,
        table_type=meta.table_type.value,
        table_version=meta.table_version,
        generated_at=moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        settings=settings,
        instants=instants,
        commits=commits,
        partitions=partitions,
        slices=slices if is_mor else (),
        pending_compactions=_pending_compactions(meta),
        pending_clusterings=_pending_clusterings(meta),
        delta_commits_since_compaction=deltas,
        last_compaction=last_compaction,
        clean=_clean_preview(clean_inputs, clean_settings, moment),
        savepoints=_savepoints(meta),
        record_key_fields=tuple(meta.record_key_fields),
    )


def _instant_file_times(meta: TableMetaClient) -> dict[tuple[str, str, str], float]:
    """(instant time, action, state) -> modification time of that instant file (epoch seconds).

    Keyed by the action the file carries: a compaction is requested and inflight as
    ``compaction`` and completes as ``commit``."""
    out: dict[tuple[str, str, str], float] = {}
    for status in meta.storage.list(meta.timeline_path):
        if status.is_dir:
            continue
        instant = Instant.parse_file_name(status.name, layout=meta.timeline_layout)
        if instant is not None:
            out[(instant.instant_time, instant.action.value, instant.state.value)] = status.modification_time
    return out


#: Pending actions that complete as another (their completed file carries that action).
_STARTED_AS = {Action.COMMIT: (Action.COMMIT, Action.COMPACTION),
               Action.DELTA_COMMIT: (Action.DELTA_COMMIT, Action.LOG_COMPACTION),
               Action.REPLACE_COMMIT: (Action.REPLACE_COMMIT, Action.CLUSTERING)}


def _duration(instant: Instant, file_times: Mapping[tuple[str, str, str], float]) -> float | None:
    if not instant.is_completed:
        return None
    end = file_times.get((instant.instant_time, instant.action.value, State.COMPLETED.value))
    if end is not None:
        for action in _STARTED_AS.get(instant.action, (instant.action,)):
            for state in (State.INFLIGHT, State.REQUESTED):
                start = file_times.get((instant.instant_time, action.value, state.value))
                if start is not None:
                    return max(end - start, 0.0)
    if instant.completion_time is not None:
        try:
            seconds = parse_instant_time(instant.completion_time) - parse_instant_time(instant.instant_time)
        except (ValueError, HudiTimelineError):  # digits that are no date (a hand-made timeline)
            return None
        return max(seconds.total_seconds(), 0.0)
    return None


def _commit_stats(instant: Instant, metadata: CommitMetadata, duration: float | None) -> CommitStats:
    stats = metadata.write_stats()
    written = sum(s.total_write_bytes for s in stats)
    changed = 0
    for s in stats:
        records = s.num_inserts + s.num_update_writes + s.num_deletes
        if s.num_writes <= 0:
            changed += s.total_write_bytes
        else:
            changed += min(s.total_write_bytes, round(s.total_write_bytes * records / s.num_writes))
    service = metadata.compacted or metadata.operation_type in _SERVICE_OPERATIONS
    amplification = written / changed if changed > 0 and not service else None
    return CommitStats(
        instant_time=instant.instant_time,
        action=instant.action.value,
        operation=metadata.operation_type,
        partitions=len(metadata.partition_to_write_stats),
        files_written=sum(1 for s in stats if s.path),
        records_written=sum(s.num_writes for s in stats),
        # a compaction or clustering rewrites records without changing one (its write stats count
        # the log records a compaction merged as updates): none inserted, updated or deleted
        records_inserted=0 if service else sum(s.num_inserts for s in stats),
        records_updated=0 if service else sum(s.num_update_writes for s in stats),
        records_deleted=0 if service else sum(s.num_deletes for s in stats),
        bytes_written=written,
        changed_bytes=changed,
        write_amplification=amplification,
        duration_seconds=duration,
        compacted=bool(metadata.compacted or metadata.operation_type == WriteOperationType.COMPACT.value),
    )


def _file_layout(meta: TableMetaClient, small_limit: int) -> tuple[tuple[PartitionStats, ...],
                                                                    tuple[SliceStats, ...]]:
    """Per partition, the latest file slice of every file group (what readers and writers see)."""
    view = FileSystemView(meta)
    partitions: list[PartitionStats] = []
    slices: list[SliceStats] = []
    if view.is_empty:
        return (), ()
    for partition in view.partition_paths():
        latest = view.latest_file_slices([partition])
        sizes = tuple(sorted(s.base_file.size for s in latest if s.base_file is not None))
        log_files = [lf for s in latest for lf in s.log_files]
        partitions.append(PartitionStats(
            partition=partition,
            file_groups=len(latest),
            base_files=len(sizes),
            base_bytes=sum(sizes),
            log_files=len(log_files),
            log_bytes=sum(lf.size for lf in log_files),
            small_files=sum(1 for size in sizes if size < small_limit),
            base_file_sizes=sizes,
        ))
        slices.extend(
            SliceStats(s.partition_path, s.file_id, s.base_instant_time,
                       s.base_file.size if s.base_file else 0, len(s.log_files), sum(lf.size for lf in s.log_files))
            for s in latest
        )
    return tuple(partitions), tuple(slices)


def _since_compaction(commits: tuple[CommitStats, ...]) -> tuple[int, str | None]:
    """Completed deltacommits after the last completed compaction (the inline trigger's count)."""
    last = next((c.instant_time for c in reversed(commits) if c.compacted), None)
    deltas = sum(1 for c in commits if c.action == Action.DELTA_COMMIT.value
                 and (last is None or c.instant_time > last))
    return deltas, last


def _pending_compactions(meta: TableMetaClient) -> tuple[PendingPlan, ...]:
    out = []
    for instant in meta.timeline.pending_compactions():
        plan = meta.compaction_plan(instant.instant_time)
        out.append(PendingPlan(
            instant.instant_time, "compaction", instant.state.value, len(plan.operations),
            log_files=sum(len(op.log_file_names) for op in plan.operations),
            partitions=len({op.partition_path for op in plan.operations}),
        ))
    return tuple(out)


def _pending_clusterings(meta: TableMetaClient) -> tuple[PendingPlan, ...]:
    out = []
    for instant in meta.pending_clustering_instants():
        inputs = meta.clustering_plan(instant.instant_time).input_file_groups()
        out.append(PendingPlan(instant.instant_time, "clustering", instant.state.value, len(inputs),
                               partitions=len({p for p, _ in inputs})))
    return tuple(out)


def _clean_preview(inputs: Any, settings: CleanConfig, now: datetime) -> CleanPreview:
    plan = plan_clean_from(inputs, settings, now=now)
    if plan is None:
        return CleanPreview(settings.policy.value, False, None, 0, 0)
    sizes = {status.path: status.size for listing in inputs.partitions.values() for status in listing}
    files_by = {p: len(paths) for p, paths in plan.files_to_delete.items()}
    bytes_by = {p: sum(sizes.get(path, 0) for path in paths) for p, paths in plan.files_to_delete.items()}
    ectr = plan.earliest_instant_to_retain
    return CleanPreview(
        policy=settings.policy.value,
        would_clean=True,
        earliest_commit_to_retain=ectr.instant_time if ectr else None,
        files=sum(files_by.values()),
        bytes=sum(bytes_by.values()),
        partitions_to_delete=tuple(plan.partitions_to_delete),
        files_by_partition=files_by,
        bytes_by_partition=bytes_by,
    )


def _savepoints(meta: TableMetaClient) -> tuple[SavepointInfo, ...]:
    out = []
    for instant in meta.timeline.completed().with_actions(Action.SAVEPOINT):
        metadata = meta.savepoint_metadata(instant.instant_time)
        out.append(SavepointInfo(instant.instant_time, metadata.savepointed_by, metadata.savepointed_at,
                                 metadata.comments, len(metadata.file_names())))
    return tuple(out)


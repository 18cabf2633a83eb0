"""What each instant file holds, as typed values, and the one table that encodes and decodes them.

Every state file of the timeline carries one payload (table version 6, Hudi 0.14):

=====================================  ========================  =================================
instant file                           encoding                  value here
=====================================  ========================  =================================
``<t>.commit`` / ``.deltacommit``      JSON                      :class:`CommitMetadata`
``<t>.replacecommit``, ``.inflight``   JSON                      :class:`CommitMetadata`
``<t>.replacecommit.requested``        Avro (may be empty)       :class:`ClusteringPlan` (or the
                                                                 all-null record of insert_overwrite)
``<t>.compaction.requested``           Avro                      :class:`CompactionPlan`
``<t>.clean.requested`` / ``.inflight`` Avro                     :class:`CleanerPlan`
``<t>.clean``                          Avro                      ``HoodieCleanMetadata`` record
``<t>.rollback.requested``             Avro                      :class:`RollbackPlan`
``<t>.rollback``                       Avro                      ``HoodieRollbackMetadata`` record
``<t>.savepoint``                      Avro                      :class:`SavepointMetadata`
``<t>.restore.requested``              Avro                      :class:`RestorePlan`
``<t>.restore``                        Avro                      ``HoodieRestoreMetadata`` record
=====================================  ========================  =================================

Table version 8 (timeline layout 2, Apache Hudi 1.x) keeps every row but the first two: commit
metadata, completed and inflight, is an Avro ``HoodieCommitMetadata`` (a completed replacecommit a
``HoodieReplaceCommitMetadata``), and a clustering is requested as ``<t>.clustering.requested``
holding the same ``HoodieRequestedReplaceMetadata`` as version 6's replacecommit.

The services build these values; :mod:`hudi_sql.commit.timeline_writer` publishes them through
:func:`encode_payload`, and :class:`~hudi_sql.table.meta_client.TableMetaClient` reads them back
through :func:`decode_record`, so each kind has one writer and one reader. Everything here is
pure: no storage, no Spark.

Paths in plans are absolute local paths in Python and ``file://`` URIs on disk, as Java writes
them; model may not import :mod:`hudi_sql.storage`, so the two conversions below follow
``storage.fs.to_uri`` / ``to_local_path``.
"""

from __future__ import annotations

__all__ = [
    "CLEAN_METADATA_VERSION",
    "CLEAN_PLAN_VERSION",
    "CLUSTER_OPERATION",
    "RESTORE_PLAN_VERSION",
    "SAVEPOINTED_TIMESTAMPS",
    "SORT_AND_SIZE_STRATEGY",
    "SORT_COLUMNS_PARAM",
    "AvroPayload",
    "CleanerPlan",
    "ClusteringGroup",
    "ClusteringPlan",
    "ClusteringSlice",
    "CompactionOperation",
    "CompactionPlan",
    "Payload",
    "RestorePlan",
    "RollbackPlan",
    "RollbackRequest",
    "SavepointMetadata",
    "avro_kind",
    "decode_record",
    "encode_payload",
]

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from hudi_sql.config.services import CleanerPolicy, HudiServiceConfig
from hudi_sql.errors import HudiFileFormatError, HudiTimelineError
from hudi_sql.model.avro_metadata import AvroMetadataKind, deserialize, serialize
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action, Instant, State

CLEAN_PLAN_VERSION = 2
"""``CleanPlanner.LATEST_CLEAN_PLAN_VERSION`` (plans carry ``filePathsToBeDeletedPerPartition``)."""
CLEAN_METADATA_VERSION = 2
"""``CleanerUtils.CLEAN_METADATA_VERSION_2``."""
SAVEPOINTED_TIMESTAMPS = "savepointed_timestamps"
"""Extra-metadata key of the plan listing the savepoints it honoured (Java's ``CleanPlanner``)."""
RESTORE_PLAN_VERSION = 2
"""``RestorePlanActionExecutor.RESTORE_PLAN_VERSION_2`` (carries ``savepointToRestoreTimestamp``)."""
SORT_AND_SIZE_STRATEGY = "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
CLUSTER_OPERATION = "CLUSTER"  # WriteOperationType.CLUSTER: operationType of plan and commit
SORT_COLUMNS_PARAM = HudiServiceConfig.CLUSTERING_SORT_COLUMNS.key


def _to_local(path: str) -> str:
    """A local path made absolute; an object-store URI (``s3a://…``) as it is."""
    if "://" in path and not path.startswith("file://"):
        return path
    text = path[len("file://"):] if path.startswith("file://") else path.removeprefix("file:")
    return os.path.abspath(text)


def _to_uri(path: str) -> str:
    local = _to_local(path)
    return local if "://" in local else "file://" + local


# -- clean ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CleanerPlan:
    """What one clean deletes: Hudi's ``HoodieCleanerPlan`` (version 2).

    Attributes:
        policy: the policy that chose the files.
        earliest_instant_to_retain: ECTR for the commit-based policies, else ``None``.
        last_completed_commit_time: the latest completed commit when planned ("" if none).
        files_to_delete: partition -> absolute paths of the files to delete.
        partitions_to_delete: partitions deleted whole (no file group left).
        savepointed_timestamps: the savepoints honoured.
    """

    policy: CleanerPolicy
    earliest_instant_to_retain: Instant | None
    last_completed_commit_time: str
    files_to_delete: Mapping[str, tuple[str, ...]]
    partitions_to_delete: tuple[str, ...] = ()
    savepointed_timestamps: tuple[str, ...] = ()

    @property
    def total_files(self) -> int:
        return sum(len(paths) for paths in self.files_to_delete.values())

    def all_files(self) -> list[str]:
        return [p for paths in self.files_to_delete.values() for p in paths]

    def to_avro(self) -> dict[str, Any]:
        ectr = self.earliest_instant_to_retain
        return {
            "earliestInstantToRetain": {"timestamp": ectr.instant_time, "action": ectr.action.value,
                                        "state": ectr.state.name} if ectr else None,
            "lastCompletedCommitTimestamp": self.last_completed_commit_time,
            "policy": self.policy.value,
            "filesToBeDeletedPerPartition": {},
            "version": CLEAN_PLAN_VERSION,
            "filePathsToBeDeletedPerPartition": {
                partition: [{"filePath": _to_uri(path), "isBootstrapBaseFile": False} for path in paths]
                for partition, paths in self.files_to_delete.items()
            },
            "partitionsToBeDeleted": list(self.partitions_to_delete),
            "extraMetadata": {SAVEPOINTED_TIMESTAMPS: ",".join(self.savepointed_timestamps)}
            if self.savepointed_timestamps else None,
        }

    @classmethod
    def from_avro(cls, record: Mapping[str, Any]) -> CleanerPlan:
        """A plan read back from ``<t>.clean.requested`` (also version-1 plans with file names only)."""
        ectr = record.get("earliestInstantToRetain")
        files: dict[str, tuple[str, ...]] = {}
        for partition, infos in (record.get("filePathsToBeDeletedPerPartition") or {}).items():
            files[partition] = tuple(_to_local(i["filePath"]) for i in infos or () if i.get("filePath"))
        extra = record.get("extraMetadata") or {}
        return cls(
            policy=CleanerPolicy.parse(record.get("policy") or CleanerPolicy.KEEP_LATEST_COMMITS.value),
            earliest_instant_to_retain=Instant(ectr["timestamp"], Action(ectr["action"]),
                                               State[ectr["state"]]) if ectr else None,
            last_completed_commit_time=record.get("lastCompletedCommitTimestamp") or "",
            files_to_delete=files,
            partitions_to_delete=tuple(record.get("partitionsToBeDeleted") or ()),
            savepointed_timestamps=tuple(t for t in extra.get(SAVEPOINTED_TIMESTAMPS, "").split(",") if t),
        )


# -- compaction -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompactionOperation:
    partition_path: str
    file_id: str
    base_instant: str
    base_file_name: str | None
    log_file_names: tuple[str, ...]
    metrics: dict[str, float] = field(default_factory=dict)

    def to_avro(self) -> dict[str, Any]:
        return {
            "baseInstantTime": self.base_instant,
            "deltaFilePaths": list(self.log_file_names),
            "dataFilePath": self.base_file_name,
            "fileId": self.file_id,
            "partitionPath": self.partition_path,
            "metrics": dict(self.metrics),
            "bootstrapFilePath": None,
        }

    @classmethod
    def from_avro(cls, record: dict[str, Any]) -> CompactionOperation:
        return cls(record.get("partitionPath") or "", record["fileId"], record["baseInstantTime"],
                   record.get("dataFilePath"), tuple(record.get("deltaFilePaths") or ()),
                   dict(record.get("metrics") or {}))


@dataclass(frozen=True)
class CompactionPlan:
    """``HoodieCompactionPlan``: one operation per file slice to compact."""

    instant_time: str
    operations: tuple[CompactionOperation, ...]
    strategy: str = ""

    def to_avro(self) -> dict[str, Any]:
        return {
            "operations": [op.to_avro() for op in self.operations],
            "extraMetadata": None,
            "version": 2,
            "strategy": {"compactorClassName": self.strategy, "strategyParams": {}, "version": 1}
            if self.strategy else None,
            "preserveHoodieMetadata": True,
        }

    @classmethod
    def from_avro(cls, instant_time: str, record: Mapping[str, Any]) -> CompactionPlan:
        strategy = (record.get("strategy") or {}).get("compactorClassName") or ""
        return cls(instant_time, tuple(CompactionOperation.from_avro(op) for op in record.get("operations") or []),
                   strategy)


# -- clustering -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClusteringSlice:
    """One input file slice (Hudi's ``HoodieSliceInfo``); paths are absolute."""

    partition_path: str
    file_id: str
    base_file_path: str | None
    log_file_paths: tuple[str, ...] = ()

    def to_avro(self) -> dict[str, Any]:
        return {"dataFilePath": _to_uri(self.base_file_path) if self.base_file_path else "",
                "deltaFilePaths": [_to_uri(p) for p in self.log_file_paths], "fileId": self.file_id,
                "partitionPath": self.partition_path, "bootstrapFilePath": "", "version": 1}

    @classmethod
    def from_avro(cls, record: Mapping[str, Any], base_path: str) -> ClusteringSlice:
        partition = record.get("partitionPath") or ""

        def absolute(path: str) -> str:
            # Java writes full paths; only the name counts, so a copied or moved table still works.
            name = _to_local(path).rsplit("/", 1)[-1]
            return os.path.join(_to_local(base_path), partition, name) if partition \
                else os.path.join(_to_local(base_path), name)

        data = record.get("dataFilePath") or None
        return cls(partition, record["fileId"], absolute(data) if data else None,
                   tuple(absolute(p) for p in record.get("deltaFilePaths") or ()))


@dataclass(frozen=True)
class ClusteringGroup:
    """Slices of one partition rewritten together by one task (``HoodieClusteringGroup``)."""

    slices: tuple[ClusteringSlice, ...]
    num_output_file_groups: int = 1
    metrics: Mapping[str, float] = field(default_factory=dict)

    @property
    def partition_path(self) -> str:
        return self.slices[0].partition_path if self.slices else ""

    def to_avro(self) -> dict[str, Any]:
        return {"slices": [s.to_avro() for s in self.slices], "metrics": dict(self.metrics),
                "numOutputFileGroups": self.num_output_file_groups, "extraMetadata": None, "version": 1}


@dataclass(frozen=True)
class ClusteringPlan:
    """What one clustering rewrites (``HoodieClusteringPlan`` inside ``HoodieRequestedReplaceMetadata``)."""

    instant_time: str
    groups: tuple[ClusteringGroup, ...]
    strategy_class: str = SORT_AND_SIZE_STRATEGY
    strategy_params: Mapping[str, str] = field(default_factory=dict)
    preserve_hoodie_metadata: bool = True

    @property
    def sort_columns(self) -> tuple[str, ...]:
        raw = self.strategy_params.get(SORT_COLUMNS_PARAM, "")
        return tuple(c.strip() for c in raw.split(",") if c.strip())

    def input_file_groups(self) -> dict[tuple[str, str], ClusteringSlice]:
        return {(s.partition_path, s.file_id): s for g in self.groups for s in g.slices}

    def replaced_file_ids(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        for partition, file_id in sorted(self.input_file_groups()):
            out.setdefault(partition, []).append(file_id)
        return {p: tuple(ids) for p, ids in out.items()}

    def to_avro(self) -> dict[str, Any]:
        """The ``HoodieRequestedReplaceMetadata`` record of ``<t>.replacecommit.requested``."""
        return {
            "operationType": CLUSTER_OPERATION,
            "clusteringPlan": {
                "inputGroups": [g.to_avro() for g in self.groups],
                "strategy": {"strategyClassName": self.strategy_class,
                             "strategyParams": dict(self.strategy_params), "version": 1},
                "extraMetadata": {}, "version": 1, "preserveHoodieMetadata": self.preserve_hoodie_metadata,
            },
            "extraMetadata": {},
            "version": 1,
        }

    @classmethod
    def from_avro(cls, instant_time: str, record: Mapping[str, Any], base_path: str) -> ClusteringPlan:
        plan = record.get("clusteringPlan")
        if not plan:
            raise HudiFileFormatError(f"Replacecommit {instant_time} holds no clustering plan.")
        strategy = plan.get("strategy") or {}
        groups = tuple(
            ClusteringGroup(tuple(ClusteringSlice.from_avro(s, base_path) for s in g.get("slices") or ()),
                            int(g.get("numOutputFileGroups") or 1), dict(g.get("metrics") or {}))
            for g in plan.get("inputGroups") or ())
        preserve = plan.get("preserveHoodieMetadata")
        return cls(instant_time, groups, strategy.get("strategyClassName") or SORT_AND_SIZE_STRATEGY,
                   dict(strategy.get("strategyParams") or {}), True if preserve is None else bool(preserve))


# -- rollback, savepoint, restore -------------------------------------------------------------


@dataclass(frozen=True)
class RollbackRequest:
    partition_path: str
    file_id: str | None = None
    latest_base_instant: str | None = None
    files_to_delete: tuple[str, ...] = ()  # absolute paths
    log_files_to_cancel: tuple[tuple[str, int], ...] = ()  # (absolute path, size)


@dataclass(frozen=True)
class RollbackPlan:
    """``HoodieRollbackPlan``: the files rolling back one instant deletes or cancels."""

    instant: Instant  # the instant rolled back, in its furthest state
    requests: tuple[RollbackRequest, ...] = ()

    def to_avro(self) -> dict[str, object]:
        return {
            "instantToRollback": {"commitTime": self.instant.instant_time, "action": self.instant.action.value},
            "RollbackRequests": [
                {
                    "partitionPath": r.partition_path,
                    "fileId": r.file_id,
                    "latestBaseInstant": r.latest_base_instant,
                    "filesToBeDeleted": [_to_uri(p) for p in r.files_to_delete],
                    "logBlocksToBeDeleted": {_to_uri(p): size for p, size in r.log_files_to_cancel} or None,
                }
                for r in self.requests
            ],
            "version": 1,
        }


@dataclass(frozen=True)
class SavepointMetadata:
    """``HoodieSavepointMetadata``: who pinned which files, as of which commit."""

    instant_time: str
    savepointed_by: str
    savepointed_at: int  # epoch milliseconds, as Java's System.currentTimeMillis()
    comments: str
    partition_files: Mapping[str, tuple[str, ...]]  # partition -> file names (base and log)

    def file_names(self) -> frozenset[str]:
        return frozenset(name for names in self.partition_files.values() for name in names)

    def to_avro(self) -> dict[str, Any]:
        return {
            "savepointedBy": self.savepointed_by,
            "savepointedAt": self.savepointed_at,
            "comments": self.comments,
            "partitionMetadata": {p: {"partitionPath": p, "savepointDataFile": list(names)}
                                  for p, names in self.partition_files.items()},
            "version": 1,
        }

    @classmethod
    def from_avro(cls, instant_time: str, record: Mapping[str, Any]) -> SavepointMetadata:
        return cls(
            instant_time=instant_time,
            savepointed_by=record.get("savepointedBy") or "",
            savepointed_at=int(record.get("savepointedAt") or 0),
            comments=record.get("comments") or "",
            partition_files={p: tuple(m.get("savepointDataFile") or ())
                             for p, m in (record.get("partitionMetadata") or {}).items()},
        )


@dataclass(frozen=True)
class RestorePlan:
    """``HoodieRestorePlan``: the write instants to roll back, newest first."""

    savepoint_time: str
    instants_to_rollback: tuple[Instant, ...]

    def to_avro(self) -> dict[str, Any]:
        return {
            "instantsToRollback": [{"commitTime": i.instant_time, "action": i.action.value}
                                   for i in self.instants_to_rollback],
            "version": RESTORE_PLAN_VERSION,
            "savepointToRestoreTimestamp": self.savepoint_time,
        }


# -- the table of payload kinds ---------------------------------------------------------------


_AVRO_KINDS: dict[tuple[Action, State], AvroMetadataKind] = {
    (Action.CLEAN, State.REQUESTED): AvroMetadataKind.CLEANER_PLAN,
    (Action.CLEAN, State.INFLIGHT): AvroMetadataKind.CLEANER_PLAN,
    (Action.CLEAN, State.COMPLETED): AvroMetadataKind.CLEAN_METADATA,
    (Action.COMPACTION, State.REQUESTED): AvroMetadataKind.COMPACTION_PLAN,
    (Action.LOG_COMPACTION, State.REQUESTED): AvroMetadataKind.COMPACTION_PLAN,
    (Action.REPLACE_COMMIT, State.REQUESTED): AvroMetadataKind.REQUESTED_REPLACE_METADATA,
    (Action.CLUSTERING, State.REQUESTED): AvroMetadataKind.REQUESTED_REPLACE_METADATA,
    (Action.ROLLBACK, State.REQUESTED): AvroMetadataKind.ROLLBACK_PLAN,
    (Action.ROLLBACK, State.COMPLETED): AvroMetadataKind.ROLLBACK_METADATA,
    (Action.SAVEPOINT, State.COMPLETED): AvroMetadataKind.SAVEPOINT_METADATA,
    (Action.RESTORE, State.REQUESTED): AvroMetadataKind.RESTORE_PLAN,
    (Action.RESTORE, State.COMPLETED): AvroMetadataKind.RESTORE_METADATA,
}


class AvroPayload(Protocol):
    """A plan or metadata value that knows its Avro record."""

    def to_avro(self) -> Mapping[str, Any]: ...


Payload = bytes | CommitMetadata | AvroPayload | Mapping[str, Any] | None
"""What an instant file may be given: raw bytes, commit metadata, a plan value, an Avro record, nothing."""


def avro_kind(instant: Instant) -> AvroMetadataKind | None:
    """The Avro record an instant file holds, or ``None`` (JSON commit metadata, or empty)."""
    return _AVRO_KINDS.get((instant.action, instant.state))


def encode_payload(instant: Instant, payload: Payload, *, timeline_layout: int = 1) -> bytes:
    """The bytes of *instant*'s file holding *payload* (``None`` is an empty file).

    Commit metadata is JSON on timeline layout 1 (table version 6) and Avro on layout 2 (version 8).

    Raises:
        HudiTimelineError: *payload* is a record or plan and *instant*'s file holds no Avro record.
        HudiFileFormatError: the record does not fit Hudi's schema.
    """
    if payload is None:
        return b""
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, CommitMetadata):
        if timeline_layout == 1:
            return payload.to_bytes()
        replace_commit = instant.action is Action.REPLACE_COMMIT and instant.is_completed
        metadata_kind = (AvroMetadataKind.REPLACE_COMMIT_METADATA if replace_commit
                         else AvroMetadataKind.COMMIT_METADATA)
        return serialize(metadata_kind, payload.to_avro(replace_commit=replace_commit))
    kind = avro_kind(instant)
    if kind is None:
        raise HudiTimelineError(f"{instant.file_name} holds no Avro record; cannot write {type(payload).__name__}.")
    record = payload if isinstance(payload, Mapping) else payload.to_avro()
    return serialize(kind, record)


def decode_record(instant: Instant, data: bytes) -> dict[str, Any] | None:
    """The Avro record in *instant*'s file, or ``None`` when the file is empty.

    Raises:
        HudiTimelineError: *instant*'s file holds no Avro record (commit metadata is JSON).
        HudiFileFormatError: the bytes are not that record.
    """
    kind = avro_kind(instant)
    if kind is None:
        raise HudiTimelineError(f"{instant.file_name} holds no Avro record.")
    if not data:
        return None
    return deserialize(data, kind)

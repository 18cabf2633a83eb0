"""Commit metadata of commit / deltacommit / replacecommit instants (JSON in table version 6,
Avro in table version 8).

On disk the keys stay exactly as Hudi's Jackson writer emits them (``partitionToWriteStats``,
``fileId``, ``prevCommit``, ``numWrites`` ...), in Hudi's order, pretty-printed the way Java
does; Python attributes are snake_case. This module is the one place converting between them.

Rules that readers depend on (see the timeline fact sheet, section 4):

* ``prevCommit`` is the string ``"null"`` for a new file group;
* ``extraMetadata`` values are all strings and ``extraMetadata.schema`` is always present;
* numbers are JSON numbers, ``operationType`` the upper-case enum name;
* inflight files hold the *workload profile*: a stat per partition with ``fileId: ""`` for
  inserts and one per updated file group, all sizes 0, ``path: null``.

Table version 8 (Apache Hudi 1.x) stores the same values as an Avro container of
``HoodieCommitMetadata`` (``HoodieReplaceCommitMetadata`` for a completed replacecommit) with the
same field names: :meth:`CommitMetadata.to_avro` gives that record, every write-stat field
present (null where Java leaves it unset).
"""

from __future__ import annotations

__all__ = ["CommitMetadata", "RuntimeStats", "WriteStat", "WriteTotals", "to_json_bytes"]

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.model.avro_metadata import AVRO_MAGIC, deserialize

#: Fields of Hudi's Avro ``HoodieWriteStat`` (hudi_sql/model/avsc/HoodieCommitMetadata.avsc).
_AVRO_WRITE_STAT_FIELDS = (
    "fileId", "path", "prevCommit", "numWrites", "numDeletes", "numUpdateWrites", "totalWriteBytes",
    "totalWriteErrors", "partitionPath", "totalLogRecords", "totalLogFiles", "totalUpdatedRecordsCompacted",
    "numInserts", "totalLogBlocks", "totalCorruptLogBlock", "totalRollbackBlocks", "fileSizeInBytes",
    "logVersion", "logOffset", "baseFile", "logFiles", "cdcStats", "prevBaseFile", "minEventTime",
    "maxEventTime", "runtimeStats", "totalLogFilesCompacted", "totalLogReadTimeMs", "totalLogSizeCompacted",
    "tempPath", "numUpdates",
)


@dataclass(frozen=True)
class RuntimeStats:
    total_scan_time: int = 0
    total_upsert_time: int = 0
    total_create_time: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "totalScanTime": self.total_scan_time,
            "totalUpsertTime": self.total_upsert_time,
            "totalCreateTime": self.total_create_time,
        }


def _cdc_stats(raw: Any) -> tuple[tuple[str, int], ...] | None:
    """``cdcStats`` as written: a JSON object (version 6) or Avro map (version 8), else absent."""
    if not isinstance(raw, Mapping) or not raw:
        return None
    return tuple(sorted((str(path), int(size or 0)) for path, size in raw.items()))


@dataclass(frozen=True)
class WriteStat:
    """Statistics of one file written by one commit (Hudi's ``HoodieWriteStat``).

    ``path`` is relative to the table base path (``<partition>/<file>``). For MOR log appends
    the delta fields (``log_version``, ``log_offset``, ``base_file``, ``log_files``) are set and
    the JSON gets the ``HoodieDeltaWriteStat`` keys.
    """

    file_id: str
    path: str | None
    partition_path: str | None
    prev_commit: str = "null"
    num_writes: int = 0
    num_deletes: int = 0
    num_update_writes: int = 0
    num_inserts: int = 0
    total_write_bytes: int = 0
    total_write_errors: int = 0
    file_size_in_bytes: int = 0
    total_log_records: int = 0
    total_log_files_compacted: int = 0
    total_log_size_compacted: int = 0
    total_updated_records_compacted: int = 0
    total_log_blocks: int = 0
    total_corrupt_log_block: int = 0
    total_rollback_blocks: int = 0
    min_event_time: int | None = None
    max_event_time: int | None = None
    runtime_stats: RuntimeStats | None = None
    # HoodieDeltaWriteStat (MOR log appends) only
    log_version: int | None = None
    log_offset: int | None = None
    base_file: str | None = None
    log_files: tuple[str, ...] | None = None
    #: CDC log files written beside the file (path relative to the base path, size): ``cdcStats``
    cdc_stats: tuple[tuple[str, int], ...] | None = None
    #: A log file's column statistics as its append task computed them, for the metadata table's
    #: ``column_stats`` partition (:class:`hudi_sql.metadata.records.ColumnStats` values); held in
    #: memory between the tasks and the commit, never written to the commit metadata.
    column_stats: tuple[Any, ...] | None = field(default=None, compare=False)

    @property
    def is_delta(self) -> bool:
        return self.log_version is not None

    @property
    def new_file_group(self) -> bool:
        """The write created the file group (``prevCommit`` is ``"null"``)."""
        return self.prev_commit in (None, "", "null")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "fileId": self.file_id,
            "path": self.path,
            "cdcStats": dict(self.cdc_stats) if self.cdc_stats else None,
            "prevCommit": self.prev_commit,
            "numWrites": self.num_writes,
            "numDeletes": self.num_deletes,
            "numUpdateWrites": self.num_update_writes,
            "numInserts": self.num_inserts,
            "totalWriteBytes": self.total_write_bytes,
            "totalWriteErrors": self.total_write_errors,
            "tempPath": None,
            "partitionPath": self.partition_path,
            "totalLogRecords": self.total_log_records,
            "totalLogFilesCompacted": self.total_log_files_compacted,
            "totalLogSizeCompacted": self.total_log_size_compacted,
            "totalUpdatedRecordsCompacted": self.total_updated_records_compacted,
            "totalLogBlocks": self.total_log_blocks,
            "totalCorruptLogBlock": self.total_corrupt_log_block,
            "totalRollbackBlocks": self.total_rollback_blocks,
            "fileSizeInBytes": self.file_size_in_bytes,
            "minEventTime": self.min_event_time,
            "maxEventTime": self.max_event_time,
            "runtimeStats": self.runtime_stats.to_json() if self.runtime_stats else None,
        }
        if self.is_delta:
            out["logVersion"] = self.log_version
            out["logOffset"] = self.log_offset
            out["baseFile"] = self.base_file
            out["logFiles"] = list(self.log_files or ())
            out["recordsStats"] = {"val": None}
        return out

    def to_avro(self) -> dict[str, Any]:
        """The ``HoodieWriteStat`` Avro record (table version 8): the JSON values, every field set."""
        values = self.to_json()
        return {name: values.get(name) for name in _AVRO_WRITE_STAT_FIELDS}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WriteStat:
        rs = data.get("runtimeStats")
        return cls(
            file_id=str(data.get("fileId") or ""),
            path=data.get("path"),
            partition_path=data.get("partitionPath"),
            prev_commit=str(data.get("prevCommit", "null")),
            num_writes=int(data.get("numWrites") or 0),
            num_deletes=int(data.get("numDeletes") or 0),
            num_update_writes=int(data.get("numUpdateWrites") or 0),
            num_inserts=int(data.get("numInserts") or 0),
            total_write_bytes=int(data.get("totalWriteBytes") or 0),
            total_write_errors=int(data.get("totalWriteErrors") or 0),
            file_size_in_bytes=int(data.get("fileSizeInBytes") or 0),
            total_log_records=int(data.get("totalLogRecords") or 0),
            total_log_files_compacted=int(data.get("totalLogFilesCompacted") or 0),
            total_log_size_compacted=int(data.get("totalLogSizeCompacted") or 0),
            total_updated_records_compacted=int(data.get("totalUpdatedRecordsCompacted") or 0),
            total_log_blocks=int(data.get("totalLogBlocks") or 0),
            total_corrupt_log_block=int(data.get("totalCorruptLogBlock") or 0),
            total_rollback_blocks=int(data.get("totalRollbackBlocks") or 0),
            min_event_time=data.get("minEventTime"),
            max_event_time=data.get("maxEventTime"),
            runtime_stats=RuntimeStats(
                int(rs.get("totalScanTime") or 0), int(rs.get("totalUpsertTime") or 0),
                int(rs.get("totalCreateTime") or 0),
            ) if isinstance(rs, Mapping) else None,
            log_version=data.get("logVersion"),
            log_offset=data.get("logOffset"),
            base_file=data.get("baseFile"),
            log_files=tuple(data["logFiles"]) if data.get("logFiles") is not None else None,
            cdc_stats=_cdc_stats(data.get("cdcStats")),
        )

    def with_changes(self, **changes: Any) -> WriteStat:
        return replace(self, **changes)


@dataclass(frozen=True)
class CommitMetadata:
    """``HoodieCommitMetadata`` (and ``HoodieReplaceCommitMetadata`` when replacing file groups)."""

    partition_to_write_stats: Mapping[str, tuple[WriteStat, ...]] = field(default_factory=dict)
    operation_type: str = "UNKNOWN"
    extra_metadata: Mapping[str, str] = field(default_factory=dict)
    compacted: bool = False
    partition_to_replace_file_ids: Mapping[str, tuple[str, ...]] | None = None

    @property
    def schema(self) -> str | None:
        return self.extra_metadata.get("schema")

    def write_stats(self) -> list[WriteStat]:
        return [s for stats in self.partition_to_write_stats.values() for s in stats]

    def totals(self) -> WriteTotals:
        return WriteTotals.of(self.write_stats(), partitions=len(self.partition_to_write_stats))

    def file_ids_written(self) -> set[tuple[str, str]]:
        return {(p, s.file_id) for p, stats in self.partition_to_write_stats.items() for s in stats}

    def replaced_file_ids(self) -> set[tuple[str, str]]:
        return {(p, f) for p, ids in (self.partition_to_replace_file_ids or {}).items() for f in ids}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "partitionToWriteStats": {p: [s.to_json() for s in stats] for p, stats in
                                      self.partition_to_write_stats.items()},
            "compacted": self.compacted,
            "extraMetadata": {k: str(v) for k, v in self.extra_metadata.items()},
            "operationType": self.operation_type,
        }
        if self.partition_to_replace_file_ids is not None:
            out["partitionToReplaceFileIds"] = {p: list(ids) for p, ids in
                                                self.partition_to_replace_file_ids.items()}
        return out

    def to_bytes(self) -> bytes:
        return to_json_bytes(self.to_json())

    def to_avro(self, *, replace_commit: bool = False) -> dict[str, Any]:
        """The Avro record of table version 8: ``HoodieCommitMetadata``, or with *replace_commit*
        ``HoodieReplaceCommitMetadata`` (which has no ``compacted`` field)."""
        out: dict[str, Any] = {
            "partitionToWriteStats": {p: [s.to_avro() for s in stats] for p, stats in
                                      self.partition_to_write_stats.items()},
            "extraMetadata": {k: str(v) for k, v in self.extra_metadata.items()},
            "version": 1,
            "operationType": self.operation_type,
        }
        if replace_commit:
            out["partitionToReplaceFileIds"] = {p: list(ids) for p, ids in
                                                (self.partition_to_replace_file_ids or {}).items()}
        else:
            out["compacted"] = self.compacted
        return out

    @classmethod
    def from_bytes(cls, data: bytes, *, origin: str = "commit metadata") -> CommitMetadata:
        """JSON (table version 6) or an Avro container of ``HoodieCommitMetadata`` /
        ``HoodieReplaceCommitMetadata`` (table version 8 writes Avro; same field names)."""
        if not data.strip():
            return cls()
        if data[: len(AVRO_MAGIC)] == AVRO_MAGIC:
            return cls.from_json(_without_avro_nulls(deserialize(data)))
        try:
            raw = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise HudiFileFormatError(f"{origin} is not valid JSON: {exc}.") from None
        if not isinstance(raw, dict):
            raise HudiFileFormatError(f"{origin} is not a JSON object.")
        return cls.from_json(raw)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> CommitMetadata:
        stats = {
            str(p): tuple(WriteStat.from_json(s) for s in (items or []))
            for p, items in (raw.get("partitionToWriteStats") or {}).items()
        }
        replace_ids = raw.get("partitionToReplaceFileIds")
        return cls(
            partition_to_write_stats=stats,
            operation_type=str(raw.get("operationType") or "UNKNOWN"),
            extra_metadata={str(k): str(v) for k, v in (raw.get("extraMetadata") or {}).items()},
            compacted=bool(raw.get("compacted", False)),
            partition_to_replace_file_ids={str(p): tuple(ids or []) for p, ids in replace_ids.items()}
            if isinstance(replace_ids, Mapping) else None,
        )


@dataclass(frozen=True)
class WriteTotals:
    """The sums Apache Hudi's procedures show of write stats (``HoodieCommitMetadata.fetchTotal*``)."""

    bytes_written: int = 0
    files_added: int = 0
    files_updated: int = 0
    partitions_written: int = 0
    records_written: int = 0
    records_inserted: int = 0
    records_updated: int = 0
    write_errors: int = 0

    @classmethod
    def of(cls, stats: list[WriteStat], *, partitions: int) -> WriteTotals:
        return cls(
            bytes_written=sum(s.total_write_bytes for s in stats),
            files_added=sum(1 for s in stats if s.new_file_group),
            files_updated=sum(1 for s in stats if not s.new_file_group),
            partitions_written=partitions,
            records_written=sum(s.num_writes for s in stats),
            records_inserted=sum(s.num_inserts for s in stats),
            records_updated=sum(s.num_update_writes for s in stats),
            write_errors=sum(s.total_write_errors for s in stats),
        )


def to_json_bytes(obj: Any) -> bytes:
    """JSON as Jackson's default pretty printer writes it (``"key" : value``, 2-space indent)."""
    return _jackson(obj, 0).encode("utf-8")


def _jackson(obj: Any, level: int) -> str:
    pad = "  " * (level + 1)
    end = "  " * level
    if isinstance(obj, Mapping):
        if not obj:
            return "{ }"
        items = [f"{pad}{json.dumps(str(k))} : {_jackson(v, level + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + end + "}"
    if isinstance(obj, (list, tuple)):
        if not obj:
            return "[ ]"
        return "[ " + ", ".join(_jackson(v, level) for v in obj) + " ]"
    return json.dumps(obj)


def _without_avro_nulls(value: Any) -> Any:
    """An Avro record as the JSON form has it: absent optional fields are missing, not null
    (the JSON readers default them, e.g. ``prevCommit`` to ``"null"``)."""
    if isinstance(value, Mapping):
        return {k: _without_avro_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_avro_nulls(v) for v in value]
    return value

"""Archival: move old instants out of ``.hoodie/`` into the archived timeline (Hudi 0.14 ``HoodieTimelineArchiver``).

When the active timeline holds more than ``hoodie.keep.max.commits`` completed commits, the
oldest are archived until ``hoodie.keep.min.commits`` remain. Each archived instant becomes one
``HoodieArchivedMetaEntry`` record per state file (requested, inflight, completed), written as
Avro data blocks (header ``SCHEMA`` only, as Java writes them) of a new log file
``.hoodie/archived/.commits_.archive.<N>_1-0-1``. On timeline layout 2 (table versions 8 and 9)
the archive is the LSM timeline instead, one Parquet row per instant
(:mod:`hudi_sql.services.archive_lsm`). Then the instant files are deleted, pending states
first and completed files oldest first, so the timeline never has a hole.

What stops archival (nothing at or after these instants is archived):

* the first completed savepoint (restore needs every commit after it);
* the oldest pending instant of any action: only completed commits before it go;
* replacecommits whose replaced file groups the cleaner may not have deleted yet (from the
  last clean's ``earliestInstantToRetain``; all of them when the table was never cleaned),
  since readers stop hiding those groups once the replacecommit is gone;
* on Merge-On-Read tables, the deltacommits the compaction trigger still counts;
* the cleaner: ``keep.min.commits`` grows to keep every commit from one before the cleaner's
  earliest commit to retain (Java ``ArchivalUtils.getMinAndMaxInstantsToKeep``);
* the metadata table's latest compaction: its log blocks count only for data instants on the
  active timeline, so no instant (of any action) after the latest compaction is archived, and
  nothing at all before its first compaction (``HoodieTimelineArchiver``).

The metadata table's own timeline is archived in the same step, under the data table's lock:
with one more commit kept each way than the data table (``keep.min.commits + 1``,
``keep.max.commits + 1``), never past its latest compaction, and only instants older than the
data table's earliest active commit (Apache Hudi's rules for the metadata table).

Clean and rollback instants are archived per action by the same counts. Beyond Java, every
completed clean / rollback / restore instant older than the first commit left is archived
too: readers treat a file older than the first active instant as committed, so no instant
may stay in front of the retained commits (that is also why pending instants stop archival).

The archive file is written and the instant files are deleted inside one
:class:`~hudi_sql.commit.timeline_writer.TimelineWriter` transaction; the writer deletes them.
"""

from __future__ import annotations

__all__ = ["ArchivePlan", "ArchiveResult", "ArchiveSettings", "archive", "has_archived_instants", "maybe_archive",
           "plan_archive", "plan_archive_from", "plan_metadata_archive", "read_archived_entries",
           "read_archived_instants"]

import functools
import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import fastavro

from hudi_sql.commit.instant_files import InstantFileWriter, NoOpLockProvider
from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config import HudiConfigs, HudiServiceConfig, TableType
from hudi_sql.config.resolve import Resolved
from hudi_sql.config.scoped import CleanConfig
from hudi_sql.errors import HudiConfigError, HudiError, HudiFileFormatError, TableNotFoundError
from hudi_sql.log.block import BlockType, CorruptBlock, HeaderKey
from hudi_sql.log.format import ROLLBACK_WRITE_TOKEN, encode_avro_data_content, frame_block
from hudi_sql.log.reader import read_raw_blocks
from hudi_sql.metadata.layout import MetadataPartition, metadata_base_path
from hudi_sql.metadata.maintenance.services import COMMITS_RETAINED as METADATA_COMMITS_RETAINED
from hudi_sql.metadata.reader import declared_partitions
from hudi_sql.model.avro_metadata import AvroMetadataKind, schema_json
from hudi_sql.model.instant import Action, Instant, State, parse_instant_time
from hudi_sql.model.instant_payloads import decode_record
from hudi_sql.model.timeline import Timeline
from hudi_sql.services.archive_lsm import write_lsm_batch
from hudi_sql.services.clean import earliest_commit_to_retain
from hudi_sql.table.lsm_timeline import has_lsm_instants, read_lsm_instants
from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)

ARCHIVE_FILE_PREFIX = ".commits_.archive."
_ARCHIVE_NAME = re.compile(r"^\.commits_\.archive\.(\d+)_(.+)$")
_COMMIT_ACTIONS = (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT)
_COMPARABLE = {Action.COMPACTION: Action.COMMIT, Action.LOG_COMPACTION: Action.DELTA_COMMIT}
_EXTRA_ARCHIVED = (Action.CLEAN, Action.ROLLBACK, Action.RESTORE)


@dataclass(frozen=True)
class ArchiveSettings:
    min_commits: int = 20
    max_commits: int = 30
    batch_size: int = 10
    clean: CleanConfig = field(default_factory=CleanConfig)
    table_type: TableType = TableType.COPY_ON_WRITE
    compaction_max_delta_commits: int | None = None  # set when the compaction trigger counts commits

    @classmethod
    def of(cls, options: Resolved, table_type: TableType = TableType.COPY_ON_WRITE) -> ArchiveSettings:
        """The archival options with what bounds them from the cleaner's and the compaction's.

        Raises:
            HudiConfigError: ``hoodie.keep.min.commits`` is below 1 or not below ``hoodie.keep.max.commits``.
        """
        config, compaction = options.archive, options.compaction
        low, high = config.min_commits, config.max_commits
        if low < 1 or high <= low:
            min_key, max_key = HudiServiceConfig.ARCHIVE_MIN_COMMITS.key, HudiServiceConfig.ARCHIVE_MAX_COMMITS.key
            raise HudiConfigError(
                f"Archival needs 1 <= {min_key} < {max_key}; got {low} and {high}.",
                help=f"e.g. {min_key}=20, {max_key}=30")
        delta = None
        if table_type is TableType.MERGE_ON_READ and compaction.trigger_strategy in ("NUM_COMMITS", "NUM_AND_TIME"):
            delta = compaction.max_delta_commits
        return cls(low, high, max(1, config.batch_size), options.clean, table_type, delta)


@dataclass(frozen=True)
class ArchivePlan:
    """The instant files to archive, in the order their records are written.

    Attributes:
        instants: every state file of every archived instant.
        min_commits / max_commits: the effective bounds (after the cleaner's adjustment).
    """

    instants: tuple[Instant, ...]
    min_commits: int
    max_commits: int

    @property
    def is_empty(self) -> bool:
        return not self.instants

    def archived_times(self, *actions: Action) -> list[str]:
        wanted = set(actions) or set(Action)
        return sorted({i.instant_time for i in self.instants if _COMPARABLE.get(i.action, i.action) in wanted})


@dataclass(frozen=True)
class ArchiveResult:
    plan: ArchivePlan
    archive_file: str | None = None
    dry_run: bool = False


# -- planning (pure) -------------------------------------------------------------------------


def _bounds(timeline: Timeline, settings: ArchiveSettings) -> tuple[int, int]:
    """``ArchivalUtils.getMinAndMaxInstantsToKeep``: never archive what the cleaner still retains."""
    commits = timeline.completed_writes()
    latest = commits.last
    ectr = earliest_commit_to_retain(
        timeline, settings.clean, now=parse_instant_time(latest.instant_time) if latest else None)
    low, high = settings.min_commits, settings.max_commits
    if ectr is not None:
        needed = sum(1 for c in commits if c.instant_time > ectr.instant_time) + 2
        if low < needed:
            _log.warning("%s=%d is more aggressive than the cleaner (earliest commit to retain %s); keeping %d "
                         "to %d commits.", HudiServiceConfig.ARCHIVE_MIN_COMMITS.key, low, ectr.instant_time, needed,
                         needed + high - low)
            return needed, needed + high - low
    return low, high


def _retain_for_replace(timeline: Timeline, last_clean: tuple[str, str | None] | None) -> str | None:
    """``ClusteringUtils.getOldestInstantToRetainForClustering``: replaced groups must be cleaned first."""
    replaces = timeline.with_actions(Action.REPLACE_COMMIT)
    if not len(replaces):
        return None
    if last_clean is not None:
        clean_time, ectr = last_clean
        bound = ectr or clean_time
        oldest = next((i.instant_time for i in replaces if i.instant_time >= bound), None)
    else:
        oldest = replaces.first.instant_time if replaces.first else None
    pending = replaces.pending().first
    if pending is not None:
        before = [c.instant_time for c in timeline.completed_writes() if c.instant_time < pending.instant_time]
        if before and (oldest is None or oldest > before[-1]):
            oldest = before[-1]
    return oldest


def _retain_for_compaction(timeline: Timeline, max_delta_commits: int) -> str | None:
    """``CompactionUtils.getOldestInstantToRetainForCompaction``: the deltacommits the trigger counts."""
    completed = timeline.completed()
    last_compaction = completed.with_actions(Action.COMMIT, Action.REPLACE_COMMIT).last
    deltas = completed.with_actions(Action.DELTA_COMMIT)
    if last_compaction is not None:
        since = [d.instant_time for d in deltas if d.instant_time > last_compaction.instant_time]
        anchor = last_compaction.instant_time
    else:
        since = [d.instant_time for d in deltas]
        if not since:
            return None
        anchor = since[0]
    if len(since) < max_delta_commits:
        return anchor
    return since[len(since) - max_delta_commits]


def plan_archive_from(timeline: Timeline, settings: ArchiveSettings, *,
                      last_clean: tuple[str, str | None] | None = None,
                      retain_from: str | None = None) -> ArchivePlan:
    """Which instant files to archive (pure over the timeline).

    Args:
        timeline: the active timeline, every state file.
        settings: archival, cleaner and compaction-trigger settings.
        last_clean: (time, ``earliestInstantToRetain`` or ``None``) of the last completed clean.
        retain_from: no instant at or after this time is archived (the metadata table's bound).
    """
    low, high = _bounds(timeline, settings)
    latest = timeline.latest_states()
    chosen: list[tuple[str, Action]] = []
    for action in (Action.CLEAN, Action.ROLLBACK):
        done = [i for i in latest.completed().with_actions(action).instants
                if retain_from is None or i.instant_time < retain_from]
        if len(done) > high:
            chosen.extend((i.instant_time, action) for i in done[: len(done) - low])
    commits = latest.completed_writes().instants
    archived_commits: list[Instant] = []
    if len(commits) > high:
        stops: list[str] = [retain_from] if retain_from is not None else []
        savepoints = latest.completed().with_actions(Action.SAVEPOINT)
        if savepoints.first is not None:
            stops.append(savepoints.first.instant_time)
        pending = latest.pending().first
        if pending is not None:
            before = [c.instant_time for c in commits if c.instant_time < pending.instant_time]
            stops.append(before[-1] if before else pending.instant_time)
        for bound in (_retain_for_replace(timeline, last_clean),
                      _retain_for_compaction(timeline, settings.compaction_max_delta_commits)
                      if settings.table_type is TableType.MERGE_ON_READ and settings.compaction_max_delta_commits
                      else None):
            if bound is not None:
                stops.append(bound)
        stop = min(stops) if stops else None
        eligible = [c for c in commits if stop is None or c.instant_time < stop]
        archived_commits = eligible[: len(commits) - low]
        chosen.extend((c.instant_time, c.action) for c in archived_commits)
    if archived_commits:
        first_kept = commits[len(archived_commits)].instant_time if len(archived_commits) < len(commits) else None
        taken = set(chosen)
        for instant in latest.completed().with_actions(*_EXTRA_ARCHIVED):
            key = (instant.instant_time, instant.action)
            if key not in taken and (first_kept is None or instant.instant_time < first_kept):
                chosen.append(key)
    by_key: dict[tuple[str, Action], list[Instant]] = {}
    for instant in timeline:
        by_key.setdefault((instant.instant_time, _COMPARABLE.get(instant.action, instant.action)), []).append(instant)
    files: list[Instant] = []
    for key in chosen:
        files.extend(by_key.get(key, []))
    return ArchivePlan(tuple(files), low, high)


def _last_clean(meta_client: TableMetaClient) -> tuple[str, str | None] | None:
    last = meta_client.timeline.completed().with_actions(Action.CLEAN).last
    if last is None:
        return None
    try:
        ectr = meta_client.clean_plan(last.instant_time).earliest_instant_to_retain
    except (OSError, HudiError):
        _log.warning("Cannot read the plan of clean %s; archiving as if it retained nothing.", last)
        return last.instant_time, None
    return last.instant_time, ectr.instant_time if ectr else None


def _metadata_table(data: TableMetaClient) -> TableMetaClient | None:
    """The data table's metadata table, when it has one we keep (table version 6, ``files`` declared)."""
    if data.table_version != 6 or MetadataPartition.FILES.value not in declared_partitions(data):
        return None
    try:
        return TableMetaClient.load(metadata_base_path(data.layout.meta_path), storage=data.storage)
    except TableNotFoundError:
        return None


def _latest_compaction(metadata: TableMetaClient) -> str:
    """The time of the metadata table's latest compaction; ``""`` (before every instant) when none."""
    last = metadata.timeline.completed().with_actions(Action.COMMIT).last
    return last.instant_time if last is not None else ""


def plan_archive(meta_client: TableMetaClient,
                 options: Resolved | HudiConfigs | Mapping[str, object] | None = None) -> ArchivePlan:
    """The archival the table needs now (possibly empty); nothing is written."""
    meta_client.reload_timeline()
    settings = ArchiveSettings.of(Resolved.of(options), meta_client.table_type)
    metadata = _metadata_table(meta_client)
    bound = _latest_compaction(metadata) if metadata is not None else None
    return plan_archive_from(meta_client.timeline, settings, last_clean=_last_clean(meta_client), retain_from=bound)


def plan_metadata_archive(data: TableMetaClient, metadata: TableMetaClient, settings: ArchiveSettings) -> ArchivePlan:
    """The archival the metadata table of *data* needs now (module doc)."""
    metadata.reload_timeline()
    first_commit = data.timeline.completed_writes().first
    bounds = [_latest_compaction(metadata)] + ([first_commit.instant_time] if first_commit is not None else [])
    own = ArchiveSettings(settings.min_commits + 1, settings.max_commits + 1, settings.batch_size,
                          CleanConfig(commits_retained=METADATA_COMMITS_RETAINED), TableType.MERGE_ON_READ)
    return plan_archive_from(metadata.timeline, own, last_clean=_last_clean(metadata), retain_from=min(bounds))


# -- archived records ---------------------------------------------------------------------------


def _find_record(node: Any, name: str) -> dict[str, Any] | None:
    if isinstance(node, dict):
        if node.get("type") == "record" and node.get("name") == name:
            return node
        for value in node.values():
            found = _find_record(value, name)
            if found is not None:
                return found
    elif isinstance(node, list):
        for value in node:
            found = _find_record(value, name)
            if found is not None:
                return found
    return None


@functools.cache
def _fields_of(record_name: str) -> frozenset[str]:
    node = _find_record(json.loads(schema_json(AvroMetadataKind.ARCHIVED_META_ENTRY)), record_name)
    assert node is not None, record_name
    return frozenset(f["name"] for f in node["fields"])


def _write_stat_avro(stat: Mapping[str, Any], fields: frozenset[str]) -> dict[str, Any]:
    out = {k: v for k, v in stat.items() if k in fields}
    runtime = stat.get("runtimeStats")
    out["runtimeStats"] = {k: runtime.get(k) for k in ("totalScanTime", "totalCreateTime", "totalUpsertTime")} \
        if isinstance(runtime, Mapping) else None
    if not isinstance(out.get("cdcStats"), Mapping):
        out["cdcStats"] = None
    return out


def _commit_metadata_avro(raw: Mapping[str, Any], *, replace: bool) -> dict[str, Any]:
    """JSON commit metadata -> Avro (Java ``MetadataConversionUtils.convertCommitMetadata``)."""
    stat_fields = _fields_of("HoodieWriteStat")
    stats = {p: [_write_stat_avro(s, stat_fields) for s in (items or [])]
             for p, items in (raw.get("partitionToWriteStats") or {}).items()}
    extra = {str(k): str(v) for k, v in (raw.get("extraMetadata") or {}).items()}
    extra["ROLLING_STAT"] = ""  # Java blanks the rolling stats it no longer archives
    operation = raw.get("operationType")
    out: dict[str, Any] = {"partitionToWriteStats": stats, "extraMetadata": extra, "version": None,
                           "operationType": "COMPACT" if raw.get("compacted") else operation}
    if replace:
        out["partitionToReplaceFileIds"] = {p: list(ids or []) for p, ids in
                                            (raw.get("partitionToReplaceFileIds") or {}).items()}
    else:
        out["compacted"] = bool(raw.get("compacted", False))
    return out


def _entry(meta_client: TableMetaClient, instant: Instant) -> dict[str, Any]:
    """One ``HoodieArchivedMetaEntry`` (Java ``MetadataConversionUtils.createMetaWrapper``)."""
    entry: dict[str, Any] = {"commitTime": instant.instant_time, "actionState": instant.state.name,
                             "actionType": instant.action.value, "version": 1}
    try:
        data = meta_client.read_instant_bytes(instant)
        if not data:
            return entry
        action, state = instant.action, instant.state
        if action is Action.CLEAN:
            entry["hoodieCleanMetadata" if state is State.COMPLETED else "hoodieCleanerPlan"] = \
                decode_record(instant, data)
        elif action in (Action.COMMIT, Action.DELTA_COMMIT):
            entry["hoodieCommitMetadata"] = _commit_metadata_avro(json.loads(data), replace=False)
        elif action is Action.REPLACE_COMMIT:
            if state is State.COMPLETED:
                entry["hoodieReplaceCommitMetadata"] = _commit_metadata_avro(json.loads(data), replace=True)
            elif state is State.INFLIGHT:
                entry["HoodieInflightReplaceMetadata"] = _commit_metadata_avro(json.loads(data), replace=False)
            else:
                entry["hoodieRequestedReplaceMetadata"] = decode_record(instant, data)
        elif action is Action.ROLLBACK and state is State.COMPLETED:
            entry["hoodieRollbackMetadata"] = decode_record(instant, data)
        elif action is Action.SAVEPOINT and state is State.COMPLETED:
            entry["hoodieSavePointMetadata"] = decode_record(instant, data)
        elif action in (Action.COMPACTION, Action.LOG_COMPACTION) and state is State.REQUESTED:
            entry["hoodieCompactionPlan"] = decode_record(instant, data)
    except (OSError, ValueError, HudiError) as exc:
        # Java archives an entry without metadata when an instant file cannot be read.
        _log.warning("Archiving %s without its metadata: %s", instant, exc)
        return {k: entry[k] for k in ("commitTime", "actionState", "actionType", "version")}
    return entry


def has_archived_instants(meta_client: TableMetaClient) -> bool:
    """Whether archival moved instants out of the active timeline (their commits' metadata is
    then no longer where incremental readers look): into ``.hoodie/archived/`` (layout 1) or
    the LSM timeline (layout 2)."""
    if meta_client.timeline_layout == 2:
        return has_lsm_instants(meta_client)
    return bool(_archive_files(meta_client))


def _archive_files(meta_client: TableMetaClient) -> list[tuple[int, str]]:
    out = []
    for status in meta_client.storage.list(meta_client.layout.archived_path):
        match = _ARCHIVE_NAME.match(status.name)
        if match and not status.is_dir:
            out.append((int(match.group(1)), status.path))
    return sorted(out)


def _encode_blocks(records: Sequence[Mapping[str, Any]], batch_size: int) -> bytes:
    schema = schema_json(AvroMetadataKind.ARCHIVED_META_ENTRY)
    blocks = []
    for start in range(0, len(records), batch_size):
        content = encode_avro_data_content(schema, records[start:start + batch_size])
        blocks.append(frame_block(BlockType.AVRO_DATA, {HeaderKey.SCHEMA: schema}, content))
    return b"".join(blocks)


# -- execution ---------------------------------------------------------------------------------


def archive(meta_client: TableMetaClient, options: Resolved | HudiConfigs | Mapping[str, object] | None = None, *,
            dry_run: bool = False) -> ArchiveResult:
    """Archive what :func:`plan_archive` selects: write the archive file (``.hoodie/archived/`` on
    timeline layout 1, the LSM timeline on layout 2), then delete the instant files.

    With *dry_run* only the plan is returned (and logged).
    """
    resolved = Resolved.of(options)
    plan = plan_archive(meta_client, resolved)
    if dry_run:
        for instant in plan.instants:
            _log.info("Archival (dry run) would archive %s", instant.file_name)
        return ArchiveResult(plan, dry_run=dry_run)
    settings = ArchiveSettings.of(resolved, meta_client.table_type)
    metadata = _metadata_table(meta_client)
    if plan.is_empty and metadata is None:
        return ArchiveResult(plan)
    meta_client.require_writable("archive the timeline of")  # version 9 is read only
    target = None
    with TimelineWriter(meta_client, resolved).transaction("archive") as writer:
        if not plan.is_empty:
            target = _archive(meta_client, writer, plan, settings)
        if metadata is not None:
            own = plan_metadata_archive(meta_client, metadata, settings)
            if not own.is_empty:  # under the data table's lock, as every metadata table change
                with InstantFileWriter(metadata, NoOpLockProvider()).transaction("archive") as own_writer:
                    _archive(metadata, own_writer, own, settings)
    meta_client.reload_timeline()
    return ArchiveResult(plan, target)


def _archive(meta_client: TableMetaClient, writer: InstantFileWriter, plan: ArchivePlan,
             settings: ArchiveSettings) -> str:
    """Write *plan*'s archive file, then delete its instant files (inside *writer*'s transaction)."""
    storage, layout = meta_client.storage, meta_client.layout
    if meta_client.timeline_layout == 2:
        target = write_lsm_batch(meta_client, plan.instants)
    else:
        records = [_entry(meta_client, instant) for instant in plan.instants]
        existing = _archive_files(meta_client)
        version = existing[-1][0] + 1 if existing else 1
        # Local file systems do not append: Java rolls over to a new version for each archival.
        target = f"{layout.archived_path}/{ARCHIVE_FILE_PREFIX}{version}_{ROLLBACK_WRITE_TOKEN}"
        storage.write_bytes(target, _encode_blocks(records, settings.batch_size), overwrite=False)
    pending = [i for i in plan.instants if not i.is_completed]
    completed = sorted((i for i in plan.instants if i.is_completed), key=Instant.sort_key)
    for instant in pending + completed:
        if writer.delete(instant):
            _log.info("Archived and deleted %s", instant.file_name)
    for instant_time in {i.instant_time for i in plan.instants}:
        writer.delete_marker_dir(instant_time)
    _log.info("Archived %d instant files of %d commits of %s into %s.", len(plan.instants),
              len(plan.archived_times(*_COMMIT_ACTIONS)), meta_client.base_path, target)
    return target


def maybe_archive(meta_client: TableMetaClient,
                  options: Resolved | HudiConfigs | Mapping[str, object] | None = None) -> ArchiveResult | None:
    """The post-commit hook: archive when ``hoodie.archive.automatic`` is on (Java ``autoArchiveOnCommit``)."""
    resolved = Resolved.of(options)
    if not resolved.archive.automatic:
        return None
    return archive(meta_client, resolved)


# -- reading the archived timeline ----------------------------------------------------------------


def read_archived_entries(meta_client: TableMetaClient) -> list[dict[str, Any]]:
    """Every ``HoodieArchivedMetaEntry`` of ``.hoodie/archived/``, in file and block order.

    Raises:
        HudiFileFormatError: an archive file holds a block that is not an Avro data block, or
            a record that does not decode with the block's schema.
    """
    import io
    import struct

    entries: list[dict[str, Any]] = []
    for _, path in _archive_files(meta_client):
        for raw in read_raw_blocks(meta_client.storage.read_bytes(path), name=path):
            if isinstance(raw, CorruptBlock):
                continue
            if raw.block_type is not BlockType.AVRO_DATA:
                raise HudiFileFormatError(f"{path}: archive files hold Avro data blocks, found {raw.block_type.name}")
            schema = fastavro.parse_schema(json.loads(raw.header[HeaderKey.SCHEMA]))
            content = raw.content
            _version, count = struct.unpack_from(">ii", content, 0)
            stream = io.BytesIO(content)
            pos = 8
            for _ in range(count):
                (length,) = struct.unpack_from(">i", content, pos)
                stream.seek(pos + 4)
                record = fastavro.schemaless_reader(stream, schema, None)
                if not isinstance(record, dict):
                    raise HudiFileFormatError(f"{path}: an archived record is not a record")
                entries.append(record)
                pos += 4 + length
    return entries


_STATE_ORDER = {"REQUESTED": 0, "INFLIGHT": 1, "COMPLETED": 2}


def read_archived_instants(meta_client: TableMetaClient) -> list[dict[str, Any]]:
    """The archived timeline: ``commitTime``, ``actionType`` and ``state`` of every archived state
    file (layout 2 archives completed instants only, one entry each)."""
    if meta_client.timeline_layout == 2:
        return [{"commitTime": i.instant_time, "actionType": i.action, "state": "COMPLETED"}
                for i in read_lsm_instants(meta_client)]
    rows = [{"commitTime": e.get("commitTime"), "actionType": e.get("actionType"), "state": e.get("actionState")}
            for e in read_archived_entries(meta_client)]
    return sorted(rows, key=lambda r: (str(r["commitTime"]), _STATE_ORDER.get(str(r["state"]), 3)))

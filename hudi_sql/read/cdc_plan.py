"""CDC query planning (pure over the timeline and listings): where each change of a range is found.

A CDC query (``hudi_table_changes(t, 'cdc', begin[, end])``, or the incremental read with
``hoodie.datasource.query.incremental.format=cdc``) returns one row per change made by the
completed data-changing writes in (begin, end]: ``op`` (``i``, ``u``, ``d``), ``ts_ms`` (the
commit time), and the row ``before`` and ``after`` it as JSON. As in Apache Hudi's
``HoodieCDCExtractor``, each file a write reports becomes one *split*, whose kind says how its
changes are recovered:

* ``AS_IS``: the write left CDC logs (``cdcStats``); they hold the changes, completed from
  the base files before and after the write when the logging mode keeps less than both images;
* ``BASE_FILE_INSERT``: a base file of new rows only (a new file group): every row an insert;
* ``BASE_FILE_DELETE``: a delete that emptied a file group: every row of its previous base file
  a delete;
* ``LOG_FILE``: a Merge-On-Read log append: the slice merged without and with the write's
  blocks, compared on the keys the write touched;
* ``REPLACE_COMMIT``: a file group an overwrite replaced: every row of its last slice a delete.

Table services (compaction, clustering) change no data and are skipped, as are rolled-back and
pending writes. Planning reads only commit metadata and partition listings; tasks read the files.

Versions 8 and 9 are planned alike: the range is of requested instant times there too (Apache Hudi
1.x's CDC reader compares them, not completion times), and a log file, named by the deltacommit
that wrote it, belongs to the slice whose base file its write stat names.
"""

from __future__ import annotations

__all__ = ["CdcPlan", "CdcSplit", "SplitKind", "plan_cdc"]

from collections import defaultdict
from dataclasses import dataclass
from enum import Enum

from hudi_sql.config import CdcLoggingMode, HudiReadConfig, HudiServiceConfig, HudiTableConfig
from hudi_sql.config.operation import WriteOperationType
from hudi_sql.config.resolve import TableConfig
from hudi_sql.config.scoped import ReadConfig
from hudi_sql.errors import HudiConfigError, HudiTimelineError, UnsupportedFeatureError
from hudi_sql.model.commit_metadata import WriteStat
from hudi_sql.model.file_names import BaseFileName, LogFileName
from hudi_sql.model.instant import METADATA_BOOTSTRAP_INSTANT, Action, Instant, normalize_instant_time
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient

EARLIEST = "000"
#: operations that change no data: their commits hold no changes (``WriteOperationType.isDataChange``)
NO_DATA_CHANGE = frozenset({WriteOperationType.COMPACT.value, WriteOperationType.CLUSTER.value, "LOG_COMPACT",
                            "INDEX", "ALTER_SCHEMA"})


class SplitKind(str, Enum):
    AS_IS = "AS_IS"
    BASE_FILE_INSERT = "BASE_FILE_INSERT"
    BASE_FILE_DELETE = "BASE_FILE_DELETE"
    LOG_FILE = "LOG_FILE"
    REPLACE_COMMIT = "REPLACE_COMMIT"


@dataclass(frozen=True)
class CdcSplit:
    """The changes one write made to one file group, and the files they are recovered from
    (absolute paths; picklable, one per task row)."""

    kind: SplitKind
    instant_time: str
    partition_path: str
    file_id: str
    cdc_files: tuple[str, ...] = ()  # AS_IS
    after_file: str | None = None  # AS_IS: the new base file; BASE_FILE_INSERT: the file
    before_file: str | None = None  # the base file of the slice before the write
    before_logs: tuple[str, ...] = ()  # LOG_FILE, REPLACE_COMMIT: the log files of that slice


@dataclass(frozen=True)
class CdcPlan:
    splits: tuple[CdcSplit, ...]
    schema_json: str | None  # the table schema as of the range's end
    logging_mode: CdcLoggingMode  # how the range's CDC logs were written
    completed_instants: tuple[str, ...]  # completed writes up to the end, for merging slices
    begin: str
    end: str | None


def _range(meta: TableMetaClient, read: ReadConfig) -> tuple[str, str | None]:
    begin_raw = read.begin_instant
    if not begin_raw:
        raise HudiConfigError(
            f"A CDC query needs '{HudiReadConfig.BEGIN_INSTANT.key}'.",
            help="set it to an instant time (exclusive), or 'earliest' for every change")
    begin = EARLIEST if str(begin_raw).lower() in ("earliest", "0", "000") else normalize_instant_time(begin_raw)
    end_raw = read.end_instant
    completed = meta.timeline.completed_writes()
    end = normalize_instant_time(end_raw) if end_raw else (completed.last.instant_time if completed.last else None)
    if end_raw and end is not None and begin != EARLIEST and end < begin:
        # (a range that begins after the latest commit, the end unset, holds no change: empty, as in Apache Hudi)
        raise HudiConfigError(
            f"CDC range of '{meta.table_name}' ends at {end} ({HudiReadConfig.END_INSTANT.key}), before it begins "
            f"at {begin} ({HudiReadConfig.BEGIN_INSTANT.key}).", help="swap the two instants")
    return begin, end


def plan_cdc(meta: TableMetaClient, read: ReadConfig) -> CdcPlan:
    """The splits of the changes in the options' (begin, end] range.

    Raises:
        HudiConfigError: no begin instant, or a range that ends (as given) before it begins.
        HudiTimelineError: the cleaner already deleted files the range needs.
    """
    begin, end = _range(meta, read)
    mode = TableConfig.of(meta.properties).cdc_logging_mode or CdcLoggingMode.DATA_BEFORE_AFTER
    schema = meta.latest_schema(end) if end else meta.latest_schema()
    completed = meta.timeline.completed_writes()
    if end is None or (begin != EARLIEST and end < begin):
        return CdcPlan((), schema, mode, (), begin, end)
    planner = _SplitPlanner(meta, mode)
    for instant in completed.between(begin, end):
        planner.add_instant(instant)
    splits = tuple(planner.splits)
    _check_files_exist(meta, splits, mode, begin, end)
    return CdcPlan(splits, schema, mode, tuple(completed.up_to(end).times()), begin, end)


class _SplitPlanner:
    """Turns the write stats of each instant into splits, listing each partition once."""

    def __init__(self, meta: TableMetaClient, mode: CdcLoggingMode) -> None:
        self.meta = meta
        self.mode = mode
        self.splits: list[CdcSplit] = []
        self._bases: dict[str, dict[tuple[str, str], str]] = {}  # partition -> (file id, instant) -> path
        self._logs: dict[str, dict[tuple[str, str], list[LogFileName]]] = {}  # ... -> (file id, base) -> names

    def _list(self, partition: str) -> None:
        if partition in self._bases:
            return
        bases: dict[tuple[str, str], str] = {}
        logs: dict[tuple[str, str], list[LogFileName]] = defaultdict(list)
        folder = self.meta.layout.partition_dir(partition)
        for status in self.meta.storage.list(folder) if self.meta.storage.exists(folder) else []:
            base = BaseFileName.try_parse(status.name)
            if base is not None:
                bases[(base.file_id, base.instant_time)] = status.path
                continue
            log = LogFileName.try_parse(status.name)
            if log is not None:
                logs[(log.file_id, log.base_instant)].append(log)
        self._bases[partition], self._logs[partition] = bases, logs

    def base_file(self, partition: str, file_id: str, instant_time: str) -> str | None:
        self._list(partition)
        return self._bases[partition].get((file_id, instant_time))

    def slice_logs(self, partition: str, file_id: str, base_instant: str, up_to: str) -> tuple[str, ...]:
        """The log files of the file group's slice on *base_instant* written up to *up_to*.

        A version 6 log file is named by its slice's base instant; from version 8 on by the
        deltacommit that wrote it, so the slice's logs are those written since its base."""
        self._list(partition)
        if self.meta.table_version < 8:
            names = sorted(self._logs[partition].get((file_id, base_instant), []))
        else:
            names = sorted(name for (group, written), found in self._logs[partition].items()
                           if group == file_id and base_instant <= written <= up_to for name in found)
        return tuple(self.meta.layout.file_path(partition, n.name) for n in names)

    def add_instant(self, instant: Instant) -> None:
        metadata = self.meta.commit_metadata(instant)
        if metadata.operation_type.upper() in NO_DATA_CHANGE:
            return
        if instant.instant_time == METADATA_BOOTSTRAP_INSTANT:
            raise UnsupportedFeatureError(
                f"The CDC range of '{self.meta.table_name}' includes its metadata-only bootstrap, whose rows "
                "hudi-sql does not read yet.", help=f"begin the range at {METADATA_BOOTSTRAP_INSTANT} or later")
        for stat in metadata.write_stats():
            split = self._split(instant.instant_time, stat, metadata.operation_type.upper())
            if split is not None:
                self.splits.append(split)
        if instant.action is Action.REPLACE_COMMIT:
            self._replaced(instant, metadata.replaced_file_ids())

    def _split(self, instant_time: str, stat: WriteStat, operation: str) -> CdcSplit | None:
        partition, file_id = stat.partition_path or "", stat.file_id
        if not stat.path:
            return None
        path = self.meta.layout.file_path("", stat.path)
        previous = None if stat.new_file_group else stat.prev_commit
        if stat.cdc_stats:
            cdc_files = tuple(self.meta.layout.file_path("", p) for p, _ in stat.cdc_stats)
            before = (self.base_file(partition, file_id, previous)
                      if previous and self.mode is CdcLoggingMode.OP_KEY_ONLY else None)
            return CdcSplit(SplitKind.AS_IS, instant_time, partition, file_id, cdc_files=cdc_files,
                            after_file=path, before_file=before)
        if stat.is_delta:
            sliced = self._slice_base(stat)
            base_instant = sliced if sliced is not None else previous or instant_time
            return CdcSplit(SplitKind.LOG_FILE, instant_time, partition, file_id,
                            before_file=self.base_file(partition, file_id, base_instant),
                            before_logs=self.slice_logs(partition, file_id, base_instant, instant_time))
        if operation == WriteOperationType.DELETE.value and stat.num_writes == 0 and stat.num_deletes:
            before = self.base_file(partition, file_id, previous) if previous else None
            return CdcSplit(SplitKind.BASE_FILE_DELETE, instant_time, partition, file_id, before_file=before)
        if stat.num_update_writes == 0 and stat.num_deletes == 0 and stat.num_writes == stat.num_inserts:
            return CdcSplit(SplitKind.BASE_FILE_INSERT, instant_time, partition, file_id, after_file=path)
        if stat.num_update_writes == 0 and stat.num_deletes == 0 and stat.num_inserts == 0:
            return None  # a rewrite that changed no record (a late update lost to the stored one)
        raise HudiTimelineError(
            f"The write {instant_time} rewrote '{stat.path}' of '{self.meta.table_name}' without a CDC log, so "
            "its changes cannot be told apart.",
            help=f"CDC queries of Copy-On-Write tables need {HudiTableConfig.CDC_ENABLED.key}=true from the "
                 "first rewrite on; query the range after the last write made without it")

    def _slice_base(self, stat: WriteStat) -> str | None:
        """The base instant of the slice a version 8+ log append went to, from the base file its
        write stat names (``prevCommit`` is not enough: tables written before Apache Hudi 1.2's stats
        have the deltacommit there); "" for a slice of logs only."""
        if self.meta.table_version < 8 or stat.base_file is None:
            return None
        base = BaseFileName.try_parse(stat.base_file) if stat.base_file else None
        return base.instant_time if base else ""

    def _replaced(self, instant: Instant, replaced: set[tuple[str, str]]) -> None:
        earlier = self.meta.timeline.completed_writes().up_to(instant.instant_time)
        before = [i for i in earlier if i.instant_time < instant.instant_time]
        if not before or not replaced:
            return
        view = FileSystemView(self.meta, as_of=before[-1].instant_time)
        wanted = sorted({p for p, _ in replaced})
        for file_slice in view.latest_file_slices(wanted):
            if (file_slice.partition_path, file_slice.file_id) not in replaced:
                continue
            self.splits.append(CdcSplit(
                SplitKind.REPLACE_COMMIT, instant.instant_time, file_slice.partition_path, file_slice.file_id,
                before_file=file_slice.base_file.path if file_slice.base_file else None,
                before_logs=tuple(lf.path for lf in file_slice.log_files)))


def _check_files_exist(meta: TableMetaClient, splits: tuple[CdcSplit, ...], mode: CdcLoggingMode,
                       begin: str, end: str) -> None:
    """Fail before any task runs when the cleaner removed a file the range needs."""
    for split in splits:
        needed = [*split.cdc_files, *(f for f in (split.after_file, split.before_file) if f)]
        wants_before = split.kind is SplitKind.BASE_FILE_DELETE or (
            split.kind is SplitKind.AS_IS and mode is CdcLoggingMode.OP_KEY_ONLY)
        missing = [f for f in needed if not meta.storage.exists(f)]
        if wants_before and split.before_file is None:
            missing.append(f"the base file of {split.file_id} before {split.instant_time}")
        if missing:
            raise HudiTimelineError(
                f"The CDC range ({begin}, {end}] of '{meta.table_name}' needs {len(missing)} file(s) the cleaner "
                f"already deleted, e.g. '{missing[0]}'.",
                help=f"start the range at a later instant (the cleaner keeps "
                     f"{HudiServiceConfig.CLEANER_COMMITS_RETAINED.key} commits)")

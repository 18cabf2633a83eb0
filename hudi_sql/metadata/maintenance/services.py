"""The metadata table's own compaction, clean and recovery, run under the data table's lock.

Apache Hudi runs them when a write starts (``performTableServices``), at instants that suffix
the metadata table's latest deltacommit ``d``, so they sort after it and before the next data
instant; so do we (:meth:`MetadataServices.run_due`):

* **clean** at ``d002``, once three completed instants follow the latest compaction (a reader
  that listed the slices before that compaction may still be reading them): file slices older
  than the one each file group needs for the earliest of the last 20 commits are deleted
  (``KEEP_LATEST_COMMITS``, Hudi's ``CleanPlanner``);
* **compaction** at ``d001``, after ``hoodie.metadata.compact.max.delta.commits`` deltacommits,
  and only when no data instant up to ``d`` is pending: a compacted base file stands for every
  data instant before it, so one still in flight would be folded in before it is decided (too
  many deltacommits while one stays pending is an error naming it). Every file slice with log
  files is merged into a new base file, records as readers merge them
  (:class:`~hudi_sql.metadata.reader.MetadataTableReader`).

**Recovery** (:meth:`MetadataServices.recover`, before any change): a compaction or clean left
pending by a crash is run again from its plan (a compaction's base files are rewritten whole);
a deltacommit left pending is removed with its log files. Nothing else writes the metadata
table while the data table's lock is held, so a pending instant found then is a crashed one.
"""

from __future__ import annotations

__all__ = ["MetadataServices"]

import logging
import time
from collections import defaultdict

from hudi_sql.commit.instant_files import InstantFileWriter, NoOpLockProvider
from hudi_sql.config import CleanerPolicy, HudiMetadataConfig
from hudi_sql.config.metadata import MetadataConfig
from hudi_sql.errors import HudiError
from hudi_sql.log.block import HeaderKey
from hudi_sql.log.reader import read_raw_blocks
from hudi_sql.metadata.layout import CLEAN_SUFFIX, COMPACTION_SUFFIX, MetadataPartition, suffixed
from hudi_sql.metadata.reader import MetadataTableReader, declared_partitions, latest_file_slices
from hudi_sql.metadata.records import METADATA_SCHEMA_JSON
from hudi_sql.metadata.writer.file_writer import base_file_name
from hudi_sql.metadata.writer.metadata_exec import DRIVER_WORK_LIMIT, CompactionUnit, compact_unit, run_units
from hudi_sql.model.commit_metadata import CommitMetadata, WriteStat
from hudi_sql.model.file_names import BaseFileName, LogFileName
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.model.instant_payloads import (
    CLEAN_METADATA_VERSION,
    CleanerPlan,
    CompactionOperation,
    CompactionPlan,
)
from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)

#: ``HoodieMetadataConfig.DEFAULT_METADATA_CLEANER_COMMITS_RETAINED``.
COMMITS_RETAINED = 20
#: Completed instants after the latest compaction before a clean may run (``cleanIfNecessary``).
_CLEAN_DELAY = 3
_WRITES = (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT)


class MetadataServices:
    """The metadata table of one data table, as its own table services see it."""

    def __init__(self, data: TableMetaClient, base_path: str) -> None:
        self.data = data
        self.meta = TableMetaClient.load(base_path, storage=data.storage)
        #: The metadata table's instants are written under the data table's lock, not one of their own.
        self.writer = InstantFileWriter(self.meta, NoOpLockProvider())

    def _partitions(self) -> list[MetadataPartition]:
        declared = declared_partitions(self.data)
        return [p for p in MetadataPartition if p.value in declared]

    # -- what is due ----------------------------------------------------------------------

    def run_due(self, config: MetadataConfig) -> None:
        """Recover, then clean and compact the metadata table when due (module doc)."""
        with self.writer.transaction("metadata table services"):
            self.recover()
            timeline = self.meta.timeline.completed()
            latest = timeline.with_actions(Action.DELTA_COMMIT).last
            if latest is None:
                return
            last_compaction = timeline.with_actions(Action.COMMIT).last
            if last_compaction is not None:
                after = [i for i in timeline if i.instant_time > last_compaction.instant_time]
                clean_time = suffixed(latest.instant_time, CLEAN_SUFFIX)
                if len(after) >= _CLEAN_DELAY and self.meta.timeline.find(clean_time) is None:
                    self.clean(clean_time)
            if self._compaction_due(config, latest.instant_time, last_compaction):
                self.compact(suffixed(latest.instant_time, COMPACTION_SUFFIX))

    def _compaction_due(self, config: MetadataConfig, latest: str, last: Instant | None) -> bool:
        deltas = [i for i in self.meta.timeline.completed().with_actions(Action.DELTA_COMMIT)
                  if last is None or i.instant_time > last.instant_time]
        if len(deltas) < config.compact_max_delta_commits:
            return False
        if self.meta.timeline.find(suffixed(latest, COMPACTION_SUFFIX)) is not None:
            return False
        pending = [i for i in self.data.timeline.pending() if i.instant_time <= latest]
        if pending:
            if len(deltas) > config.max_deltacommits_when_pending:
                raise HudiError(
                    f"The metadata table of '{self.data.base_path}' has {len(deltas)} deltacommits since its last "
                    f"compaction, which waits for the pending instant {pending[0]} of the data table.",
                    help=f"roll back or finish {pending[0].instant_time}, or raise "
                         f"'{HudiMetadataConfig.MAX_DELTACOMMITS_WHEN_PENDING.key}'")
            _log.info("Not compacting the metadata table of %s: %s is pending.", self.data.base_path, pending[0])
            return False
        return True

    # -- recovery -------------------------------------------------------------------------

    def recover(self) -> None:
        """Finish pending compactions and cleans; remove pending deltacommits (module doc)."""
        self.meta.reload_timeline()
        for instant in self.meta.timeline.pending():
            if instant.action is Action.COMPACTION:
                _log.warning("Finishing the metadata table compaction %s left pending.", instant.instant_time)
                self._run_compaction(CompactionPlan.from_avro(
                    instant.instant_time, self.meta.instant_record(instant.to(State.REQUESTED)) or {}))
            elif instant.action is Action.CLEAN:
                _log.warning("Finishing the metadata table clean %s left pending.", instant.instant_time)
                self._run_clean(CleanerPlan.from_avro(self.meta.instant_record(instant.to(State.REQUESTED)) or {}),
                                instant.instant_time)
            elif instant.action is Action.DELTA_COMMIT:
                self.remove_deltacommit(instant.instant_time)
        self.meta.reload_timeline()

    def remove_deltacommit(self, instant_time: str, *, only_uncompacted: bool = False) -> None:
        """Remove the deltacommit *instant_time* (any state) and the log files it wrote.

        Args:
            only_uncompacted: leave it when a compaction already folded it into base files (the
                deletions a rollback records keep the listing right then).
        """
        self.meta.reload_timeline()
        states = [i for i in self.meta.timeline.instants
                  if i.instant_time == instant_time and i.action is Action.DELTA_COMMIT]
        if not states:
            return
        compaction = self.meta.timeline.completed().with_actions(Action.COMMIT).last
        if only_uncompacted and compaction is not None and instant_time < compaction.instant_time:
            _log.info("Metadata deltacommit %s is compacted; the rollback's deletions stand for it.", instant_time)
            return
        storage = self.meta.storage
        for path in self._files_of(instant_time, states):
            storage.delete(path)
            _log.info("Removed %s of the metadata deltacommit %s.", path, instant_time)
        for instant in sorted(states, key=lambda i: -i.state.order):
            self.writer.delete(instant)
        self.meta.reload_timeline()

    def _files_of(self, instant_time: str, states: list[Instant]) -> list[str]:
        """The log files deltacommit *instant_time* wrote: those its completed file names, else
        those whose first block it wrote (every deltacommit writes new log files)."""
        storage = self.meta.storage
        completed = [i for i in states if i.is_completed]
        if completed:
            metadata = self.meta.commit_metadata(completed[0])
            return [storage.join(self.meta.base_path, s.path) for s in metadata.write_stats()
                    if s.path and LogFileName.try_parse(s.path.rsplit("/", 1)[-1]) is not None]
        found = []
        for partition in MetadataPartition:
            folder = storage.join(self.meta.base_path, partition.value)
            if not storage.is_dir(folder):
                continue
            for status in storage.list(folder):
                log = LogFileName.try_parse(status.name)
                if log is None or log.base_instant > instant_time:
                    continue
                first = next(iter(read_raw_blocks(storage.read_bytes(status.path), name=status.path)), None)
                if first is not None and first.header.get(HeaderKey.INSTANT_TIME) == instant_time:
                    found.append(status.path)
        return found

    # -- compaction -----------------------------------------------------------------------

    def compact(self, instant_time: str) -> None:
        """Compact every file slice with log files into a new base file at *instant_time*."""
        operations = []
        storage = self.meta.storage
        for partition in self._partitions():
            folder = storage.join(self.meta.base_path, partition.value)
            if not storage.is_dir(folder):
                continue
            names = [s.name for s in storage.list(folder) if not s.is_dir]
            for file_slice in latest_file_slices(names, self.meta.timeline):
                if file_slice.log_files:
                    operations.append(CompactionOperation(partition.value, file_slice.file_id, file_slice.base_instant,
                                                          file_slice.base_file, file_slice.log_files))
        if not operations:
            return
        plan = CompactionPlan(instant_time, tuple(operations))
        self.writer.request(Instant(instant_time, Action.COMPACTION, State.REQUESTED), plan)
        self._run_compaction(plan)

    def _run_compaction(self, plan: CompactionPlan) -> None:
        instant_time = plan.instant_time
        inflight = Instant(instant_time, Action.COMPACTION, State.INFLIGHT)
        if not self.writer.exists(inflight):
            self.writer.start(inflight, None)
        reader = MetadataTableReader.open(self.data)
        if reader is None:
            raise HudiError(f"The metadata table of '{self.data.base_path}' vanished during its compaction "
                            f"{instant_time}.")
        started = time.time()
        units = []
        for op in plan.operations:
            partition = MetadataPartition(op.partition_path)
            current = [s for s in reader.file_slices(partition) if s.file_id == op.file_id]
            if current:
                units.append(CompactionUnit(partition, reader.folder(partition), current[0], reader.blocks_counted,
                                            base_file_name(op.file_id, instant_time), self.data.storage))
        stats: dict[str, list[WriteStat]] = defaultdict(list)
        weight = sum(1 for u in units if u.partition is not MetadataPartition.FILES) * DRIVER_WORK_LIMIT
        for result in run_units(units, compact_unit, weight=weight):
            if not result.size:
                continue
            file_slice, partition = result.file_slice, result.partition.value
            stats[partition].append(WriteStat(
                file_slice.file_id, f"{partition}/{result.base_file_name}", partition,
                prev_commit=file_slice.base_instant, num_writes=result.records, total_write_bytes=result.size,
                file_size_in_bytes=result.size, total_log_files_compacted=len(file_slice.log_files),
                total_log_size_compacted=result.log_bytes, total_log_blocks=len(file_slice.log_files)))
        self.writer.complete(Instant(instant_time, Action.COMMIT),
                             CommitMetadata({p: tuple(s) for p, s in stats.items()}, "COMPACT",
                                            {"schema": METADATA_SCHEMA_JSON}, compacted=True))
        self.meta.reload_timeline()
        _log.info("Compacted the metadata table of %s at %s (%d file groups, %.0f ms).", self.data.base_path,
                  instant_time, len(plan.operations), (time.time() - started) * 1000)

    # -- clean ----------------------------------------------------------------------------

    def clean(self, instant_time: str) -> None:
        """Delete file slices no reader of the last :data:`COMMITS_RETAINED` commits needs."""
        commits = list(self.meta.timeline.completed().with_actions(*_WRITES))
        if len(commits) <= COMMITS_RETAINED:
            return
        earliest = commits[-COMMITS_RETAINED]
        storage = self.meta.storage
        to_delete: dict[str, tuple[str, ...]] = {}
        committed = {i.instant_time for i in commits}
        first = commits[0].instant_time
        for partition in self._partitions():
            folder = storage.join(self.meta.base_path, partition.value)
            if not storage.is_dir(folder):
                continue
            slices: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
            for status in storage.list(folder):
                parsed: BaseFileName | LogFileName | None = BaseFileName.try_parse(status.name)
                instant = parsed.instant_time if isinstance(parsed, BaseFileName) else None
                if parsed is None:
                    parsed = LogFileName.try_parse(status.name)
                    instant = parsed.base_instant if parsed is not None else None
                if parsed is not None and instant is not None:
                    slices[parsed.file_id][instant].append(status.path)
            paths: list[str] = []
            for by_instant in slices.values():
                done = sorted(t for t in by_instant if t in committed or t < first)
                if not done:
                    continue
                keep = {done[-1]} | {max((t for t in done if t < earliest.instant_time), default="")}
                paths += [p for t in done if t not in keep and t < earliest.instant_time for p in by_instant[t]]
            if paths:
                to_delete[partition.value] = tuple(sorted(paths))
        if not to_delete:
            return
        plan = CleanerPlan(CleanerPolicy.KEEP_LATEST_COMMITS, earliest, commits[-1].instant_time, to_delete)
        self.writer.request(Instant(instant_time, Action.CLEAN, State.REQUESTED), plan)
        self._run_clean(plan, instant_time)

    def _run_clean(self, plan: CleanerPlan, instant_time: str) -> None:
        inflight = Instant(instant_time, Action.CLEAN, State.INFLIGHT)
        if not self.writer.exists(inflight):
            self.writer.start(inflight, plan)
        started = time.time()
        storage = self.meta.storage
        outcome = {path: storage.delete(path) for path in plan.all_files()}
        ectr = plan.earliest_instant_to_retain
        metadata = {
            "startCleanTime": instant_time,
            "timeTakenInMillis": int((time.time() - started) * 1000),
            "totalFilesDeleted": sum(1 for ok in outcome.values() if ok),
            "earliestCommitToRetain": ectr.instant_time if ectr else "",
            "lastCompletedCommitTimestamp": plan.last_completed_commit_time,
            "partitionMetadata": {
                partition: {
                    "partitionPath": partition,
                    "policy": plan.policy.value,
                    "deletePathPatterns": [p.rsplit("/", 1)[-1] for p in paths],
                    "successDeleteFiles": [p.rsplit("/", 1)[-1] for p in paths if outcome.get(p)],
                    "failedDeleteFiles": [p.rsplit("/", 1)[-1] for p in paths if not outcome.get(p)],
                    "isPartitionDeleted": False,
                }
                for partition, paths in plan.files_to_delete.items()
            },
            "version": CLEAN_METADATA_VERSION,
            "bootstrapPartitionMetadata": {},
            "extraMetadata": None,
        }
        self.writer.complete(Instant(instant_time, Action.CLEAN), metadata)
        self.meta.reload_timeline()
        _log.info("Cleaned the metadata table of %s at %s (%d files).", self.data.base_path, instant_time,
                  metadata["totalFilesDeleted"])

"""The commit protocol: the only module that creates write instants on the timeline.

Lifecycle of one write (table version 6, timeline layout 1; each step is a new file in
``.hoodie/``, nothing is renamed)::

    plan (pure, driver)        validate input, tag, profile -- nothing on storage yet
        |
    start()                    <t>.<action>.requested   (empty; Avro for replacecommit)
        |                      <t>.inflight / <t>.<action>.inflight   (JSON workload profile)
    execute (Spark tasks)      marker, then data file, per file; tasks return WriteStatus
        |
    complete(metadata)         conflict check against instants completed since start
        |                      delete files of failed / speculative task attempts (markers
        |                      without a write stat), then write <t>.<action> whole, last,
        |                      create-if-absent, and drop .hoodie/.temp/<t>/
    on failure                 the instant stays pending; the next writer rolls it back
                               (see :mod:`hudi_sql.commit.rollback`) using the markers.

A failure before ``<t>.<action>`` exists leaves an instant readers ignore. Errors follow the
known/unknown split: :class:`CommitConflictError` (surely not committed: its files may go) and
:class:`CommitStateUnknownError` (the completed file may exist: delete nothing).

The instant files themselves are written by :class:`~hudi_sql.commit.timeline_writer.TimelineWriter`,
each step inside one of its transactions (the lock seam): this module decides *when* and checks
conflicts; the writer owns the files.
"""

from __future__ import annotations

__all__ = ["Transaction"]

import logging
import os
from dataclasses import dataclass, field

from hudi_sql.commit.markers import IOType, read_markers
from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.errors import CommitConflictError, CommitStateUnknownError
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)


@dataclass
class Transaction:
    """One write instant from requested to completed."""

    meta_client: TableMetaClient
    action: Action
    instant_time: str
    _started_with: frozenset[str] = field(default_factory=frozenset)
    #: The action of the requested/inflight files when it differs from the completed one
    #: (a compaction is requested as ``compaction`` and completes as ``commit``).
    pending_action: Action | None = None

    @classmethod
    def resume(cls, meta_client: TableMetaClient, action: Action, instant_time: str, *,
               pending_action: Action | None = None) -> Transaction:
        """A transaction for an instant already requested (e.g. a scheduled compaction)."""
        with TimelineWriter(meta_client).transaction(f"resume {action.value} {instant_time}"):
            completed = frozenset(i.instant_time for i in meta_client.timeline.completed())
        return cls(meta_client, action, instant_time, completed, pending_action)

    @classmethod
    def begin(cls, meta_client: TableMetaClient, action: Action, *, instant_time: str | None = None) -> Transaction:
        """Reserve a new instant time, strictly after every instant on the timeline."""
        with TimelineWriter(meta_client).transaction(f"begin {action.value}") as writer:
            time_ = writer.new_instant_time(instant_time)
            completed = frozenset(i.instant_time for i in meta_client.timeline.completed())
        return cls(meta_client, action, time_, completed)

    @property
    def instant(self) -> Instant:
        return Instant(self.instant_time, self.action, State.COMPLETED)

    @property
    def writer(self) -> TimelineWriter:
        return TimelineWriter(self.meta_client)

    def start(self, workload: CommitMetadata, *, requested_payload: bytes = b"") -> None:
        """Write the requested and inflight files (the point after which rollback may be needed)."""
        with self.writer.transaction(f"start {self.instant_time}") as writer:
            writer.request(self.instant.to(State.REQUESTED), requested_payload)
            writer.start(self.instant.to(State.INFLIGHT), workload)
            writer.create_marker_dir(self.instant_time)

    def complete(self, metadata: CommitMetadata) -> None:
        """Check conflicts, remove attempt losers, then publish the completed instant."""
        with self.writer.transaction(f"complete {self.instant_time}") as writer:
            self._check_conflicts(metadata)
            self.delete_uncommitted_files(metadata)
            writer.complete(self.instant, metadata)
            writer.delete_marker_dir(self.instant_time)
        self.meta_client.reload_timeline()

    def delete_uncommitted_files(self, metadata: CommitMetadata) -> list[str]:
        """Delete data files named by markers but absent from the write stats.

        Such files come from task attempts that failed or lost a speculative race: they are
        on storage under a name only the losing attempt's write token carries. A reader
        would otherwise see two base files of one (file id, instant).
        """
        storage, layout = self.meta_client.storage, self.meta_client.layout
        kept = {s.path for s in metadata.write_stats() if s.path}
        deleted: list[str] = []
        for marker in read_markers(storage, layout, self.instant_time):
            if marker.io_type is IOType.APPEND:
                deleted.extend(self._delete_losing_log_files(marker.partition_path, marker.file_name, kept))
                continue
            rel = f"{marker.partition_path}/{marker.file_name}" if marker.partition_path else marker.file_name
            if rel not in kept and storage.delete(layout.file_path(marker.partition_path, marker.file_name)):
                _log.info("Deleted %s, written by a failed or duplicate task attempt of %s.", rel, self.instant_time)
                deleted.append(rel)
        return deleted

    def _delete_losing_log_files(self, partition: str, marker_file: str, kept: set[str]) -> list[str]:
        """Log files of a retried append: in the marked slice, written by us, not in the stats."""
        from hudi_sql.log.reader import read_raw_blocks
        from hudi_sql.model.file_names import BaseFileName, LogFileName

        base = BaseFileName.try_parse(marker_file)
        if base is None:
            return []
        storage, layout = self.meta_client.storage, self.meta_client.layout
        deleted = []
        for status in storage.list(layout.partition_dir(partition)):
            name = LogFileName.try_parse(status.name)
            if name is None or name.file_id != base.file_id or name.base_instant != base.instant_time:
                continue
            rel = f"{partition}/{status.name}" if partition else status.name
            if rel in kept:
                continue
            first = next(iter(read_raw_blocks(status.path)), None)
            if first is not None and getattr(first, "instant_time", None) == self.instant_time:
                storage.delete(status.path)
                _log.info("Deleted %s, a log file of a failed or duplicate task attempt.", rel)
                deleted.append(rel)
        return deleted

    def _check_conflicts(self, metadata: CommitMetadata) -> None:
        """Against the timeline the enclosing transaction reloaded."""
        timeline = self.meta_client.timeline
        if timeline.find(self.instant_time, self.action, State.COMPLETED) is not None:
            raise CommitStateUnknownError(f"{self.instant.file_name} already exists.")
        if timeline.find(self.instant_time, self.pending_action or self.action, State.INFLIGHT) is None:
            raise CommitConflictError(
                f"Instant {self.instant_time} is no longer inflight: another writer rolled it back.",
                help="the write was undone; run it again",
            )
        ours = metadata.file_ids_written()
        for instant in timeline.completed_writes():
            if instant.instant_time in self._started_with or instant.instant_time == self.instant_time:
                continue
            theirs = self.meta_client.commit_metadata(instant).file_ids_written()
            overlap = ours & theirs
            if overlap:
                partition, file_id = sorted(overlap)[0]
                raise CommitConflictError(
                    f"Instant {instant.instant_time} committed to file group {file_id} in partition "
                    f"'{partition}' while {self.instant_time} was writing it.",
                    help="run the write again; it will see the other commit",
                )

    def marker_dir(self) -> str:
        return self.meta_client.layout.marker_dir(self.instant_time)

    def relative(self, path: str) -> str:
        return os.path.relpath(path, self.meta_client.base_path)

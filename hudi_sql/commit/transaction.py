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

__all__ = ["PlanSnapshot", "Transaction", "write_scope"]

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from hudi_sql.commit.heartbeat import Heartbeat, delete_heartbeat, refuse_live_writers
from hudi_sql.commit.rollback import rollback_own_failed_write
from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config.concurrency import HudiConcurrencyConfig
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import CommitConflictError, CommitStateUnknownError, HudiError
from hudi_sql.log.reader import read_raw_blocks
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.file_names import BaseFileName, LogFileName
from hudi_sql.model.instant import WRITE_ACTIONS, Action, Instant, State
from hudi_sql.storage.layout import TableLayout
from hudi_sql.storage.uri import relative_to
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.write.markers import IOType, Marker, read_markers, validate_marker_name

_log = logging.getLogger(__name__)

#: Transactions begun inside the enclosing :func:`write_scope` (to give up if the write fails).
_OPEN: ContextVar[list[Transaction] | None] = ContextVar("hudi_open_transactions", default=None)


@contextmanager
def write_scope() -> Iterator[None]:
    """One write and its table services; instants it leaves open are given up.

    A write that fails after :meth:`Transaction.begin` must not leave its heartbeat beating
    (a live heartbeat keeps its instant from ever being rolled back): on the way out every
    transaction begun in the scope and neither completed nor aborted is aborted with the error.
    """
    opened: list[Transaction] = []
    token = _OPEN.set(opened)
    try:
        try:
            yield
        except BaseException as exc:
            for txn in opened:
                if txn.is_open:
                    txn.abort(exc)
            raise
        finally:
            for txn in opened:
                if txn.is_open:
                    txn.abort(RuntimeError("the write ended without completing its instant"))
    finally:
        _OPEN.reset(token)


def _valid_marker(layout: TableLayout, marker: Marker) -> bool:
    """Whether a marker read back from storage may direct a delete (checked again: it is data)."""
    try:
        validate_marker_name(layout, marker.name)
    except HudiError as exc:
        _log.error("Ignoring marker %r: %s; the file it names is not deleted.", marker.name, exc)
        return False
    return True


@dataclass(frozen=True)
class PlanSnapshot:
    """The timeline a write's plan was built on: the start of its conflict window.

    Every write instant completed after this snapshot, and every compaction or clustering
    scheduled after it, is a candidate conflict at commit. Taking the snapshot when the write
    *loads* the table (not when it reserves its instant) matters: a commit landing between
    the two was not seen by the plan, so it must not count as seen by the conflict check.
    """

    completed: frozenset[str]
    #: instant time -> action of every instant on the timeline (any state) at snapshot time
    seen: dict[str, Action]

    @classmethod
    def of(cls, meta_client: TableMetaClient) -> PlanSnapshot:
        timeline = meta_client.timeline
        return cls(frozenset(i.instant_time for i in timeline.completed()),
                   {i.instant_time: i.action for i in timeline.instants})


@dataclass
class Transaction:
    """One write instant from requested to completed, under the operation's *options* (its lock,
    heartbeats, conflict detection and metadata table options)."""

    meta_client: TableMetaClient
    action: Action
    instant_time: str
    options: Resolved
    snapshot: PlanSnapshot = field(default_factory=lambda: PlanSnapshot(frozenset(), {}))
    #: The action of the requested/inflight files when it differs from the completed one
    #: (a compaction is requested as ``compaction`` and completes as ``commit``).
    pending_action: Action | None = None
    #: Bucket-index table: concurrent writes conflict per bucket, not per file group.
    bucket_index: bool = False
    heartbeat: Heartbeat | None = None

    @classmethod
    def resume(cls, meta_client: TableMetaClient, action: Action, instant_time: str, options: Resolved, *,
               pending_action: Action | None = None, heartbeat: Heartbeat | None = None) -> Transaction:
        """A transaction for an instant already requested (e.g. a scheduled compaction), with
        the *heartbeat* its executor beats (:func:`~hudi_sql.commit.heartbeat.claim_service_instant`),
        stopped when the transaction completes or aborts."""
        with TimelineWriter(meta_client, options).transaction(f"resume {action.value} {instant_time}"):
            snapshot = PlanSnapshot.of(meta_client)
        return cls(meta_client, action, instant_time, options, snapshot, pending_action, heartbeat=heartbeat)

    @classmethod
    def begin(cls, meta_client: TableMetaClient, action: Action, options: Resolved, *,
              instant_time: str | None = None, snapshot: PlanSnapshot | None = None,
              bucket_index: bool = False) -> Transaction:
        """Reserve a new instant under the lock: ``<t>.<action>.requested`` and its heartbeat.

        The time is generated under the table lock, after every instant on the timeline, and
        published at once (as Apache Hudi's ``startCommit``), so no other writer can take it
        or one before it. In ``SINGLE_WRITER`` mode a live pending write of another writer
        refuses this one (:class:`ConcurrentWriterError`) instead of racing it.

        Args:
            snapshot: the timeline the write's plan is built on (default: the current one).
        """
        config = options.concurrency
        with TimelineWriter(meta_client, options).transaction(f"begin {action.value}") as writer:
            if not config.optimistic:
                refuse_live_writers(meta_client, config)
            time_ = writer.new_instant_time(instant_time)
            writer.request(Instant(time_, action, State.REQUESTED))
            heartbeat = Heartbeat(meta_client.storage, meta_client.layout, time_,
                                  config.heartbeat_interval_ms).start()
            snapshot = snapshot or PlanSnapshot.of(meta_client)
        txn = cls(meta_client, action, time_, options, snapshot, bucket_index=bucket_index, heartbeat=heartbeat)
        opened = _OPEN.get()
        if opened is not None:
            opened.append(txn)
        return txn

    @property
    def is_open(self) -> bool:
        """Begun here and neither completed nor aborted (its heartbeat still beats)."""
        return self.heartbeat is not None

    @property
    def instant(self) -> Instant:
        return Instant(self.instant_time, self.action, State.COMPLETED)

    @property
    def writer(self) -> TimelineWriter:
        return TimelineWriter(self.meta_client, self.options)

    def start(self, workload: CommitMetadata, *, requested_payload: bytes = b"") -> None:
        """Write the inflight file (the point after which rollback may be needed).

        Raises:
            CommitConflictError: the requested instant is gone (another writer rolled it back),
                or, with early conflict detection, a commit since the snapshot already overlaps.
        """
        with self.writer.transaction(f"start {self.instant_time}") as writer:
            requested = self.instant.to(State.REQUESTED)
            if not writer.exists(requested):
                raise CommitConflictError(f"Instant {self.instant_time} was rolled back before it started.",
                                          help="another writer took its heartbeat for expired; run the write again")
            if self.options.concurrency.early_conflict_detection:
                self._check_overlaps(workload)
            if requested_payload:
                writer.request(requested, requested_payload, overwrite=True)
            writer.start(self.instant.to(State.INFLIGHT), workload)
            writer.create_marker_dir(self.instant_time)

    def complete(self, metadata: CommitMetadata) -> None:
        """Check conflicts, remove attempt losers, then publish the completed instant.

        All under one hold of the table lock: no other writer's commit or rollback can land
        between the check and the completed file.
        """
        with self.writer.transaction(f"complete {self.instant_time}") as writer:
            self._check_conflicts(metadata)
            self.delete_uncommitted_files(metadata)
            writer.complete(self.instant, metadata)
            writer.delete_marker_dir(self.instant_time)
            self._stop_heartbeat()
        self.meta_client.reload_timeline()

    def abort(self, error: BaseException) -> None:
        """The write failed after :meth:`begin`: give the instant up.

        A conflict rolls the instant back at once (its files surely are not committed). Any
        other failure only stops and deletes the heartbeat, so the instant counts as failed
        and the next writer rolls it back; an unknown commit state deletes nothing.
        """
        try:
            if isinstance(error, CommitConflictError) and not isinstance(error, CommitStateUnknownError):
                pending = Instant(self.instant_time, self.pending_action or self.action, State.INFLIGHT)
                rollback_own_failed_write(self.meta_client, pending, self.options)
        except Exception:  # noqa: BLE001 - the original error is what the caller must see
            _log.exception("Could not roll back the failed instant %s; the next writer will.", self.instant_time)
        finally:
            self._stop_heartbeat()

    def _stop_heartbeat(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.stop(delete=True)
            self.heartbeat = None
        else:
            delete_heartbeat(self.meta_client.storage, self.meta_client.layout, self.instant_time)

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
            if not _valid_marker(layout, marker):
                continue
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
            first = next(iter(read_raw_blocks(storage.read_bytes(status.path), name=status.path)), None)
            if first is not None and getattr(first, "instant_time", None) == self.instant_time:
                storage.delete(status.path)
                _log.info("Deleted %s, a log file of a failed or duplicate task attempt.", rel)
                deleted.append(rel)
        return deleted

    def _check_conflicts(self, metadata: CommitMetadata) -> None:
        """Against the timeline the enclosing transaction reloaded, under its lock."""
        timeline = self.meta_client.timeline
        if timeline.find(self.instant_time, self.action, State.COMPLETED) is not None:
            raise CommitStateUnknownError(f"{self.instant.file_name} already exists.")
        if timeline.find(self.instant_time, self.pending_action or self.action, State.INFLIGHT) is None:
            raise CommitConflictError(
                f"Instant {self.instant_time} is no longer inflight: another writer rolled it back.",
                help="the write was undone; run it again",
            )
        self._check_overlaps(metadata)

    def _check_overlaps(self, metadata: CommitMetadata) -> None:
        """The simple file-group strategy: another instant since the snapshot touched our groups.

        Candidates are write instants completed after the plan's snapshot, and compactions or
        clusterings scheduled after it (a clustering rewrites the group; a compaction starts a
        new slice our log blocks would miss). A compaction already pending in the snapshot is
        no conflict for a deltacommit: the plan routed its log blocks to the compaction's slice.
        On a bucket-index table two writes conflict when they write the same bucket, even
        through different file ids (concurrent inserts creating one bucket twice).
        """
        meta, snap = self.meta_client, self.snapshot
        ours = self._groups(metadata.file_ids_written() | metadata.replaced_file_ids())
        if not ours:
            return
        inserted = {s.partition_path for s in metadata.write_stats() if s.num_inserts and s.partition_path}
        for instant in meta.timeline.instants:
            time_ = instant.instant_time
            if time_ == self.instant_time or time_ in snap.completed:
                continue
            theirs: set[tuple[str, str]] = set()
            if instant.is_completed and instant.action in WRITE_ACTIONS:
                if (snap.seen.get(time_) is Action.COMPACTION and self.action is Action.DELTA_COMMIT):
                    continue
                other = meta.commit_metadata(instant)
                theirs = other.file_ids_written() | other.replaced_file_ids()
                what = "committed to"
                self._check_rewritten_partitions(time_, other, inserted)
            elif time_ in snap.seen or instant.is_completed:
                continue
            elif instant.action is Action.COMPACTION and instant.state is State.REQUESTED:
                theirs = {(op.partition_path, op.file_id) for op in meta.compaction_plan(time_).operations}
                what = "scheduled a compaction of"
            elif (instant.action in (Action.REPLACE_COMMIT, Action.CLUSTERING) and instant.state is State.REQUESTED
                  and meta.is_clustering_instant(instant)):
                theirs = set(meta.clustering_plan(time_).input_file_groups())
                what = "scheduled a clustering of"
            else:
                continue
            overlap = ours & self._groups(theirs)
            if overlap:
                partition, group = min(overlap)
                unit = "bucket" if self.bucket_index else "file group"
                raise CommitConflictError(
                    f"Instant {time_} {what} {unit} {group} in partition '{partition}' while "
                    f"{self.instant_time} was writing it.",
                    help="run the write again; it will see the other commit "
                         f"('{HudiConcurrencyConfig.NUM_RETRIES_ON_CONFLICT.key}' retries it)",
                )

    def _check_rewritten_partitions(self, time_: str, other: CommitMetadata, inserted: set[str]) -> None:
        """Inserts conflict with a replace (clustering, overwrite) of their partition since the snapshot.

        A record counts as an insert because the index did not find its key in the partition's
        file groups as this write saw them. A clustering completed meanwhile moved those keys
        to new groups, and a clean may then delete the old ones: a listing taken after that,
        against the snapshot's timeline, shows neither, so keys that exist look new and would
        be written twice. Apache Hudi lets such an insert through (its conflict check compares
        file groups only, and leaves this to the cleaner's retention); here it fails like any
        conflict, and a retry sees the rewritten groups.
        """
        rewritten = sorted({p for p, _ in other.replaced_file_ids()} & inserted)
        if rewritten:
            raise CommitConflictError(
                f"Instant {time_} rewrote the file groups of partition '{rewritten[0]}' ({other.operation_type}) "
                f"while {self.instant_time} was inserting into it: keys this write took for new may have moved.",
                help="run the write again; it will see the other commit "
                     f"('{HudiConcurrencyConfig.NUM_RETRIES_ON_CONFLICT.key}' retries it)",
            )

    def _groups(self, file_ids: set[tuple[str, str]]) -> set[tuple[str, str]]:
        if not self.bucket_index:
            return file_ids
        out = set()
        for partition, file_id in file_ids:
            prefix = file_id[:BUCKET_ID_DIGITS]
            out.add((partition, f"{int(prefix):0{BUCKET_ID_DIGITS}d}" if prefix.isdigit() else file_id))
        return out

    def marker_dir(self) -> str:
        return self.meta_client.layout.marker_dir(self.instant_time)

    def relative(self, path: str) -> str:
        return relative_to(self.meta_client.base_path, path)


#: Digits of the bucket number a bucket-index file id starts with (Hudi's ``BucketIdentifier``).
BUCKET_ID_DIGITS = 8

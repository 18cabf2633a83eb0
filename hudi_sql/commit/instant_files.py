"""The instant-file writer: the only code that creates, transitions or deletes instant files.

Every change to a timeline's instant files goes through an :class:`InstantFileWriter` (each
state is a new file, nothing is renamed; table version 6 shown, version 8 below)::

    with writer.transaction("clean"):            lock, then reload the timeline
        t = writer.new_instant_time()            strictly after every instant on it
        writer.request(Instant(t, CLEAN, REQUESTED), plan)      <t>.clean.requested
    ... the service deletes files, outside the lock ...
    with writer.transaction("clean"):
        writer.start(Instant(t, CLEAN, INFLIGHT), plan_bytes)   <t>.clean.inflight
        writer.complete(Instant(t, CLEAN), metadata)            <t>.clean

Table version 8 (timeline layout 2) keeps the files in ``.hoodie/timeline/`` and names a
completed instant by its requested and its completion time, ``<t>_<c>.<action>``: :meth:`complete`
takes the completion time under the lock, after every time on the timeline, so the order of
completion times is the order in which instants became visible (what incremental reads and
the slicing of log files go by). Commit metadata is Avro there.

Services and the commit protocol build plans and metadata values
(:mod:`hudi_sql.model.instant_payloads`); the writer encodes and publishes them, and removes
instant files for rollback, restore, savepoint deletion and archival. Every method that touches
an instant file refuses to run outside :meth:`InstantFileWriter.transaction`, which is the seam
for multi-writer concurrency: it holds a :class:`LockProvider` lock (by default the table's
:class:`~hudi_sql.commit.locks.TableLock`: the in-process lock, plus the cross-process provider
``hoodie.write.lock.provider`` names) and reloads the timeline on entry, so conflict checks and
the files they guard are decided under one lock.

Transactions nest on one writer: an inner ``with`` neither locks nor reloads again, so an
operation made of several steps (a restore undoing many instants) passes its writer on.

A data table's instants go through its subclass :class:`~hudi_sql.commit.timeline_writer.TimelineWriter`,
which also keeps the table's metadata table in step; the metadata table's own instants are
written by a plain :class:`InstantFileWriter` under the data table's lock.
"""

from __future__ import annotations

__all__ = ["InstantFileWriter", "LockProvider", "NoOpLockProvider"]

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar

from hudi_sql.errors import CommitConflictError, CommitStateUnknownError, HudiError, HudiTimelineError
from hudi_sql.model.instant import Action, Instant, InstantTimeGenerator, State
from hudi_sql.model.instant_payloads import Payload, encode_payload
from hudi_sql.table.meta_client import TableMetaClient

_log = logging.getLogger(__name__)

_W = TypeVar("_W", bound="InstantFileWriter")


class LockProvider(Protocol):
    """Mutual exclusion of timeline transitions between writers (Hudi's ``LockProvider``)."""

    def lock(self, purpose: str) -> None:
        """Block until this writer holds the table's lock."""

    def unlock(self) -> None:
        """Release the lock taken by :meth:`lock`."""


class NoOpLockProvider:
    """The single-writer lock: excludes nothing (Hudi's default without optimistic concurrency)."""

    def lock(self, purpose: str) -> None:
        _log.debug("Timeline transaction: %s", purpose)

    def unlock(self) -> None:
        pass


class InstantFileWriter:
    """Creates, transitions and deletes the instant files of one table (see the module doc)."""

    def __init__(self, meta_client: TableMetaClient, lock_provider: LockProvider) -> None:
        self.meta_client = meta_client
        self.lock_provider = lock_provider
        self._depth = 0

    # -- the transaction seam ----------------------------------------------------------------

    @contextmanager
    def transaction(self: _W, purpose: str) -> Iterator[_W]:  # noqa: PYI019 - Self needs Python 3.11
        """Hold the lock and a fresh timeline for the transitions inside the ``with`` block."""
        if self._depth:
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        self.lock_provider.lock(purpose)
        try:
            self._depth = 1
            self.meta_client.reload_timeline()
            yield self
        finally:
            self._depth = 0
            self.lock_provider.unlock()

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    def _require_transaction(self, what: str) -> None:
        if not self._depth:
            raise HudiError(f"Timeline change '{what}' outside a timeline transaction.",
                            help="wrap it in `with writer.transaction(...)` (the lock seam)")

    # -- instant times ---------------------------------------------------------------------

    def next_instant_time(self, *, ignoring: str | None = None) -> str:
        """A new instant time after every instant of the (reloaded) timeline.

        Args:
            ignoring: an instant time not to wait for: the failed write a rollback removes. As
                in Apache Hudi, whose rollback instant takes the clock's time, a pending
                instant far in the future (a skewed clock, a hand-made file) is rolled back by
                a rollback timed now, and writes go on after it is gone.
        """
        self._require_transaction("new instant time")
        timeline = self.meta_client.timeline
        after = (timeline.latest_time() if ignoring is None
                 else max((i.instant_time for i in timeline.instants if i.instant_time != ignoring), default=None))
        return InstantTimeGenerator.next(after=after)

    def new_instant_time(self, instant_time: str | None = None, *, label: str = "Instant") -> str:
        """*instant_time* (or a new one), checked to be after every instant on the timeline.

        Raises:
            HudiTimelineError: a given time is not after the latest instant.
        """
        self._require_transaction("new instant time")
        latest = self.meta_client.timeline.latest_time()
        time_ = instant_time or InstantTimeGenerator.next(after=latest)
        if latest is not None and time_ <= latest:
            raise HudiTimelineError(f"{label} {time_} is not after the latest instant {latest}.")
        return time_

    # -- transitions -------------------------------------------------------------------------

    def _write(self, instant: Instant, payload: Payload, overwrite: bool) -> None:
        self._require_transaction(f"write {instant.file_name}")
        meta = self.meta_client
        meta.storage.write_bytes(meta.instant_file_path(instant),
                                 encode_payload(instant, payload, timeline_layout=meta.timeline_layout),
                                 overwrite=overwrite)

    def request(self, instant: Instant, payload: Payload = None, *, overwrite: bool = False) -> None:
        """Write ``<t>.<action>.requested`` holding *payload* (a plan, or nothing)."""
        assert instant.state is State.REQUESTED, instant
        self._require_transaction(f"write {instant.file_name}")
        # every write and table service starts here: a table version we only read stays untouched
        self.meta_client.require_writable(f"start a {instant.action.value} on")
        self._write(instant, payload, overwrite)

    def start(self, instant: Instant, payload: Payload = None, *, overwrite: bool = False) -> None:
        """Write the inflight file (a workload profile, a copy of the plan, or nothing)."""
        assert instant.state is State.INFLIGHT, instant
        self._write(instant, payload, overwrite)

    def complete(self, instant: Instant, payload: Payload, *, overwrite: bool = False) -> None:
        """Publish the completed file, last and whole: from here on readers see the instant.

        Raises:
            CommitStateUnknownError: the write failed but the file appeared (delete nothing).
            CommitConflictError: the write failed and the file is absent (surely not published).
        """
        assert instant.state is State.COMPLETED, instant
        self._require_transaction(f"complete {instant}")
        if self.meta_client.timeline_layout == 2 and instant.completion_time is None:
            instant = instant.with_completion_time(self.next_instant_time())
        target = self.meta_client.instant_file_path(instant)
        try:
            self._write(instant, payload, overwrite)
        except CommitConflictError:
            raise
        except OSError as exc:
            if self.meta_client.storage.exists(target):
                raise CommitStateUnknownError(
                    f"Writing {instant.file_name} failed after the file appeared: {exc}",
                    help="inspect .hoodie/ before retrying; do not delete the instant's files",
                ) from exc
            raise CommitConflictError(f"Could not write {instant.file_name}: {exc}") from exc

    def exists(self, instant: Instant) -> bool:
        """Whether *instant*'s state file is on storage (ignores the loaded timeline)."""
        return self.meta_client.storage.exists(self.meta_client.instant_file_path(instant))

    def delete(self, instant: Instant) -> bool:
        """Delete one instant file; ``False`` when it was already gone."""
        self._require_transaction(f"delete {instant.file_name}")
        deleted = self.meta_client.storage.delete(self.meta_client.instant_file_path(instant))
        if deleted:
            _log.debug("Deleted instant file %s", instant.file_name)
        return deleted

    def delete_pending_states(self, instant: Instant) -> None:
        """Delete the inflight and requested files of *instant* (a compaction's with its commit,
        a layout 2 clustering's with its replacecommit)."""
        for state in (State.INFLIGHT, State.REQUESTED):
            self.delete(instant.to(state))
            if instant.action is Action.COMMIT:
                self.delete(Instant(instant.instant_time, Action.COMPACTION, state))
            if instant.action is Action.REPLACE_COMMIT and self.meta_client.timeline_layout == 2:
                self.delete(Instant(instant.instant_time, Action.CLUSTERING, state))

    # -- moving a timeline between layouts (table version upgrade / downgrade) ----------------

    def publish_in_layout(self, instant: Instant, data: bytes, *, layout: int,
                          modification_time: float | None = None) -> None:
        """Write *instant*'s file with *data* into the folder of timeline *layout* (whatever the
        table's version says now), replacing a copy an interrupted upgrade left; with
        *modification_time*, dated then (layout 1 keeps a completion time only there)."""
        self._require_transaction(f"copy {instant.file_name} to timeline layout {layout}")
        path = self._layout_path(instant, layout)
        self.meta_client.storage.write_bytes(path, data, overwrite=True)
        if modification_time is not None:
            self.meta_client.storage.set_modification_time(path, modification_time)

    def delete_in_layout(self, instant: Instant, *, layout: int) -> bool:
        """Delete *instant*'s file from the folder of timeline *layout*."""
        self._require_transaction(f"delete {instant.file_name} of timeline layout {layout}")
        return self.meta_client.storage.delete(self._layout_path(instant, layout))

    def _layout_path(self, instant: Instant, layout: int) -> str:
        return f"{self.meta_client.timeline_path_of_layout(layout)}/{instant.file_name}"

    # -- the marker folder of an instant (.hoodie/.temp/<t>) ----------------------------------

    def create_marker_dir(self, instant_time: str) -> None:
        self._require_transaction(f"create markers of {instant_time}")
        self.meta_client.storage.mkdirs(self.meta_client.layout.marker_dir(instant_time))

    def delete_marker_dir(self, instant_time: str) -> None:
        self._require_transaction(f"delete markers of {instant_time}")
        self.meta_client.storage.delete_dir(self.meta_client.layout.marker_dir(instant_time))

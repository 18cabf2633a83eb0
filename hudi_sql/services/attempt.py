"""One attempt at executing a scheduled table service instant (a compaction or a clustering).

Both services run a plan written earlier, possibly again after an attempt that died, and both
start the same way: pick the pending instant, then under the table lock claim it with a
heartbeat (refused while another run's heartbeat is alive) and either write its inflight file
or delete what the dead attempt left (the files its markers name). The attempt's heartbeat
stops when it ends, completed or failed, so a retry may start at once.
"""

from __future__ import annotations

__all__ = ["attempt", "pending_to_run"]

from collections.abc import Iterator
from contextlib import contextmanager

from hudi_sql.commit.heartbeat import Heartbeat, claim_service_instant
from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import HudiTimelineError
from hudi_sql.model.instant import Instant
from hudi_sql.model.instant_payloads import Payload
from hudi_sql.model.timeline import Timeline
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.write.markers import read_markers


def pending_to_run(pending: Timeline, instant_time: str | None, what: str, table: str, help: str) -> str | None:
    """*instant_time* if it is pending, else the earliest pending instant (``None``: nothing to run).

    Raises:
        HudiTimelineError: *instant_time* is given but not among *pending* (*what* names the service).
    """
    if instant_time is None:
        return pending.instants[0].instant_time if pending.instants else None
    if not pending.contains_time(instant_time):
        raise HudiTimelineError(f"No pending {what} {instant_time} on '{table}'.", help=help)
    return instant_time


@contextmanager
def attempt(meta: TableMetaClient, what: str, inflight: Instant, workload: Payload,
            options: Resolved) -> Iterator[Heartbeat]:
    """Claim and start the *what* (``"compaction"``, ``"clustering"``) at *inflight*: write
    *workload* as its inflight file, or clear a dead attempt's leftovers, under the lock and with
    the heartbeats of *options*. The block executes and completes it. Yields the attempt's heartbeat.

    Raises:
        ConcurrentWriterError: another run is executing this instant (its heartbeat is alive).
    """
    heartbeat = None
    try:
        with TimelineWriter(meta, options).transaction(f"start {what} {inflight.instant_time}") as writer:
            heartbeat = claim_service_instant(meta, inflight, options.concurrency)
            if meta.timeline.find(inflight.instant_time, inflight.action, inflight.state) is None:
                writer.start(inflight, workload, overwrite=True)
            else:  # an earlier attempt died mid-way: its files are leftovers, named by its markers
                for marker in read_markers(meta.storage, meta.layout, inflight.instant_time):
                    meta.storage.delete(meta.layout.file_path(marker.partition_path, marker.file_name))
            writer.create_marker_dir(inflight.instant_time)
        yield heartbeat
    finally:  # done, or failed: no heartbeat, so a retry may start at once (a refused run has none)
        if heartbeat is not None:
            heartbeat.stop(delete=True)

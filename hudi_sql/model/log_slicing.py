"""Which file slice a log file belongs to when logs are named by their deltacommit (table version 8).

In table version 6 a log file's name carries the base instant of its slice, so grouping by
name is enough. From version 8 on (Apache Hudi 1.0 tech spec, "log file name will now have the
deltacommit instant time instead of base commit instant time") the name carries the requested
time of the deltacommit that wrote it, and the slice follows from completion times: the log
belongs to the slice with the greatest base instant at or before the log's *completion* time.
So a log written by a deltacommit that started before a compaction was requested but completed
after it lands in the compaction's new slice, as in Java's ``HoodieFileGroup`` with a
completion-time query view (and hudi-rs).

A log whose deltacommit has not completed belongs to no slice (a pending or failed write),
unless its instant lies before the active timeline (archived, hence completed): then its
requested time stands in for the unknown completion time.
"""

from __future__ import annotations

__all__ = ["log_slice_instant"]

from collections.abc import Iterable

from hudi_sql.model.timeline import Timeline


def log_slice_instant(log_instant: str, base_instants: Iterable[str], timeline: Timeline) -> str | None:
    """The base instant of the slice a version 8 log file belongs to, or ``None`` (not committed).

    Args:
        log_instant: the instant in the log file's name (its deltacommit's requested time).
        base_instants: candidate slice instants of the file group: committed base files and
            pending compactions (their slice has no base file yet).
        timeline: the (layout 2) timeline, for completion times.
    """
    completion = timeline.completion_time(log_instant)
    if completion is None:
        if not timeline.write_timeline().is_before_start(log_instant):
            return None
        completion = log_instant
    eligible = [b for b in base_instants if b <= completion]
    if eligible:
        return max(eligible)
    return log_instant  # a log-only file group: the slice is named after its first log

"""Spark job groups: a statement's jobs under one name, to cancel them and to follow their progress.

:func:`job_group` puts the jobs a thread starts into a named group, so that
``SparkContext.cancelJobGroup`` interrupts them and Spark's UI shows them under the statement.
:class:`GroupProgress` turns the group's progress into log lines, one per stage as it completes,
read off Spark's status tracker while the statement runs (and once more at its end), for a
client that follows a statement's log (Beeline's query log).
"""

from __future__ import annotations

__all__ = ["GroupProgress", "job_group"]

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark import SparkContext

_GROUP_PROPERTIES = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")


@contextmanager
def job_group(sc: SparkContext, group: str, description: str) -> Iterator[None]:
    """Jobs this thread starts inside the block belong to *group* (interrupted when it is
    cancelled); the thread's previous group, if any, is restored afterwards."""
    before = [sc.getLocalProperty(key) for key in _GROUP_PROPERTIES]
    sc.setJobGroup(group, description[:200], interruptOnCancel=True)
    try:
        yield
    finally:
        for key, value in zip(_GROUP_PROPERTIES, before, strict=True):
            sc.setLocalProperty(key, value)  # type: ignore[arg-type]  # None removes it


class GroupProgress:
    """Calls *emit* with a line for each stage of *group*'s jobs once all its tasks are done,
    every *interval* seconds while used as a context manager, and once more when it ends."""

    def __init__(self, sc: SparkContext, group: str, emit: Callable[[str], None], interval: float = 1.0) -> None:
        self._tracker = sc.statusTracker()
        self._group = group
        self._emit = emit
        self._interval = interval
        self._reported: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True, name=f"progress-{group}")
        self._lock = threading.Lock()

    def __enter__(self) -> GroupProgress:  # noqa: PYI034 - a final class
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sweep()

    def _follow(self) -> None:
        while not self._stop.wait(self._interval):
            self.sweep()

    def sweep(self) -> None:
        """Report the stages completed since the last sweep."""
        with self._lock:
            for job in sorted(self._tracker.getJobIdsForGroup(self._group)):
                info = self._tracker.getJobInfo(job)
                for stage in sorted(info.stageIds) if info else ():
                    if stage in self._reported:
                        continue
                    progress = self._tracker.getStageInfo(stage)
                    if progress is None or not progress.numTasks or progress.numCompletedTasks < progress.numTasks:
                        continue
                    self._reported.add(stage)
                    self._emit(f"INFO spark: job {job}, stage {stage}: {progress.numCompletedTasks}/"
                               f"{progress.numTasks} tasks done")

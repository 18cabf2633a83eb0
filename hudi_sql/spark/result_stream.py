"""A query's rows brought to the driver a wave of partitions at a time, and the job group its jobs run in.

``collect()`` holds a whole result in the driver before the first row can be sent on; a server
answering a 100 M-row ``SELECT`` page by page must not. ``toLocalIterator()`` holds one partition
but runs one job per partition, one after the other, on one core. :class:`StreamedRows` sits
between: each wave is one Spark job over the next few partitions (``defaultParallelism`` of
them, fewer once a wave has shown how many rows a partition holds), run in parallel, and the
next wave starts only when the reader has taken the rows of this one. The plan is executed once
(``javaToPython``): the shuffle stages of an ``ORDER BY`` or an aggregate run once, every wave
and every re-read reuses their output. A result Spark computes without a job (a command's
answer, a ``VALUES`` list) is collected at once. The waves' jobs run in the statement's job group
(:func:`~hudi_sql.spark.job_groups.job_group`), whichever thread reads them.
"""

from __future__ import annotations

__all__ = ["StreamedRows"]

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hudi_sql.spark.job_groups import job_group
from hudi_sql.spark.task_errors import translated_task_errors

if TYPE_CHECKING:
    from pyspark import SparkContext
    from pyspark.sql import DataFrame

#: About how many rows one wave should bring (a wave is never less than one partition).
WAVE_ROWS = 100_000

class StreamedRows:
    """The rows of *df*, re-iterable; each pass runs the query a wave of partitions at a time.

    Args:
        df: the result to read; its plan is executed here (shuffle stages included), its
            final partitions are read by the passes.
        group: the job group the waves' jobs run in (see :func:`job_group`), if any.
        wave_rows: about how many rows one wave brings to the driver.
    """

    def __init__(self, df: DataFrame, *, group: tuple[str, str] | None = None, wave_rows: int = WAVE_ROWS) -> None:
        self._sc: SparkContext = df.sparkSession.sparkContext
        self._group = group
        self._wave_rows = wave_rows
        self._local: list[Any] | None = None
        self._rdd: Any = None
        with self._in_group(), translated_task_errors():
            if df.isLocal():
                self._local = df.collect()
                self.partitions = 1
            else:
                self._rdd = df._jdf.javaToPython()
                self.partitions = int(self._rdd.getNumPartitions())

    def __iter__(self) -> Iterator[Any]:
        if self._local is not None:
            yield from self._local
            return
        wave = max(1, self._sc.defaultParallelism)
        start = 0
        while start < self.partitions:
            partitions = list(range(start, min(start + wave, self.partitions)))
            rows = self._run(partitions)
            start += len(partitions)
            per_partition = max(1, len(rows) // len(partitions))
            wave = max(1, min(self._sc.defaultParallelism, self._wave_rows // per_partition))
            yield from rows

    def _run(self, partitions: list[int]) -> list[Any]:
        from pyspark.core.rdd import _load_from_socket  # type: ignore[attr-defined]
        from pyspark.serializers import BatchedSerializer, CPickleSerializer

        jvm: Any = self._sc._jvm
        with self._in_group(), translated_task_errors():
            sock_info = jvm.PythonRDD.runJob(self._sc._jsc.sc(), self._rdd, partitions)
            with _load_from_socket(sock_info, BatchedSerializer(CPickleSerializer())) as stream:  # type: ignore[no-untyped-call]
                return list(stream)

    @contextmanager
    def _in_group(self) -> Iterator[None]:
        if self._group is None:
            yield
        else:
            with job_group(self._sc, *self._group):
                yield

"""File listings: ``show_fsview_latest`` and ``stats_file_sizes`` (Hudi 0.14 arguments and columns)."""

from __future__ import annotations

import fnmatch
import math
from collections import defaultdict
from typing import Any

from hudi_sql.errors import HudiFileFormatError, HudiSqlError
from hudi_sql.model.file_names import BaseFileName, LogFileName
from hudi_sql.model.instant import normalize_instant_time
from hudi_sql.sql.procedures import Arg, ProcedureContext, procedure
from hudi_sql.table.fs_view import FileSystemView

ALL_PARTITIONS = "ALL_PARTITIONS"


def _partitions(view: FileSystemView, pattern: str) -> list[str]:
    partitions = view.partition_paths()
    if pattern in ("", ALL_PARTITIONS, "*"):
        return partitions
    return [p for p in partitions if fnmatch.fnmatchcase(p, pattern) or p == pattern]


@procedure(
    "show_fsview_latest",
    args=[
        Arg("table", required=True),
        Arg("max_instant", default=""),
        Arg("include_max", "boolean", default=False),
        Arg("include_in_flight", "boolean", default=False),
        Arg("exclude_compaction", "boolean", default=False),
        Arg("limit", "int", default=10),
        Arg("path_regex", default=ALL_PARTITIONS),
        Arg("partition_path", default=ALL_PARTITIONS),
        Arg("merge", "boolean", default=True),
    ],
    output="partition string, file_id string, base_instant string, data_file string, data_file_size long, "
    "num_delta_files long, total_delta_file_size long, delta_size_compaction_scheduled long, "
    "delta_size_compaction_unscheduled long, delta_to_base_radio_compaction_scheduled double, "
    "delta_to_base_radio_compaction_unscheduled double, delta_files_compaction_scheduled string, "
    "delta_files_compaction_unscheduled string",
    description="The latest file slice of every file group: base file, log files and their sizes.",
)
def show_fsview_latest(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    if args["path_regex"] != ALL_PARTITIONS and args["partition_path"] != ALL_PARTITIONS:
        raise HudiSqlError("CALL show_fsview_latest: path_regex and partition_path cannot be used together.")
    pattern = args["partition_path"] if args["path_regex"] == ALL_PARTITIONS else args["path_regex"]
    as_of = None
    if args["max_instant"]:
        as_of = normalize_instant_time(str(args["max_instant"]))
        if not args["include_max"]:
            earlier = [t for t in meta.timeline.completed_writes().times() if t < as_of]
            as_of = earlier[-1] if earlier else None
            if as_of is None:
                return []
    view = FileSystemView(meta, as_of=as_of, include_uncommitted=bool(args["include_in_flight"]))
    if view.is_empty:
        return []
    rows = []
    for file_slice in view.latest_file_slices(_partitions(view, str(pattern))):
        base = file_slice.base_file
        base_size = base.size if base else 0
        logs = list(file_slice.log_files)
        scheduled = [log for log in logs if log.base_instant_time == file_slice.base_instant_time]
        unscheduled = [log for log in logs if log.base_instant_time != file_slice.base_instant_time]
        scheduled_size = sum(log.size for log in scheduled)
        unscheduled_size = sum(log.size for log in unscheduled)
        rows.append(
            (
                file_slice.partition_path,
                file_slice.file_id,
                file_slice.base_instant_time,
                base.path if base else "",
                base_size,
                len(logs),
                sum(log.size for log in logs),
                scheduled_size,
                unscheduled_size,
                scheduled_size / base_size if base_size else -1.0,
                unscheduled_size / base_size if base_size else -1.0,
                "[" + ",".join(log.path for log in scheduled) + "]",
                "[" + ",".join(log.path for log in unscheduled) + "]",
            )
        )
    return rows[: args["limit"]]


def _percentile(values: list[int], quantile: float) -> float:
    """``com.codahale.metrics.UniformSnapshot.getValue`` (what Hudi's histogram reports)."""
    if not values:
        return 0.0
    position = quantile * (len(values) + 1)
    index = int(position)
    if index < 1:
        return float(values[0])
    if index >= len(values):
        return float(values[-1])
    lower, upper = values[index - 1], values[index]
    return lower + (position - math.floor(position)) * (upper - lower)


def _histogram(name: str, sizes: list[int]) -> tuple[Any, ...]:
    values = sorted(sizes)
    count = len(values)
    mean = sum(values) / count if count else 0.0
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (count - 1)) if count > 1 else 0.0
    return (
        name,
        values[0] if values else 0,
        _percentile(values, 0.1),
        _percentile(values, 0.5),
        mean,
        _percentile(values, 0.95),
        values[-1] if values else 0,
        count,
        std,
    )


@procedure(
    "stats_file_sizes",
    args=[Arg("table", required=True), Arg("partition_path", default=""), Arg("limit", "int", default=10)],
    output="commit_time string, min long, 10th double, 50th double, avg double, 95th double, max long, "
    "num_files int, std_dev double",
    description="File size statistics per commit (of the files on storage), and over all files.",
)
def stats_file_sizes(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    view = FileSystemView(meta, include_uncommitted=True)
    by_commit: dict[str, list[int]] = defaultdict(list)
    every: list[int] = []
    for partition in _partitions(view, str(args["partition_path"])):
        for status in meta.storage.list(meta.layout.partition_dir(partition)):
            if status.is_dir:
                continue
            if status.name.endswith(".parquet"):
                base = BaseFileName.try_parse(status.name)
                commit = base.instant_time if base is not None else None
            else:
                try:
                    commit = LogFileName.parse(status.name).base_instant
                except HudiFileFormatError:  # not a data file (.hoodie_partition_metadata, ...)
                    commit = None
            if commit is None:
                continue
            by_commit[commit].append(status.size)
            every.append(status.size)
    rows = [_histogram(commit, sizes) for commit, sizes in sorted(by_commit.items())]
    rows.append(_histogram("ALL", every))
    return rows[: args["limit"]]

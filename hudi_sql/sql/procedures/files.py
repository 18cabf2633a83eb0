"""File listings: ``show_fsview_latest`` and ``stats_file_sizes`` (Hudi 0.14 arguments and columns), and
``show_fs_path_detail`` (1.x) of any path."""

from __future__ import annotations

import decimal
import fnmatch
import math
from collections import defaultdict
from typing import Any

import numpy as np

from hudi_sql.errors import HudiFileFormatError, HudiSqlError
from hudi_sql.model.file_names import BaseFileName, LogFileName
from hudi_sql.model.instant import normalize_instant_time
from hudi_sql.sql.procedures import Arg, ProcedureContext, procedure
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.glob import GlobMatch, glob, is_checksum_file
from hudi_sql.storage.uri import qualify
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


@procedure(
    "show_fs_path_detail",
    args=[Arg("path", required=True), Arg("is_sub", "boolean", default=False), Arg("sort", "boolean", default=True),
          Arg("limit", "int", default=100)],
    output="path_num long, file_num long, storage_size long, `storage_size(unit)` string, storage_path string, "
    "space_consumed long, quota long, space_quota long",
    description="Folders and files under the paths a pattern matches (is_sub => true: under each entry of the "
    "folder): how many, and how large, largest first (sort => false: most files first).",
)
def show_fs_path_detail(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Hadoop's ``ContentSummary`` of each path: its folders (itself included), files and bytes. Apache
    Hudi puts the quota (-1: none) in ``space_consumed`` and the bytes consumed in ``quota``; so do these
    rows, for scripts reading them by position."""
    storage = Storage.for_session(ctx.spark)
    pattern = str(args["path"])
    if args["is_sub"]:
        entries = [GlobMatch(qualify(s.path), s.is_dir) for s in storage.list(qualify(pattern))]
    else:
        entries = glob(storage, pattern)
    rows = []
    for entry in entries:
        if entry.is_dir:
            folders, files = _content(storage, entry.path)
        else:
            folders, files = 0, [storage.size(entry.path)]
        length = sum(files)
        rows.append((folders, len(files), length, _size_text(length), entry.uri, -1, length, -1))
    key = 2 if args["sort"] else 1
    return sorted(rows, key=lambda r: r[key], reverse=True)[: max(0, args["limit"])]


def _content(storage: Storage, folder: str) -> tuple[int, list[int]]:
    """(folders, file sizes) below *folder*, itself counted; Hadoop's local checksum files left out.
    A folder is one the walk reports (empty ones too, on a local disk) or one a file lies under (an
    object store has no folder objects)."""
    root = folder.rstrip("/")
    folders = {relative for relative, _names in storage.walk_folders(folder)} | {""}
    sizes = []
    for status in storage.walk_files(folder):
        if is_checksum_file(status.name):
            continue
        sizes.append(status.size)
        parts = qualify(status.path)[len(root):].strip("/").split("/")[:-1]
        folders.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    return len(folders), sizes


def _size_text(size: int) -> str:
    """``DecimalFormat("0.00")`` of the size in the largest unit it fills (GB, MB, KB), else bytes."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{_half_even(size / scale)}{unit}"
    return f"{size}B"


def _half_even(value: float) -> str:
    """Two decimals rounded half-even, as ``DecimalFormat`` rounds by default (of a float's value)."""
    return str(decimal.Decimal(repr(float(np.float32(value)))).quantize(decimal.Decimal("0.01"),
                                                                      rounding=decimal.ROUND_HALF_EVEN))

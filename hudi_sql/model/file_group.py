"""File groups and file slices: how a partition's files form the table's versions.

A *file group* is every file of one partition sharing a file id. A *file slice* is one base
file plus the log files whose name carries that base file's instant (v6). A COW update writes
a new base file with the same file id and a later instant, so a file group keeps older slices
until the cleaner removes them; readers pick the latest committed slice as of their instant.
"""

from __future__ import annotations

__all__ = ["BaseFile", "FileGroup", "FileGroupId", "FileSlice", "LogFile"]

from dataclasses import dataclass, field

from hudi_sql.model.file_names import BaseFileName, LogFileName


@dataclass(frozen=True, order=True)
class FileGroupId:
    partition_path: str
    file_id: str

    def __str__(self) -> str:
        return f"{self.partition_path}/{self.file_id}" if self.partition_path else self.file_id


@dataclass(frozen=True)
class BaseFile:
    """A base (parquet) file: *path* is absolute, *size* in bytes."""

    path: str
    size: int
    name: BaseFileName

    @property
    def file_id(self) -> str:
        return self.name.file_id

    @property
    def instant_time(self) -> str:
        return self.name.instant_time

    @property
    def file_name(self) -> str:
        return self.name.name


@dataclass(frozen=True)
class LogFile:
    path: str
    size: int
    name: LogFileName

    @property
    def file_id(self) -> str:
        return self.name.file_id

    @property
    def base_instant_time(self) -> str:
        return self.name.base_instant

    @property
    def file_name(self) -> str:
        return self.name.name


@dataclass(frozen=True)
class FileSlice:
    """One version of a file group: a base file (absent only for log-only slices) and its logs."""

    file_group_id: FileGroupId
    base_instant_time: str
    base_file: BaseFile | None = None
    log_files: tuple[LogFile, ...] = ()
    #: CDC log files of the slice (COW: the changes its base file's commit made); never merged
    #: into reads, only read by CDC queries and deleted with the slice by the cleaner.
    cdc_files: tuple[LogFile, ...] = ()

    @property
    def partition_path(self) -> str:
        return self.file_group_id.partition_path

    @property
    def file_id(self) -> str:
        return self.file_group_id.file_id

    @property
    def has_logs(self) -> bool:
        return bool(self.log_files)

    def total_size(self) -> int:
        return (self.base_file.size if self.base_file else 0) + sum(lf.size for lf in self.log_files)


@dataclass(frozen=True)
class FileGroup:
    file_group_id: FileGroupId
    slices: tuple[FileSlice, ...] = field(default_factory=tuple)  # sorted by base instant, oldest first

    @property
    def latest_slice(self) -> FileSlice | None:
        return self.slices[-1] if self.slices else None

    def slice_as_of(self, instant_time: str) -> FileSlice | None:
        candidates = [s for s in self.slices if s.base_instant_time <= instant_time]
        return candidates[-1] if candidates else None

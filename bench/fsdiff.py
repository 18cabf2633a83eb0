"""What a step wrote, from a listing of the table folder before and after it.

Files that are new or whose size or modification time changed count as written; transient
files (markers, staging folders removed before the step returns) are not seen, and a file
that grew counts only its appended bytes. Data files are
Parquet files and Hudi log files outside the metadata folders; the rest (timeline, Delta log,
Hadoop ``.crc`` side files, ``_SUCCESS``) is metadata.
"""

from __future__ import annotations

__all__ = ["Listing", "WriteDiff", "diff", "listing"]

import os
from dataclasses import asdict, dataclass
from pathlib import Path

Listing = dict[str, tuple[int, int]]  # relative path -> (size, mtime_ns)

_METADATA_DIRS = (".hoodie", "_delta_log")


def listing(root: Path) -> Listing:
    found: Listing = {}
    if not root.exists():
        return found
    stack = [str(root)]
    base = len(str(root)) + 1
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    found[entry.path[base:]] = (st.st_size, st.st_mtime_ns)
    return found


def is_data_file(relpath: str) -> bool:
    parts = relpath.split(os.sep)
    if any(p in _METADATA_DIRS for p in parts[:-1]):
        return False
    name = parts[-1]
    return name.endswith(".parquet") or (
        name.startswith(".") and ".log." in name and not name.endswith(".crc")
    )


@dataclass(frozen=True)
class WriteDiff:
    bytes_written: int
    files_written: int
    data_bytes_written: int
    data_files_written: int
    files_removed: int

    def to_json(self) -> dict[str, int]:
        return asdict(self)


def _written(old: tuple[int, int] | None, size: int) -> int:
    # A file that grew was appended to (a Hudi log file): count the appended bytes only.
    return size - old[0] if old is not None and size > old[0] else size


def diff(before: Listing, after: Listing) -> WriteDiff:
    changed = [
        (path, _written(before.get(path), size))
        for path, (size, mtime) in after.items()
        if before.get(path) != (size, mtime)
    ]
    data = [(p, s) for p, s in changed if is_data_file(p)]
    return WriteDiff(
        bytes_written=sum(s for _, s in changed),
        files_written=len(changed),
        data_bytes_written=sum(s for _, s in data),
        data_files_written=len(data),
        files_removed=sum(1 for p in before if p not in after),
    )


def total_bytes(files: Listing, *, data_only: bool = False) -> int:
    return sum(size for path, (size, _) in files.items() if not data_only or is_data_file(path))

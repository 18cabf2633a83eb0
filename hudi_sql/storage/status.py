"""What a listing says about one file or folder, whatever the store."""

from __future__ import annotations

__all__ = ["FileStatus"]

from dataclasses import dataclass


@dataclass(frozen=True)
class FileStatus:
    path: str  # in the form the table's paths take: local absolute path or the store's URI
    name: str
    size: int
    is_dir: bool
    modification_time: float

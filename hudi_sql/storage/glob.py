"""Hadoop's path globs over any store: what Apache Hudi's procedures that take a path pattern match.

A pattern matches one folder level per ``/``-separated segment; ``*``, ``?`` and ``[…]`` stay
within a segment, as in Hadoop's ``globStatus`` (which does not hide dot-files either).
"""

from __future__ import annotations

__all__ = ["GlobMatch", "glob", "is_checksum_file"]

import fnmatch
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hudi_sql.storage.uri import is_local, qualify

if TYPE_CHECKING:
    from hudi_sql.storage.fs import Storage

_GLOB_CHARACTERS = frozenset("*?[")


@dataclass(frozen=True)
class GlobMatch:
    """One path a pattern matched (canonical form, :func:`~hudi_sql.storage.uri.qualify`)."""

    path: str
    is_dir: bool

    @property
    def uri(self) -> str:
        """The path as Hadoop prints it (``file:/…`` for a local one)."""
        return f"file:{self.path}" if is_local(self.path) else self.path


def is_checksum_file(name: str) -> bool:
    """Whether *name* is a checksum file Hadoop's local file system keeps beside each file it writes
    (``.<name>.crc``), which its listings, globs and content summaries never show."""
    return name.startswith(".") and name.endswith(".crc")


def glob(storage: Storage, pattern: str) -> list[GlobMatch]:
    """The files and folders *pattern* matches, sorted by path (nothing when nothing matches)."""
    canonical = qualify(pattern)
    head, _, tail = canonical.partition("://") if "://" in canonical else ("", "", canonical)
    parts = tail.split("/")
    first = next((i for i, part in enumerate(parts) if _GLOB_CHARACTERS & set(part)), None)
    if first is None:
        if not storage.exists(canonical):
            return []
        return [GlobMatch(canonical, storage.is_dir(canonical))]
    root = "/".join(parts[:first]) or "/"
    level = [GlobMatch(f"{head}://{root}" if head else root, True)]
    for part in parts[first:]:  # one listing per folder a level matched, as Hadoop's globStatus lists
        level = [GlobMatch(qualify(status.path), status.is_dir)
                 for match in level if match.is_dir
                 for status in storage.list(match.path)
                 if fnmatch.fnmatchcase(status.name, part) and not is_checksum_file(status.name)]
    return sorted(level, key=lambda m: m.path)

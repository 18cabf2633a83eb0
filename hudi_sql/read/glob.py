"""Glob paths in a read: ``spark.read.format("hudi").load(base_path + "/*/*")``.

Older Apache Hudi guides load a table through a glob over its partition folders (one ``*`` per
partition level, and one more for the files). Apache Hudi still accepts it: the table is the
nearest folder above the glob that holds ``.hoodie``, and the query is a snapshot of the
partitions the glob reaches. A glob component that matches files (the last ``*``) selects
the partition holding them; the files themselves are still chosen by the timeline (latest
file slice, merged logs), never by the glob, so a glob read never returns old file versions.
"""

from __future__ import annotations

__all__ = ["GlobRead", "has_glob", "resolve_glob"]

import fnmatch
import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from hudi_sql.errors import HudiConfigError
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout

_GLOB_CHARACTERS = frozenset("*?[{")


def has_glob(path: str) -> bool:
    """Whether *path* holds a glob character (Hadoop's: ``* ? [ {``)."""
    return any(c in _GLOB_CHARACTERS for c in path)


@dataclass(frozen=True)
class GlobRead:
    """The table a glob path reads, and which of its partitions."""

    base_path: str
    pattern: tuple[str, ...]  # the glob's components below the base path

    def keeps(self, partition_path: str) -> bool:
        """True when the glob reaches *partition_path*: it names the partition folder, or files in it."""
        parts = tuple(p for p in partition_path.split("/") if p)
        depth = len(parts)
        if len(self.pattern) == depth:
            return _matches(parts, self.pattern)
        if len(self.pattern) == depth + 1:  # the last component names the files of the partition
            return _matches(parts, self.pattern[:depth])
        return False

    @property
    def partition_filter(self) -> Callable[[str], bool]:
        return self.keeps


def _matches(parts: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    return all(fnmatch.fnmatchcase(part, _without_braces(glob)) for part, glob in zip(parts, pattern, strict=True))


def _without_braces(glob: str) -> str:
    """Hadoop's ``{a,b}`` alternation has no fnmatch form; refused rather than misread."""
    if "{" in glob:
        raise HudiConfigError(
            f"The glob component '{glob}' uses {{a,b}} alternation, which hudi-sql does not support in a read path.",
            help="load the table's base path and filter on the partition columns instead",
        )
    return glob


def resolve_glob(path: str, storage: Storage | None = None) -> GlobRead:
    """The table under the glob *path*: the nearest folder above its first glob component that holds
    ``.hoodie/hoodie.properties``.

    Raises:
        HudiConfigError: no Hudi table holds the glob, or the glob reaches above the table's folder.
    """
    fs = storage or Storage()
    trimmed = path.rstrip("/")
    components = trimmed.split("/")
    first_glob = next(i for i, c in enumerate(components) if has_glob(c))
    candidate = "/".join(components[:first_glob]) or "/"
    while True:
        if fs.exists(TableLayout.of(candidate).properties_path):
            break
        parent = posixpath.dirname(candidate.rstrip("/")) if "://" not in candidate else candidate.rsplit("/", 1)[0]
        if not parent or parent == candidate:
            raise HudiConfigError(
                f"No Hudi table holds the glob path '{path}': no folder above it has .hoodie/hoodie.properties.",
                help="load the table's base path, e.g. spark.read.format('hudi').load('/path/to/table')",
            )
        candidate = parent
    below = trimmed[len(candidate.rstrip("/")):].strip("/")
    return GlobRead(candidate, tuple(p for p in below.split("/") if p))

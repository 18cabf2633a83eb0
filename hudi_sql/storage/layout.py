"""Where things live under a table's base path (table version 6, timeline layout 1)."""

from __future__ import annotations

__all__ = ["METAFOLDER", "PROPERTIES_FILE", "TableLayout"]

from dataclasses import dataclass

from hudi_sql.model.instant import Instant
from hudi_sql.storage.guard import check_partition_path, inside_base
from hudi_sql.storage.uri import join, qualify, relative_to

METAFOLDER = ".hoodie"
PROPERTIES_FILE = "hoodie.properties"

#: Folders Java creates with a new v6 table (empty unless bootstrap / archival / markers use them).
INITIAL_FOLDERS = ("archived", ".temp", ".schema", ".aux/.bootstrap/.partitions", ".aux/.bootstrap/.fileids")


@dataclass(frozen=True)
class TableLayout:
    base_path: str

    @classmethod
    def of(cls, base_path: str) -> TableLayout:
        return cls(qualify(base_path).rstrip("/") or "/")

    @property
    def meta_path(self) -> str:
        return join(self.base_path, METAFOLDER)

    @property
    def properties_path(self) -> str:
        return join(self.meta_path, PROPERTIES_FILE)

    @property
    def temp_path(self) -> str:
        return join(self.meta_path, ".temp")

    @property
    def archived_path(self) -> str:
        return join(self.meta_path, "archived")

    def instant_path(self, instant: Instant) -> str:
        return join(self.meta_path, instant.file_name)

    def marker_dir(self, instant_time: str) -> str:
        return join(self.temp_path, instant_time)

    def partition_dir(self, partition_path: str) -> str:
        """The folder of *partition_path*, refused if the value would leave the table."""
        if not partition_path:
            return self.base_path
        return inside_base(self.base_path, join(self.base_path, check_partition_path(partition_path)))

    def file_path(self, partition_path: str, file_name: str) -> str:
        """A data file's path, refused unless it lies inside the table.

        *file_name* may be a path relative to the partition (a write stat's path with an empty
        partition); names from markers and data never reach past the base path.
        """
        return inside_base(self.base_path, join(self.partition_dir(partition_path), file_name))

    def relative(self, path: str) -> str:
        return relative_to(self.base_path, path)

"""Write markers: what a write is about to create, so a failed write can be undone.

A task writes the marker *before* its data file, so every file a write may have left behind
is named by a marker. Layout (table version 6):

* DIRECT: one empty file per data file,
  ``.hoodie/.temp/<instant>/<partition>/<dataFileName>.marker.<IOType>``;
* TIMELINE_SERVER_BASED: marker names batched into ``MARKERS<n>`` files (one name per line) plus
  ``MARKERS.type`` holding the mode; Java's rollback reads this layout straight from storage.

``IOType`` is CREATE (new base file), MERGE (COW rewrite of a file group) or APPEND (MOR log
append; named after the slice's base file, as Hudi 0.14 does, because the log actually
written can change on roll-over).
"""

from __future__ import annotations

__all__ = [
    "MARKERS_TYPE_FILE",
    "IOType",
    "Marker",
    "read_markers",
    "validate_marker_name",
    "write_direct_marker",
    "write_marker_batch",
]

from dataclasses import dataclass
from enum import Enum

from hudi_sql.errors import PathOutsideTableError
from hudi_sql.model.file_names import BaseFileName
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.guard import check_partition_path
from hudi_sql.storage.layout import TableLayout
from hudi_sql.storage.uri import join, parent_of, relative_to

MARKERS_TYPE_FILE = "MARKERS.type"
_SUFFIX = ".marker."


class IOType(str, Enum):
    CREATE = "CREATE"
    MERGE = "MERGE"
    APPEND = "APPEND"


@dataclass(frozen=True)
class Marker:
    partition_path: str
    file_name: str
    io_type: IOType

    @property
    def name(self) -> str:
        rel = f"{self.partition_path}/{self.file_name}" if self.partition_path else self.file_name
        return f"{rel}{_SUFFIX}{self.io_type.value}"

    @classmethod
    def parse(cls, name: str) -> Marker | None:
        if _SUFFIX not in name:
            return None
        rel, io = name.rsplit(_SUFFIX, 1)
        try:
            io_type = IOType(io.strip())
        except ValueError:
            return None
        partition, _, file_name = rel.rpartition("/")
        return cls(partition, file_name, io_type)


def validate_marker_name(layout: TableLayout, name: str) -> Marker:
    """The marker *name* stands for, if it names a data file of the table; else an error naming it.

    A marker name is ``<partition path>/<base file name>.marker.<IOType>``: the partition path
    made of plain segments (:func:`~hudi_sql.storage.guard.check_partition_path`), the file
    name one base-file name of Hudi's grammar (APPEND markers name the slice's base file too),
    and the file inside the base path. Names arrive from tasks over the marker service and
    are read back from storage before the commit deletes the files they name, so both places
    check: a name like ``../victim.parquet.marker.CREATE`` never becomes a path to delete.

    Raises:
        PathOutsideTableError: the name does not follow the grammar or leaves the table.
    """
    marker = Marker.parse(name)
    if marker is None or "\x00" in name or "\n" in name:
        raise PathOutsideTableError(f"'{name}' is not a marker name (<partition>/<file>.marker.<IOType>).")
    if BaseFileName.try_parse(marker.file_name) is None or "/" in marker.file_name:
        raise PathOutsideTableError(f"Marker '{name}' does not name a base file ('{marker.file_name}').")
    check_partition_path(marker.partition_path)
    layout.file_path(marker.partition_path, marker.file_name)  # inside the base path, or an error
    return marker


def write_direct_marker(storage: Storage, layout: TableLayout, instant_time: str, marker: Marker) -> None:
    storage.write_bytes(join(layout.marker_dir(instant_time), marker.name), b"")


def write_marker_batch(storage: Storage, layout: TableLayout, instant_time: str, markers: list[Marker],
                       *, index: int) -> None:
    """TIMELINE_SERVER_BASED layout: append a batch as the file ``MARKERS<index>``."""
    marker_dir = layout.marker_dir(instant_time)
    type_file = join(marker_dir, MARKERS_TYPE_FILE)
    if not storage.exists(type_file):
        storage.write_bytes(type_file, b"TIMELINE_SERVER_BASED")
    storage.write_bytes(join(marker_dir, f"MARKERS{index}"),
                        "".join(m.name + "\n" for m in markers).encode("utf-8"))


def read_markers(storage: Storage, layout: TableLayout, instant_time: str) -> list[Marker]:
    """Every marker of an instant, whichever layout wrote them."""
    marker_dir = layout.marker_dir(instant_time)
    found: dict[str, Marker] = {}
    for status in storage.walk_files(marker_dir):
        if status.name == MARKERS_TYPE_FILE:
            continue
        if status.name.startswith("MARKERS") and parent_of(status.path) == marker_dir.rstrip("/"):
            for line in storage.read_bytes(status.path).decode("utf-8").splitlines():
                marker = Marker.parse(line.strip())
                if marker:
                    found[marker.name] = marker
            continue
        rel = relative_to(marker_dir, status.path)
        marker = Marker.parse(rel)
        if marker:
            found[marker.name] = marker
    return sorted(found.values(), key=lambda m: m.name)

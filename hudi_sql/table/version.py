"""Table versions: which ``hoodie.table.version`` values we read and write, and how.

A table's version decides its on-disk grammar, so a reader that guesses wrong does not fail,
it reads nothing: before version 8 was known here, a 1.x table's instants (in
``.hoodie/timeline/``) were simply not seen and every query returned no rows. Hence the rule:
a version not listed in :data:`READ_SUPPORT` fails on load with an error naming it.

What differs between the versions we read (Apache Hudi's ``HoodieTableVersion``; 1.0 tech spec):

* **6** (Hudi 0.14 / 0.15): timeline layout 1, instant files directly in ``.hoodie/``, completed
  instants ``<t>.<action>``, JSON commit metadata, log files named by the base instant of their
  file slice, archived timeline in ``.hoodie/archived/``.
* **8** (Hudi 1.0): timeline layout 2 in ``.hoodie/timeline/`` (``hoodie.timeline.path``),
  completed instants ``<requested>_<completion>.<action>``, Avro commit metadata, log files
  named by the deltacommit that wrote them (sliced by completion time), LSM archived timeline in
  ``.hoodie/timeline/history/``, ``hoodie.record.merge.mode`` and ``hoodie.table.ordering.fields``.
* **9** (Hudi 1.1 / 1.2's default): the files and timeline of version 8. What changes is how
  records merge: ``hoodie.table.ordering.fields`` (possibly several, compared as a tuple)
  replaces the precombine field, and partial-update modes and merge properties (a delete field
  and marker) replace payload classes (:meth:`TableMetaClient.record_payload` maps the ones we
  run and names the others); delete blocks may wrap the ordering value in an ``ArrayWrapper``.

Every version read is also written, each in its own grammar: a version 8 table stays version 8
(``hoodie.write.table.version`` chooses the version of a new table; a table moves between versions
only through ``hudi_sql.services.upgrade`` and ``hudi_sql.services.downgrade``). A version 9 table
is written as version 8 is, its ``hoodie.properties`` saying how records merge the version 9 way
(:func:`hudi_sql.table.meta_client.init_table`).
"""

from __future__ import annotations

__all__ = ["DEFAULT_CREATE_VERSION", "READ_SUPPORT", "WRITE_VERSIONS", "TableVersionSupport", "check_readable",
           "check_writable", "table_version_of", "timeline_layout_of"]

from collections.abc import Mapping
from dataclasses import dataclass

from hudi_sql.config import HudiTableConfig
from hudi_sql.config.resolve import TableConfig
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError


@dataclass(frozen=True)
class TableVersionSupport:
    """How a readable table version lays out its timeline."""

    version: int
    timeline_layout: int
    apache_hudi: str


READ_SUPPORT: dict[int, TableVersionSupport] = {
    6: TableVersionSupport(6, 1, "0.14 / 0.15"),
    8: TableVersionSupport(8, 2, "1.0"),
    9: TableVersionSupport(9, 2, "1.1 / 1.2"),
}

#: Versions we write: each in its own grammar (a version 8 table stays version 8, a 9 stays 9).
WRITE_VERSIONS = frozenset({6, 8, 9})

#: The version of a table hudi-sql creates unless ``hoodie.write.table.version`` asks for another.
DEFAULT_CREATE_VERSION = 6

_MISSING_BY_VERSION = {
    7: "table version 7 was only written by Apache Hudi 1.0 beta releases; upgrade it with Apache Hudi 1.0+ to 8",
}


def table_version_of(properties: Mapping[str, str]) -> int:
    """``hoodie.table.version`` of *properties* (6 when absent, as for tables of Hudi before 0.14)."""
    return TableConfig.of(properties).version


def timeline_layout_of(properties: Mapping[str, str]) -> int:
    """The timeline layout the table's version implies (``hoodie.timeline.layout.version`` must agree)."""
    config = TableConfig.of(properties)
    support = READ_SUPPORT.get(config.version)
    expected = support.timeline_layout if support else 1
    declared = config.declared_timeline_layout
    if declared is not None and declared != str(expected):
        raise HudiConfigError(
            f"Table version {config.version} uses timeline layout {expected}, but "
            f"{HudiTableConfig.TIMELINE_LAYOUT_VERSION.key}={declared}.",
            help="hoodie.properties is inconsistent; it was not written by Apache Hudi",
        )
    return expected


def check_readable(properties: Mapping[str, str], *, base_path: str) -> TableVersionSupport:
    """The support entry of the table's version.

    Raises:
        UnsupportedFeatureError: the version is not one we read; the message names it and what
            it would take, instead of reading a timeline we do not understand as empty.
    """
    version = table_version_of(properties)
    support = READ_SUPPORT.get(version)
    if support is None:
        known = ", ".join(f"{v} (Apache Hudi {s.apache_hudi})" for v, s in sorted(READ_SUPPORT.items()))
        why = _MISSING_BY_VERSION.get(version) or (
            "its timeline and file layout are not implemented here" if version > max(READ_SUPPORT)
            else "tables older than version 6 must be upgraded by Apache Hudi 0.14+ first")
        raise UnsupportedFeatureError(
            f"Table '{base_path}' has table version {version}, which hudi-sql cannot read: {why}.",
            help=f"readable table versions: {known}; read it with Apache Hudi or the Rust reader "
                 "(pip install hudi), or have Apache Hudi 1.x write it at version 8",
        )
    table_format = TableConfig.of(properties).table_format
    if table_format != "native":
        raise UnsupportedFeatureError(
            f"Table '{base_path}' declares {HudiTableConfig.TABLE_FORMAT.key}={table_format}: its timeline and "
            "files are another format's, which hudi-sql does not read.",
            help="read it with Apache Hudi or with the engine of that format",
        )
    timeline_layout_of(properties)
    return support


def check_writable(properties: Mapping[str, str], *, base_path: str, operation: str) -> None:
    """Refuse to write a table whose version we only read (a v6 write into a v8 timeline corrupts it).

    Raises:
        UnsupportedFeatureError: naming the version and the operation.
    """
    version = table_version_of(properties)
    if version not in WRITE_VERSIONS:
        raise UnsupportedFeatureError(
            f"Cannot {operation} table '{base_path}': it has table version {version}, and hudi-sql "
            f"writes only version {', '.join(map(str, sorted(WRITE_VERSIONS)))}.",
            help="write it with Apache Hudi, or read it only",
        )

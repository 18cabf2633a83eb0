"""How hive sync names the catalog tables of a Hudi table, and the query type each implies.

Hive sync registers a Merge-On-Read table ``t`` as ``t_ro`` (read-optimized: base files only)
and ``t_rt`` (snapshot: base files merged with log files), and marks each with the table
property :data:`QUERY_AS_RO_TABLE`; a Copy-On-Write table keeps its name. The SQL layer reads
a query's ``t_ro`` / ``t_rt`` with these rules; they are pure naming, so they live below both
the SQL layer and the catalog.
"""

from __future__ import annotations

__all__ = ["QUERY_AS_RO_TABLE", "RO_SUFFIX", "RT_SUFFIX", "hive_table_resolution", "synced_query_type"]

from collections.abc import Mapping

from hudi_sql.config.read import HudiReadConfig, QueryType

#: Suffix of the read-optimized Hive table of a Merge-On-Read table.
RO_SUFFIX = "_ro"
#: Suffix of the real-time (snapshot) Hive table of a Merge-On-Read table.
RT_SUFFIX = "_rt"
#: The serde/table property hive sync writes on each Hive table of a Merge-On-Read table:
#: ``true`` on the read-optimized one, ``false`` on the snapshot one.
QUERY_AS_RO_TABLE = HudiReadConfig.QUERY_AS_RO_TABLE.key

_SUFFIX_QUERY_TYPES = ((RO_SUFFIX, QueryType.READ_OPTIMIZED), (RT_SUFFIX, QueryType.SNAPSHOT))


def hive_table_resolution(name: str) -> tuple[str, QueryType] | None:
    """The Hudi table and query type a synced Hive table name stands for, by Hudi's naming.

    ``t_ro`` -> ``("t", READ_OPTIMIZED)``, ``t_rt`` -> ``("t", SNAPSHOT)``, any other name ->
    ``None`` (read it as itself). The suffix is matched case-insensitively; the base keeps the
    caller's spelling.

    Use: when a query names ``t_ro`` / ``t_rt`` and the catalog has no table of that name,
    read the Hudi table ``t`` with the query type; when the catalog has it (a synced table
    whose provider is ``hudi``), read it with the query type given by
    :func:`synced_query_type`. A read hint written in the query wins over both.
    """
    lower = name.lower()
    for suffix, query_type in _SUFFIX_QUERY_TYPES:
        if lower.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)], query_type
    return None


def synced_query_type(properties: Mapping[str, str] | None = None) -> QueryType | None:
    """The query type of a catalog table that hive sync registered, or ``None`` for a table
    that is read with the session's default.

    *properties* are the table's serde and table properties merged: :data:`QUERY_AS_RO_TABLE`
    (``true`` -> read-optimized, ``false`` -> snapshot) decides, as in Apache Hudi (it is also set
    when ``skip_ro_suffix`` registers the read-optimized table without its suffix). A catalog
    table's name does not: Apache Hudi reads a table created by SQL as ``t_ro`` over a
    Merge-On-Read location, without the property, as a snapshot.
    """
    for key, value in (properties or {}).items():
        if key.lower() == QUERY_AS_RO_TABLE:
            return QueryType.READ_OPTIMIZED if str(value).strip().lower() == "true" else QueryType.SNAPSHOT
    return None

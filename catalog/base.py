"""The table registry hudi-sql works against: names to locations, providers and properties.

A :class:`Catalog` only records tables; it never touches a table's data or its
``.hoodie/`` folder (the SQL runner does that, then registers the result). A table is a Hudi
table when its provider is ``hudi`` (:attr:`TableInfo.is_hudi`); every other table belongs to
Spark and is queried by Spark itself.

Implementations: :class:`catalog.spark_catalog.SparkSessionCatalog` (Spark's session catalog
with its metastore, the default). Hive sync lives in :mod:`catalog.hive` and is separate.
"""

from __future__ import annotations

__all__ = ["HUDI_PROVIDERS", "Catalog", "TableIdent", "TableInfo"]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from sqlglot import exp

from catalog.dialects import identifier, render_spark, table

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

HUDI_PROVIDERS = frozenset({"hudi", "org.apache.hudi"})


@dataclass(frozen=True)
class TableIdent:
    """A table name qualified by its database (names as the catalog stores them: lower case)."""

    database: str
    name: str

    def __str__(self) -> str:
        return f"{self.database}.{self.name}"

    def tree(self) -> exp.Table:
        """The name as a sqlglot table reference, each part a quoted identifier."""
        return table(self.database, self.name)


def quote_identifier(name: str) -> str:
    return render_spark(identifier(name))


@dataclass(frozen=True)
class TableInfo:
    """What the catalog knows about one table.

    Attributes:
        ident: database and name.
        location: the table's base path as a URI (``file:/...``), ``None`` for views.
        provider: ``hudi`` for Hudi tables, else Spark's provider (``parquet``, ``hive``, ...).
        properties: ``TBLPROPERTIES`` as stored (Hudi's SQL short names kept: ``primaryKey``).
        schema: the table's columns as Spark stores them (partition columns last).
        partition_columns: the ``PARTITIONED BY`` columns, in order.
        managed: whether the catalog owns the data (dropping the table deletes it).
        comment: the table comment, if any.
        table_type: ``TABLE`` or ``VIEW``.
        view_text: a view's query as stored (``None`` for tables).
    """

    ident: TableIdent
    location: str | None
    provider: str | None
    properties: Mapping[str, str] = field(default_factory=dict, hash=False)
    schema: StructType | None = field(default=None, hash=False, compare=False)
    partition_columns: tuple[str, ...] = ()
    managed: bool = False
    comment: str | None = None
    table_type: str = "TABLE"
    view_text: str | None = None

    @property
    def is_hudi(self) -> bool:
        return (self.provider or "").lower() in HUDI_PROVIDERS

    @property
    def is_view(self) -> bool:
        return self.table_type == "VIEW"


@runtime_checkable
class Catalog(Protocol):
    """The registry of tables; see the module doc for what it does and does not do."""

    def current_database(self) -> str:
        """The database unqualified names resolve in."""
        ...

    def database_exists(self, database: str) -> bool: ...

    def default_location(self, ident: TableIdent) -> str:
        """Where a managed table of that name lives (``<warehouse>/<t>``, ``<db location>/<t>``)."""
        ...

    def create_table(
        self,
        ident: TableIdent,
        *,
        schema: StructType,
        provider: str = "hudi",
        partition_columns: Sequence[str] = (),
        location: str | None = None,
        properties: Mapping[str, str] | None = None,
        comment: str | None = None,
    ) -> TableInfo:
        """Register a table; without *location* it is managed, at :meth:`default_location`.

        Raises:
            TableAlreadyExistsError: a table or view of that name exists.
        """
        ...

    def create_view(
        self,
        ident: TableIdent,
        *,
        text: str,
        schema: StructType,
        properties: Mapping[str, str] | None = None,
        comment: str | None = None,
    ) -> TableInfo:
        """Register a permanent view of *text* (a query whose unqualified tables resolve in
        *ident*'s database) with *schema*, without Spark analysing *text*.

        Raises:
            TableAlreadyExistsError: a table or view of that name exists.
        """
        ...

    def load_table(self, ident: TableIdent) -> TableInfo | None:
        """The table, or ``None`` when the catalog has no table or view of that name."""
        ...

    def table_exists(self, ident: TableIdent) -> bool: ...

    def list_tables(self, database: str | None = None) -> list[TableIdent]: ...

    def drop_table(self, ident: TableIdent) -> None:
        """Unregister the table (a managed table's files go with it, as in Spark)."""
        ...

    def set_properties(self, ident: TableIdent, properties: Mapping[str, str]) -> None: ...

    def set_data_schema(self, ident: TableIdent, data_schema: StructType) -> None:
        """Replace the non-partition columns (partition columns stay last)."""
        ...

    def rename(self, ident: TableIdent, new_ident: TableIdent) -> None: ...

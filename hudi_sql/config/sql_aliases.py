"""Hudi's SQL option short names (``primaryKey``, ``preCombineField``, ``type``,
``payloadClass``) and the ``hoodie.*`` options they stand for: the one mapping.

Hudi's Spark SQL (``HoodieOptionConfig``) lets ``TBLPROPERTIES`` / ``OPTIONS`` name the record
key, ordering field, table type and payload by short names. Everything that reads a SQL
table's properties (CREATE TABLE, the options of a SQL write, ALTER TABLE checks) resolves them
through :func:`resolve_sql_aliases` and :data:`SQL_ALIASES`, so a new short name is added here
once. Short names match case-insensitively, as Spark's option maps do.
"""

from __future__ import annotations

__all__ = [
    "PAYLOAD_CLASS",
    "PRECOMBINE_FIELD",
    "PRIMARY_KEY",
    "SQL_ALIASES",
    "TYPE",
    "SqlAlias",
    "resolve_sql_aliases",
    "sql_alias",
    "table_type_short_name",
]

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hudi_sql.config.registry import ConfigOption
from hudi_sql.config.table import HudiTableConfig, TableType
from hudi_sql.config.write import HudiWriteConfig


def _table_type_value(value: str) -> str:
    return TableType.parse(value).value


def _as_is(value: str) -> str:
    return value


@dataclass(frozen=True)
class SqlAlias:
    """One short name: the write option it sets, the table property (``hoodie.properties``)
    that records the same thing, and how its value becomes the option's value (``type = 'mor'``
    becomes ``MERGE_ON_READ``)."""

    name: str
    write_option: ConfigOption[Any]
    table_property: ConfigOption[Any] | None
    normalize: Callable[[str], str] = _as_is
    #: fixed when the table is created (ALTER TABLE ... SET TBLPROPERTIES may not change it)
    fixed: bool = True

    @property
    def keys(self) -> tuple[str, ...]:
        """The ``hoodie.*`` keys that say the same thing, write option first."""
        return (self.write_option.key,) + ((self.table_property.key,) if self.table_property else ())


PRIMARY_KEY = SqlAlias("primaryKey", HudiWriteConfig.RECORD_KEY_FIELDS, HudiTableConfig.RECORD_KEY_FIELDS)
PRECOMBINE_FIELD = SqlAlias("preCombineField", HudiWriteConfig.PRECOMBINE_FIELD, HudiTableConfig.PRECOMBINE_FIELD)
TYPE = SqlAlias("type", HudiWriteConfig.TABLE_TYPE, HudiTableConfig.TYPE, _table_type_value)
PAYLOAD_CLASS = SqlAlias("payloadClass", HudiWriteConfig.PAYLOAD_CLASS, HudiTableConfig.PAYLOAD_CLASS, fixed=False)
SQL_ALIASES: tuple[SqlAlias, ...] = (PRIMARY_KEY, PRECOMBINE_FIELD, TYPE, PAYLOAD_CLASS)
_BY_NAME = {alias.name.lower(): alias for alias in SQL_ALIASES}


def sql_alias(name: str) -> SqlAlias | None:
    """The short name *name* (any case) stands for, or ``None``."""
    return _BY_NAME.get(name.lower())


def table_type_short_name(table_type: TableType) -> str:
    """The value of the ``type`` short name for *table_type* (``cow`` / ``mor``)."""
    return "mor" if table_type is TableType.MERGE_ON_READ else "cow"


def resolve_sql_aliases(properties: Mapping[str, str], *, keep_other: bool = True) -> dict[str, str]:
    """*properties* with each short name replaced by its write option's key and normalized value.

    Args:
        keep_other: keep keys that are not short names (``hoodie.*`` options and anything
            else) as they are; when false only ``hoodie.*`` keys are kept (``comment`` and
            user tags are not options).

    Raises:
        ValueError: a ``type`` that is not a table type.
    """
    options: dict[str, str] = {}
    for key, value in properties.items():
        alias = sql_alias(key)
        if alias is not None:
            options[alias.write_option.key] = alias.normalize(value)
        elif keep_other or key.startswith("hoodie."):
            options[key] = value
    return options
